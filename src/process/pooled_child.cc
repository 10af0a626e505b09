#include "process/pooled_child.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/env_vars.h"
#include "core/error_codes.h"
#include "core/file_system.h"
#include "core/json_text.h"
#include "process/child_run.h"
#include "process/exit_wait.h"

namespace pi_fusion::process {
namespace {

using std::chrono::milliseconds;

constexpr size_t kChunk = 64 * 1024;
constexpr int kDrainAllChunks = 1024;  // 64 MiB: whatever the pipe holds
// A stdout record longer than this is a misbehaving child (Pi's records are far smaller).
constexpr size_t kMaxStdoutLine = 16u << 20;
// A stderr line longer than this cannot be a start or end line: it is passed through as it comes.
constexpr size_t kMaxMarkerLine = 4096;
// How much of the idle noise discarded before a task a setup failure quotes.
constexpr size_t kNoiseTail = 4096;
// End(): how long an idle process has to leave by itself once its stdin is closed.
constexpr milliseconds kEndGrace{200};
// Upper bound of one setup poll.
constexpr milliseconds kMaxPollSlice{1000};
// Pi's streaming deltas: the bulk of stdout, never needed, not parsed.
constexpr std::string_view kMessageUpdate = R"({"type":"message_update")";

Status SpawnRefused(const std::string& why) {
  return Status::Error(kChildSpawnFailed, "pooled child: " + why);
}

// Appends `data` to `partial` and calls on_line(line) (without its "\n") for each complete line.
// on_line returns false to stop: the rest of `data` is then returned unframed.
template <typename OnLine>
std::string_view SplitLines(std::string* partial, std::string_view data, OnLine&& on_line) {
  while (!data.empty()) {
    const size_t nl = data.find('\n');
    if (nl == std::string_view::npos) {
      partial->append(data);
      return {};
    }
    std::string line = std::move(*partial);
    partial->clear();
    line.append(data.substr(0, nl));
    data.remove_prefix(nl + 1);
    if (!on_line(std::string_view(line))) return data;
  }
  return {};
}

bool CompatiblePrefix(std::string_view text, std::string_view prefix) {
  const size_t n = std::min(text.size(), prefix.size());
  return text.substr(0, n) == prefix.substr(0, n);
}

// Could this (incomplete) stderr line still become a start or end line?
bool MarkerCandidate(std::string_view text) {
  return text.size() <= kMaxMarkerLine && (CompatiblePrefix(text, pooled_task::kStartPrefix) ||
                                           CompatiblePrefix(text, pooled_task::kEndPrefix));
}

std::string Shorten(std::string_view text) {
  constexpr size_t kMax = 120;
  return std::string(text.substr(0, kMax)) + (text.size() > kMax ? "…" : "");
}

void KeepTail(std::string* tail, std::string_view more) {
  tail->append(more);
  if (tail->size() > kNoiseTail) tail->erase(0, tail->size() - kNoiseTail);
}

// The last assistant message of a task, from Pi's stdout records, and what Pi's text mode prints
// for it.
class AnswerTracker {
 public:
  // One stdout record (a line without its "\n"). Returns "" or what is wrong with it.
  std::string OnLine(std::string_view line) {
    if (line.substr(0, kMessageUpdate.size()) == kMessageUpdate) return "";
    Result<nlohmann::json> record = ParseHostJson(line, kChildEventInvalid);
    if (!record.ok() || !record->is_object()) {
      return "stdout record is not a JSON object: " + Shorten(line);
    }
    OnRecord(*record);
    return "";
  }

  void OnRecord(const nlohmann::json& record) {
    const auto type = record.find("type");
    if (type == record.end() || *type != "message_end") return;
    const auto message = record.find("message");
    if (message == record.end() || !message->is_object()) return;
    const auto role = message->find("role");
    if (role != message->end() && *role == "assistant") last_ = *message;
  }

  // Each text block and "\n"; nothing after an error or an abort (Pi's print mode).
  std::string Text() const {
    std::string text;
    if (!last_) return text;
    const auto stop = last_->find("stopReason");
    if (stop != last_->end() && (*stop == "error" || *stop == "aborted")) return text;
    const auto content = last_->find("content");
    if (content == last_->end() || !content->is_array()) return text;
    for (const nlohmann::json& block : *content) {
      if (!block.is_object()) continue;
      const auto type = block.find("type");
      const auto body = block.find("text");
      if (type == block.end() || *type != "text" || body == block.end() || !body->is_string()) {
        continue;
      }
      text += body->get<std::string>() + "\n";
    }
    return text;
  }

 private:
  std::optional<nlohmann::json> last_;
};

// The supervised part of a task: ChildRun's loop and stop sequence over a process that outlives
// the task. Stdout carries Pi's records (parsed, not kept, not activity); stderr is the task's,
// cut at the end line, which ends the run with the process kept.
class TaskRun : public ChildRun {
 public:
  struct Context {
    const ChildSpec* task;  // the caller's spec: answer_complete, on_answer, stdout_cap
    const std::string* task_id;
    AnswerTracker* answer;
    std::string* stdout_partial;  // the owner's line framing
    std::string* stderr_after;    // gets what follows the end line (the next setup's noise)
    std::string seed_stdout;      // the task's stdout and stderr read during the setup
    std::string seed_stderr;
    ChildOutcome::Pooled pooled;  // which task of which process, on the outcome from the start
  };

  TaskRun(ProcessEnv* env, const ChildSpec& run_spec, const CancelToken& cancel,
          const ProgressCallback& progress, Context context)
      : ChildRun(env, run_spec, cancel, progress), context_(std::move(context)) {}

  using ChildRun::process_kept;
  std::optional<int> end_code() const { return end_code_; }
  // Stderr held back as a possible end line when the run ended without one.
  const std::string& held_back() const { return held_; }
  int stdout_fd() const { return out_.fd; }
  int stderr_fd() const { return err_.fd; }

 protected:
  void OnStarted() override {
    // Before anything can report the outcome (on_answer hands a copy over at the end line).
    outcome_.pooled = context_.pooled;
    const std::string out = std::move(context_.seed_stdout);
    const std::string err = std::move(context_.seed_stderr);
    if (!out.empty()) OnStdout(out);
    if (!err.empty()) OnStderr(err);
  }

  void OnRead(Stream* stream, const char* data, size_t size) override {
    if (stream == &out_) {
      OnStdout(std::string_view(data, size));
    } else {
      OnStderr(std::string_view(data, size));
    }
  }

 private:
  void Broken(const std::string& what) {
    Trigger(StopReason::kSupervisorError,
            Status::Error(kChildEventInvalid, "pooled child broke the task protocol: " + what));
  }

  void OnStdout(std::string_view data) {
    if (phase_ != Phase::kRunning || end_code_) return;  // stopping, or the task is over
    SplitLines(context_.stdout_partial, data, [&](std::string_view line) {
      const std::string wrong = context_.answer->OnLine(line);
      if (!wrong.empty()) Broken(wrong);
      return wrong.empty();
    });
    if (context_.stdout_partial->size() > kMaxStdoutLine) {
      context_.stdout_partial->clear();
      Trigger(StopReason::kStdoutCap,
              Status::Error(kChildOutputCap, "child stdout record longer than " +
                                                 std::to_string(kMaxStdoutLine) + " bytes"));
    }
  }

  void OnStderr(std::string_view data) {
    if (end_code_) {
      context_.stderr_after->append(data);
      return;
    }
    last_activity_ = now_;
    any_output_ = true;
    while (!data.empty() && !end_code_) {
      const size_t nl = data.find('\n');
      const size_t n = nl == std::string_view::npos ? data.size() : nl + 1;
      if (passing_) {  // inside a line that cannot be a marker
        Append(&err_, data.data(), n);
        passing_ = nl == std::string_view::npos;
      } else {
        held_.append(data.substr(0, n));
        if (nl != std::string_view::npos) {
          // `data` may point into the read buffer, which the end line's stdout drain reuses.
          const bool may_end = std::string_view(held_).substr(0, pooled_task::kEndPrefix.size()) ==
                               pooled_task::kEndPrefix;
          const std::string rest(may_end ? data.substr(n) : std::string_view());
          OnStderrLine();
          if (end_code_) {
            context_.stderr_after->append(rest);
            break;
          }
        } else if (!MarkerCandidate(held_)) {
          Append(&err_, held_.data(), held_.size());
          held_.clear();
          passing_ = true;
        }
      }
      data.remove_prefix(n);
    }
    CheckFirstOutput();
  }

  // held_ is one complete line.
  void OnStderrLine() {
    std::string line = std::move(held_);
    held_.clear();
    const std::string_view body(line.data(), line.size() - 1);
    if (std::optional<pooled_task::End> end = pooled_task::ParseEndLine(body)) {
      if (end->task_id != *context_.task_id) {
        Broken("end line of another task (" + end->task_id + ")");
        return;
      }
      OnEnd(end->exit_code);
      return;
    }
    if (pooled_task::ParseStartLine(body)) {
      Broken("a second start line");
      return;
    }
    Append(&err_, line.data(), line.size());
  }

  void OnEnd(int exit_code) {
    if (phase_ != Phase::kRunning) return;  // already stopping: the stop stands
    // Pi writes its records synchronously, so all of them precede the end line: read them all.
    Drain(&out_, kDrainAllChunks);
    if (phase_ != Phase::kRunning) return;  // the rest of stdout broke the protocol
    end_code_ = exit_code;
    const std::string text = context_.answer->Text();
    Append(&out_, text.data(), text.size());  // the cap, as a cold child's stdout
    if (phase_ != Phase::kRunning) return;
    outcome_.exit_code = exit_code;
    const ChildSpec& task = *context_.task;
    if (task.answer_complete &&
        task.answer_complete(outcome_.stdout_bytes, outcome_.stderr_bytes)) {
      answered_ = true;
      answered_at_ = now_;
      outcome_.answer_at = Elapsed(started_);
      if (task.on_answer) task.on_answer(outcome_);
    }
    EndKeepingProcess();
  }

  Context context_;
  std::string held_;      // the current stderr line, held while it may be a marker
  bool passing_ = false;  // the current stderr line is being passed through
  std::optional<int> end_code_;
};

}  // namespace

struct PooledChild::Setup {
  const pooled_task::Task* record = nullptr;
  const CancelToken* cancel = nullptr;
  Clock::TimePoint deadline;
  std::string to_task;
  size_t task_written = 0;
  std::string to_stdin;
  size_t stdin_written = 0;
  std::string awaited_id;
  std::optional<nlohmann::json> response;
  bool start_seen = false;
  bool prompt_sent = false;
  bool begun = false;       // the prompt's response has come: the task has begun
  std::string task_stdout;  // what followed the prompt's response
  std::string task_stderr;  // what followed the start line
  AnswerTracker answer;
  std::string failure;  // set by a line handler
};

PooledChild::PooledChild(ProcessEnv* env, SpawnedProcess child, int task_fd,
                         std::chrono::system_clock::time_point started_wall)
    : env_(env), child_(child), task_fd_(task_fd), started_wall_(started_wall) {}

Result<std::unique_ptr<PooledChild>> PooledChild::Start(ProcessEnv* env, const ChildSpec& spec) {
  bool rpc = false;
  for (size_t i = 1; i + 1 < spec.argv.size(); ++i) {
    rpc = rpc || (spec.argv[i] == "--mode" && spec.argv[i + 1] == "rpc");
  }
  if (!rpc) return SpawnRefused("its command line is not `--mode rpc`");
  for (const std::string& entry : spec.env) {
    const std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    if (env_vars::IsPerChild(name)) {
      return SpawnRefused("its environment holds the per-child variable " + std::string(name));
    }
  }
  if (!spec.inherit_fds.empty()) return SpawnRefused("it inherits no descriptor but the task pipe");
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return SpawnRefused("the task pipe: " + ErrnoText(errno));
  }
  const int flags = fcntl(pipe_fds[1], F_GETFL);
  if (flags < 0 || fcntl(pipe_fds[1], F_SETFL, flags | O_NONBLOCK) != 0) {
    const int err = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return SpawnRefused("the task pipe: " + ErrnoText(err));
  }
  SpawnRequest request;
  request.argv = spec.argv;
  request.env = spec.env;
  request.env.push_back(std::string(env_vars::kTaskFd) + "=" +
                        std::to_string(pooled_task::kTaskChildFd));
  request.cwd = spec.cwd;
  request.search_path = spec.search_path;
  request.die_with_parent = spec.die_with_parent;
  request.inherit_fds = {pipe_fds[0]};  // the child's descriptor 3
  const auto started_wall = env->clock().WallNow();
  Result<SpawnedProcess> child = env->Spawn(request);
  close(pipe_fds[0]);
  if (!child.ok()) {
    close(pipe_fds[1]);
    return child.status();
  }
  return std::unique_ptr<PooledChild>(new PooledChild(env, *child, pipe_fds[1], started_wall));
}

Result<std::unique_ptr<PooledChild>> PooledChild::StartPosix(const ChildSpec& spec) {
  // Stateless and thread-safe: one for every pooled child, never destroyed (a pool may outlive
  // static destruction's start).
  static ProcessEnv* const posix = NewPosixProcessEnv().release();
  return Start(posix, spec);
}

PooledChild::~PooledChild() { End(); }

bool PooledChild::EndedOnItsOwn() {
  if (ended_) return true;
  Result<std::optional<ExitStatus>> exit = env_->CheckExit(child_.pid, /*reap=*/false);
  if (exit.ok() && !exit->has_value()) return false;
  Kill(milliseconds(0), milliseconds(5000));  // reaps it
  return true;
}

std::optional<uint64_t> PooledChild::ResidentBytes() {
  if (ended_ || !resident_reader_) return std::nullopt;
  return resident_reader_(child_.pid);
}

std::optional<uint64_t> PooledChild::ReadProcResidentBytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) != 0) continue;  // "VmRSS:	    1234 kB"
    size_t at = line.find_first_of("0123456789");
    if (at == std::string::npos) return std::nullopt;
    uint64_t kib = 0;
    for (; at < line.size() && line[at] >= '0' && line[at] <= '9'; ++at) {
      kib = kib * 10 + static_cast<uint64_t>(line[at] - '0');
    }
    return kib * 1024;
  }
  return std::nullopt;  // gone, a zombie (no VmRSS line), or no /proc
}

std::string PooledChild::End(milliseconds kill_wait) {
  if (ended_) return *ended_;
  return Kill(kEndGrace, kill_wait);
}

std::string PooledChild::Kill(milliseconds grace, milliseconds kill_wait) {
  if (ended_) return *ended_;
  for (int* fd : {&child_.stdin_fd, &task_fd_}) {  // EOF on stdin: Pi leaves by itself
    if (*fd >= 0) env_->Close(*fd);
    *fd = -1;
  }
  std::string how;
  bool exited = grace.count() > 0 && WaitForExit(env_, child_.pid, grace);
  if (!exited) {
    // Idle, or past its task: it holds nothing worth a longer grace.
    env_->KillGroup(child_.pid, SIGKILL);
    exited = WaitForExit(env_, child_.pid, kill_wait);
  }
  // Sweep the group while the leader is an unreaped zombie, so its pgid cannot be reused.
  env_->KillGroup(child_.pid, SIGKILL);
  if (exited) {
    Result<std::optional<ExitStatus>> exit = env_->CheckExit(child_.pid, /*reap=*/true);
    how = exit.ok() && exit->has_value() ? DescribeExit(**exit) : "ended (exit status unknown)";
  } else {
    how = "not reaped within " + std::to_string(kill_wait.count()) + " ms";
  }
  for (int* fd : {&child_.stdout_fd, &child_.stderr_fd}) {
    if (*fd >= 0) env_->Close(*fd);
    *fd = -1;
  }
  ended_ = how;
  return how;
}

std::string PooledChild::Diagnostic() const {
  if (noise_tail_.empty()) return "";
  std::string tail = noise_tail_.substr(noise_tail_.size() > 200 ? noise_tail_.size() - 200 : 0);
  std::replace(tail.begin(), tail.end(), '\n', ' ');
  return " (last output: " + tail + ")";
}

std::string PooledChild::OnSetupStdoutLine(Setup* setup, std::string_view line) {
  if (line.substr(0, kMessageUpdate.size()) == kMessageUpdate) return "";
  Result<nlohmann::json> record = ParseHostJson(line, kChildEventInvalid);
  if (!record.ok() || !record->is_object()) {
    return "stdout record is not a JSON object: " + Shorten(line);
  }
  const auto type = record->find("type");
  const auto id = record->find("id");
  if (type != record->end() && *type == "response" && id != record->end() && id->is_string() &&
      *id == setup->awaited_id) {
    setup->response = std::move(record).value();
  } else if (setup->prompt_sent) {
    setup->answer.OnRecord(*record);
  }
  return "";
}

std::string PooledChild::SetupUntil(Setup* setup, const std::function<bool()>& done,
                                    const char* what) {
  std::vector<char> buffer(kChunk);
  // Reads what is there; "" or why the process is no use.
  auto read = [&](int fd, const char* name, auto&& on_data) -> std::string {
    for (;;) {
      IoResult r = env_->Read(fd, buffer.data(), buffer.size());
      if (r.bytes > 0) {
        on_data(std::string_view(buffer.data(), static_cast<size_t>(r.bytes)));
        continue;
      }
      if (r.bytes < 0 && r.error == EAGAIN) return "";
      if (r.bytes == 0) return std::string("the process closed its ") + name;
      return std::string("reading ") + name + ": " + ErrnoText(r.error);
    }
  };
  auto on_stdout = [&](std::string_view data) {
    if (setup->begun) {  // past the prompt's response: the task's own
      setup->task_stdout.append(data);
      return;
    }
    std::string_view rest = SplitLines(&stdout_partial_, data, [&](std::string_view line) {
      if (setup->failure.empty()) setup->failure = OnSetupStdoutLine(setup, line);
      setup->begun = setup->prompt_sent && setup->response.has_value();
      return !setup->begun;
    });
    if (setup->begun) setup->task_stdout.append(rest);
    if (stdout_partial_.size() > kMaxStdoutLine && setup->failure.empty()) {
      setup->failure = "stdout record longer than " + std::to_string(kMaxStdoutLine) + " bytes";
    }
  };
  auto on_stderr = [&](std::string_view data) {
    if (setup->start_seen) {
      setup->task_stderr.append(data);
      return;
    }
    std::string_view rest = SplitLines(&stderr_partial_, data, [&](std::string_view line) {
      if (std::optional<std::string> id = pooled_task::ParseStartLine(line)) {
        if (*id != setup->record->task_id) {
          if (setup->failure.empty()) setup->failure = "start line of another task (" + *id + ")";
          return true;
        }
        setup->start_seen = true;
        return false;
      }
      KeepTail(&noise_tail_, line);
      KeepTail(&noise_tail_, "\n");
      return true;
    });
    if (setup->start_seen) {
      setup->task_stderr.append(stderr_partial_);  // nothing: the start line ended a line
      stderr_partial_.clear();
      setup->task_stderr.append(rest);
    } else if (stderr_partial_.size() > kMaxMarkerLine) {
      KeepTail(&noise_tail_, stderr_partial_);
      stderr_partial_.clear();
    }
  };
  auto write = [&](int fd, const std::string& data, size_t* written, const char* name) {
    while (*written < data.size()) {
      IoResult r = env_->Write(fd, data.data() + *written, data.size() - *written);
      if (r.bytes < 0) {
        return r.error == EAGAIN ? std::string()
                                 : std::string("writing ") + name + ": " + ErrnoText(r.error);
      }
      *written += static_cast<size_t>(r.bytes);
    }
    return std::string();
  };

  for (;;) {
    std::string why = write(child_.stdin_fd, setup->to_stdin, &setup->stdin_written, "stdin");
    if (why.empty()) {
      why = write(task_fd_, setup->to_task, &setup->task_written, "the task pipe");
    }
    if (!why.empty()) return why;
    // Both streams are read before either's end counts: a task may begin and end at once.
    std::string closed = read(child_.stdout_fd, "stdout", on_stdout);
    std::string closed_err = read(child_.stderr_fd, "stderr", on_stderr);
    if (closed.empty()) closed = std::move(closed_err);
    if (!setup->failure.empty()) return setup->failure;
    if (done()) return "";
    if (!closed.empty()) return closed;
    if (setup->cancel->IsCancelled()) return "cancelled during the setup";
    const auto now = env_->clock().Now();
    if (now >= setup->deadline) {
      return std::string("no ") + what + " within the setup limit of " +
             std::to_string(setup_limit_.count()) + " ms";
    }
    std::array<pollfd, 5> fds;
    size_t n = 0;
    fds[n++] = pollfd{child_.stdout_fd, POLLIN, 0};
    fds[n++] = pollfd{child_.stderr_fd, POLLIN, 0};
    if (setup->stdin_written < setup->to_stdin.size()) {
      fds[n++] = pollfd{child_.stdin_fd, POLLOUT, 0};
    }
    if (setup->task_written < setup->to_task.size()) fds[n++] = pollfd{task_fd_, POLLOUT, 0};
    if (setup->cancel->wait_fd() >= 0) fds[n++] = pollfd{setup->cancel->wait_fd(), POLLIN, 0};
    const auto left = std::chrono::duration_cast<milliseconds>(setup->deadline - now);
    const int ready = env_->Poll(std::span<pollfd>(fds.data(), n), std::min(left, kMaxPollSlice));
    if (ready < 0) return "poll: " + ErrnoText(-ready);
  }
}

std::string PooledChild::SetupExchange(Setup* setup, std::string command, const char* what) {
  setup->awaited_id = "pi-fusion-" + std::to_string(next_request_++);
  nlohmann::json json = nlohmann::json::parse(command);
  json["id"] = setup->awaited_id;
  setup->to_stdin.append(json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                         "\n");
  setup->response.reset();
  std::string why = SetupUntil(
      setup, [&] { return setup->response.has_value(); }, what);
  if (!why.empty()) return why;
  const nlohmann::json& response = *setup->response;
  const auto success = response.find("success");
  if (success == response.end() || *success != true) {
    const auto error = response.find("error");
    return std::string(what) + " failed" +
           (error != response.end() && error->is_string() ? ": " + error->get<std::string>()
                                                          : std::string());
  }
  return "";
}

TaskResult PooledChild::RunTask(const ChildSpec& task, const pooled_task::Task& record,
                                const TaskRoute& route, const CancelToken& cancel,
                                const ProgressCallback& progress, int request_signal_fd) {
  TaskResult result;
  if (ended_) {
    result.reason = "the pooled process has ended (" + *ended_ + ")";
    return result;
  }
  Setup setup;
  setup.record = &record;
  setup.cancel = &cancel;
  setup.deadline = env_->clock().Now() + setup_limit_;
  auto fail = [&](const std::string& why) {
    result.reason = "pooled child: " + why + Diagnostic();
    Kill(milliseconds(0), task.limits.kill_wait);
    return result;
  };

  // Idle noise since the last task: read and dropped (its tail kept for a diagnostic).
  noise_tail_.clear();
  std::string why = SetupUntil(
      &setup, [] { return true; }, "idle check");
  if (!why.empty()) return fail(why);
  Result<std::optional<ExitStatus>> exit = env_->CheckExit(child_.pid, /*reap=*/false);
  if (!exit.ok()) return fail(exit.status().message());
  if (exit->has_value()) return fail("it " + DescribeExit(**exit) + " while idle");

  setup.to_task = pooled_task::EncodeRecord(record);
  why = SetupExchange(&setup, R"({"type":"new_session"})", "new_session");
  if (why.empty()) {
    const auto data = setup.response->find("data");
    const bool started = data != setup.response->end() && data->is_object() &&
                         data->contains("cancelled") && (*data)["cancelled"] == false;
    if (!started) why = "new_session was cancelled";
  }
  if (why.empty())
    why = SetupUntil(
        &setup, [&] { return setup.start_seen; }, "start line");
  if (why.empty()) {
    why = SetupExchange(
        &setup,
        nlohmann::json{
            {"type", "set_model"}, {"provider", route.provider}, {"modelId", route.model_id}}
            .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
        "set_model");
  }
  if (why.empty()) {
    why = SetupExchange(
        &setup,
        nlohmann::json{{"type", "set_thinking_level"}, {"level", route.thinking_level}}.dump(
            -1, ' ', false, nlohmann::json::error_handler_t::replace),
        "set_thinking_level");
  }
  if (why.empty()) {
    setup.prompt_sent = true;
    why = SetupExchange(&setup,
                        nlohmann::json{{"type", "prompt"}, {"message", task.stdin_data}}.dump(
                            -1, ' ', false, nlohmann::json::error_handler_t::replace),
                        "prompt");
  }
  if (why.empty()) {
    const auto data = setup.response->find("data");
    if (data != setup.response->end() && data->is_object()) {
      const auto disposition = data->find("disposition");
      if (disposition != data->end() && *disposition != "started") {
        why = "the prompt was not started (" + disposition->dump() + ")";
      }
    }
  }
  if (!why.empty()) return fail(why);

  // The task has begun.
  result.started = true;
  if (request_signal_fd >= 0) {
    const char byte = 1;
    (void)env_->Write(request_signal_fd, &byte, 1);
  }
  ChildSpec run_spec = task;
  run_spec.stdin_data.clear();         // the prompt went over RPC; the run keeps stdin alone
  run_spec.answer_complete = nullptr;  // asked once, at the end line (TaskRun::OnEnd)
  run_spec.on_answer = nullptr;
  TaskRun::Context context{&task,
                           &record.task_id,
                           &setup.answer,
                           &stdout_partial_,
                           &stderr_partial_,
                           std::move(setup.task_stdout),
                           std::move(setup.task_stderr),
                           ChildOutcome::Pooled{tasks_ + 1, started_wall_}};
  stderr_partial_.clear();
  TaskRun run(env_, run_spec, cancel, progress, std::move(context));
  SpawnedProcess view = child_;
  view.stdin_fd = -1;
  result.outcome = run.Supervise(view, env_->clock().Now(), env_->clock().WallNow());
  ChildOutcome& outcome = result.outcome;
  outcome.stdin_bytes_written = task.stdin_data.size();
  if (run.end_code()) ++tasks_;
  if (run.process_kept()) {
    child_.stdout_fd = run.stdout_fd();
    child_.stderr_fd = run.stderr_fd();
    result.reusable = child_.stdout_fd >= 0 && child_.stderr_fd >= 0;
    if (!result.reusable) {
      result.reason = "the process closed its output at the end of the task";
      Kill(milliseconds(0), task.limits.kill_wait);
    }
    return result;
  }
  // Stopped, or it ended by itself: the run has closed its pipes and reaped it.
  child_.stdout_fd = child_.stderr_fd = -1;
  if (const std::string& held = run.held_back(); !held.empty()) {
    const size_t room = task.limits.stderr_cap > outcome.stderr_bytes.size()
                            ? task.limits.stderr_cap - outcome.stderr_bytes.size()
                            : 0;
    outcome.stderr_bytes.append(held.substr(0, room));
  }
  if (run.end_code() && outcome.stop_reason == StopReason::kNone) {
    // It ended the task, then exited: the task's end line says how the task went.
    outcome.exit_code = run.end_code();
    outcome.term_signal.reset();
  }
  result.reason = outcome.stop_reason != StopReason::kNone ? "stopped: " + outcome.status.message()
                                                           : "the process ended during the task";
  // Already reaped (or given up on, with a cleanup error): never signal its pgid again.
  for (int* fd : {&child_.stdin_fd, &task_fd_}) {
    if (*fd >= 0) env_->Close(*fd);
    *fd = -1;
  }
  ended_ = "ended during a task";
  return result;
}

}  // namespace pi_fusion::process
