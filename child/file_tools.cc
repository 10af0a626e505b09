#include "child/file_tools.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "child/child_state.h"
#include "child/core/grep_filter.h"
#include "child/core/grep_output.h"
#include "child/core/path_confinement.h"
#include "child/core/protected_names.h"
#include "child/core/read_limits.h"
#include "child/core/walk_tools.h"
#include "child/js_convert.h"
#include "napi_util/text_result.h"
#include "process/supervisor.h"

namespace pi_fusion::child {
namespace {

constexpr size_t kReadChunk = 64 * 1024;
// A walk's output is read whole; this bounds it (rg stops at the cap, as Pi stops it at the limit).
constexpr size_t kWalkOutputCap = 32u << 20;
constexpr std::chrono::milliseconds kWalkTime{120 * 1000};

// What every tool of one registration shares. Pi's functions are kept for the process's life.
struct Shared {
  FileToolsSetup setup;
  const Napi::ObjectReference* pi_tools = nullptr;  // owned by ChildState (per environment)
};
using SharedPtr = std::shared_ptr<Shared>;

bool IsWallCode(const std::string& code) {
  return code == kPathOutsideProject || code == kPathInRunStore || code == kPathProtected ||
         code == kPathNotRegular || code == kPathNotFound || code == kFileTooLarge ||
         code == kReadTimedOut;
}

Napi::Function PiFunction(const Shared& s, const char* name) {
  Napi::Function fn = Method(s.pi_tools->Value(), name);
  if (fn.IsEmpty()) {
    throw Napi::Error::New(s.pi_tools->Env(), std::string("pi-fusion child: this Pi has no ") +
                                                  name + "; the confined file tools need it");
  }
  return fn;
}

// The refusal: journaled through the hook, then thrown for Pi to hand the model.
[[noreturn]] void Refuse(Napi::Env env, const Shared& s, const std::string& call_id,
                         const Status& status) {
  if (IsWallCode(status.code()) && s.setup.on_refusal) s.setup.on_refusal(call_id, status.code());
  throw Napi::Error::New(env, status.message());
}

std::string Arg(const Napi::CallbackInfo& info, size_t i) {
  return info.Length() > i && info[i].IsString() ? info[i].As<Napi::String>().Utf8Value() : "";
}

VettedObject VetOrThrow(Napi::Env env, const Shared& s, const std::string& call_id,
                        const std::string& path, WallWant want) {
  Result<VettedObject> vetted = s.setup.wall->Vet(path, path, want);
  if (!vetted.ok()) Refuse(env, s, call_id, vetted.status());
  return std::move(vetted).value();
}

// An open, vetted, readable file; closed with its last owner. It ends at the size it had when
// opened (a file that grows while it is read still ends, as Pi's read does); one of size 0 (a
// /proc-like file) is read to its end, within the call's budget.
struct OpenFile {
  OpenFile(int f, uint64_t size, std::shared_ptr<ReadBudget> b, std::string path)
      : fd(f), left(size > 0 ? size : UINT64_MAX), budget(std::move(b)), shown(std::move(path)) {}
  ~OpenFile() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  // Up to `max` bytes; empty at the end. A refusal when the call's time or bytes are spent.
  Result<std::string> Read(size_t max) {
    if (Status time = budget->BeforeRead(shown); !time.ok()) return time;
    max = static_cast<size_t>(std::min<uint64_t>(max, left));
    std::string out(max, '\0');
    ssize_t n = -1;
    const ReadBudget::Clock::time_point started = ReadBudget::Clock::now();
    while (fd >= 0 && max > 0 && (n = ::read(fd, out.data(), max)) < 0 && errno == EINTR) {
    }
    budget->AddReadTime(ReadBudget::Clock::now() - started);
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    left -= out.size();
    if (Status bytes = budget->Charge(out.size(), shown); !bytes.ok()) return bytes;
    return out;
  }
  int fd;
  uint64_t left;  // bytes before the size seen at open
  std::shared_ptr<ReadBudget> budget;
  const std::string shown;
};

// The file's next bytes, or the refusal thrown (journaled) when the call's budget is spent.
std::string ReadOrThrow(Napi::Env env, const Shared& s, const std::string& call_id, OpenFile& file,
                        size_t max) {
  Result<std::string> bytes = file.Read(max);
  if (!bytes.ok()) {
    file.Close();
    Refuse(env, s, call_id, bytes.status());
  }
  return std::move(bytes).value();
}

std::shared_ptr<OpenFile> OpenVettedFile(Napi::Env env, const Shared& s, const std::string& call_id,
                                         const std::string& path,
                                         std::shared_ptr<ReadBudget> budget) {
  VettedObject vetted = VetOrThrow(env, s, call_id, path, WallWant::kFile);
  Result<int> fd = FileWall::ReopenForReading(vetted);
  if (!fd.ok()) Refuse(env, s, call_id, fd.status());
  struct stat st {};
  const uint64_t size = ::fstat(*fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  // Refusals name the file by its place in the project, as the model sees the project.
  auto file = std::make_shared<OpenFile>(*fd, size, std::move(budget), vetted.relative());
  if (Status fits = CheckSizeAtOpen(size, vetted.relative()); !fits.ok()) {
    Refuse(env, s, call_id, fits);
  }
  return file;
}

Napi::Buffer<char> ToBuffer(Napi::Env env, const std::string& bytes) {
  return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
}

// The image types Pi's read sends as attachments, by their first bytes.
std::optional<std::string> SniffImage(const std::string& head) {
  auto starts = [&](std::string_view magic) { return head.compare(0, magic.size(), magic) == 0; };
  if (starts("\x89PNG\r\n\x1a\n")) return "image/png";
  if (starts("\xff\xd8\xff")) return "image/jpeg";
  if (starts("GIF87a") || starts("GIF89a")) return "image/gif";
  if (starts("RIFF") && head.size() >= 12 && head.compare(8, 4, "WEBP") == 0) return "image/webp";
  if (starts("BM")) return "image/bmp";
  return std::nullopt;
}

// An async iterable of the file's chunks, as Pi's createReadStream operation returns.
Napi::Object ChunkIterable(Napi::Env env, SharedPtr s, std::string id,
                           std::shared_ptr<OpenFile> file) {
  Napi::Object iterable = Napi::Object::New(env);
  auto step = [](Napi::Env env, Napi::Value value, bool done) {
    Napi::Object result = Napi::Object::New(env);
    result.Set("value", value);
    result.Set("done", done);
    Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
    deferred.Resolve(result);
    return deferred.Promise();
  };
  iterable.Set("next",
               Napi::Function::New(env, [s, id, file, step](const Napi::CallbackInfo& info) {
                 const std::string chunk = ReadOrThrow(info.Env(), *s, id, *file, kReadChunk);
                 if (chunk.empty()) {
                   file->Close();
                   return step(info.Env(), info.Env().Undefined(), true);
                 }
                 return step(info.Env(), ToBuffer(info.Env(), chunk), false);
               }));
  iterable.Set("return", Napi::Function::New(env, [file, step](const Napi::CallbackInfo& info) {
                 file->Close();
                 return step(info.Env(), info.Env().Undefined(), true);
               }));
  Napi::Value key = env.Global().Get("Symbol").As<Napi::Object>().Get("asyncIterator");
  iterable.Set(
      key, Napi::Function::New(env, [](const Napi::CallbackInfo& info) { return info.This(); }));
  return iterable;
}

// One read call's operations share its budget (read_limits.h): Pi's read opens the file up to
// three times (sniff, then read or stream).
Napi::Object ReadOperations(Napi::Env env, SharedPtr s, std::string id) {
  auto budget = std::make_shared<ReadBudget>();
  Napi::Object ops = Napi::Object::New(env);
  ops.Set("access", Napi::Function::New(env, [s, id](const Napi::CallbackInfo& info) {
            VetOrThrow(info.Env(), *s, id, Arg(info, 0), WallWant::kFile);
            return info.Env().Undefined();
          }));
  ops.Set(
      "detectImageMimeType",
      Napi::Function::New(env, [s, id, budget](const Napi::CallbackInfo& info) {
        std::shared_ptr<OpenFile> file = OpenVettedFile(info.Env(), *s, id, Arg(info, 0), budget);
        std::optional<std::string> mime = SniffImage(ReadOrThrow(info.Env(), *s, id, *file, 16));
        return mime ? Napi::String::New(info.Env(), *mime).As<Napi::Value>()
                    : info.Env().Undefined();
      }));
  ops.Set("readFile", Napi::Function::New(env, [s, id, budget](const Napi::CallbackInfo& info) {
            std::shared_ptr<OpenFile> file =
                OpenVettedFile(info.Env(), *s, id, Arg(info, 0), budget);
            std::string all;
            for (std::string chunk;
                 !(chunk = ReadOrThrow(info.Env(), *s, id, *file, kReadChunk)).empty();) {
              all += chunk;
            }
            return ToBuffer(info.Env(), all);
          }));
  ops.Set("createReadStream",
          Napi::Function::New(env, [s, id, budget](const Napi::CallbackInfo& info) {
            return ChunkIterable(info.Env(), s, id,
                                 OpenVettedFile(info.Env(), *s, id, Arg(info, 0), budget));
          }));
  return ops;
}

// exists(): false for a path that is not there, the refusal for a path behind the wall.
Napi::Function ExistsOperation(Napi::Env env, SharedPtr s, std::string id) {
  return Napi::Function::New(env, [s, id](const Napi::CallbackInfo& info) {
    Result<VettedObject> vetted = s->setup.wall->Vet(Arg(info, 0), Arg(info, 0), WallWant::kAny);
    if (!vetted.ok() && vetted.status().code() != kPathNotFound) {
      Refuse(info.Env(), *s, id, vetted.status());
    }
    return Napi::Boolean::New(info.Env(), vetted.ok());
  });
}

Napi::Object LsOperations(Napi::Env env, SharedPtr s, std::string id) {
  Napi::Object ops = Napi::Object::New(env);
  ops.Set("exists", ExistsOperation(env, s, id));
  // Entries that lead behind the wall (a symlink out) fail here, and Pi's ls leaves them out.
  ops.Set("stat", Napi::Function::New(env, [s](const Napi::CallbackInfo& info) {
            Result<VettedObject> vetted =
                s->setup.wall->Vet(Arg(info, 0), Arg(info, 0), WallWant::kAny);
            if (!vetted.ok()) throw Napi::Error::New(info.Env(), vetted.status().message());
            const bool directory = vetted->directory();
            Napi::Object stat = Napi::Object::New(info.Env());
            stat.Set("isDirectory",
                     Napi::Function::New(info.Env(), [directory](const Napi::CallbackInfo& i) {
                       return Napi::Boolean::New(i.Env(), directory);
                     }));
            stat.Set("isFile",
                     Napi::Function::New(info.Env(), [directory](const Napi::CallbackInfo& i) {
                       return Napi::Boolean::New(i.Env(), !directory);
                     }));
            return stat;
          }));
  ops.Set("readdir", Napi::Function::New(env, [s, id](const Napi::CallbackInfo& info) {
            VettedObject dir = VetOrThrow(info.Env(), *s, id, Arg(info, 0), WallWant::kDirectory);
            Result<std::vector<std::string>> names = s->setup.wall->List(dir);
            if (!names.ok()) throw Napi::Error::New(info.Env(), names.status().message());
            Napi::Array out = Napi::Array::New(info.Env(), names->size());
            for (uint32_t i = 0; i < names->size(); ++i) out.Set(i, (*names)[i]);
            return out;
          }));
  return ops;
}

// One walk (rg or fd) run in the vetted directory on a worker thread; `finish` gets its outcome
// on the JS thread.
using WalkFinish = std::function<void(Napi::Env, const Result<process::ChildOutcome>&)>;

struct WalkJob {
  std::shared_ptr<VettedObject> start;
  std::string call_id;
  process::ChildSpec spec;
  WalkFinish finish;
  Result<process::ChildOutcome> outcome = Status::Error("child_cancelled", "not run");
  std::string protection = "none";  // what the walk jail reported
};

// pi-fusion-walk reports the protections that held in its first stderr line; it is taken off
// before the walker's own stderr is read.
constexpr std::string_view kProtectionLine = "pi-fusion walk: protection=";

void TakeProtection(WalkJob* job) {
  if (!job->outcome.ok()) return;
  std::string& err = job->outcome->stderr_bytes;
  if (err.compare(0, kProtectionLine.size(), kProtectionLine) != 0) return;
  const size_t end = err.find('\n');
  if (end == std::string::npos) return;
  job->protection = err.substr(kProtectionLine.size(), end - kProtectionLine.size());
  err.erase(0, end + 1);
}

void RunWalk(Napi::Env env, const Shared& s, Napi::Value signal, std::unique_ptr<WalkJob> job) {
  Result<process::CancelToken> cancel = process::CancelToken::Create();
  if (!cancel.ok()) throw Napi::Error::New(env, cancel.status().message());
  FollowAbortSignal(env, signal, *cancel);
  // Node's event loop stays open until the walk's result is delivered.
  ChildState& state = State(env);
  napi_util::JsDispatcher* dispatcher = state.dispatcher.get();
  dispatcher->Hold(env);
  WalkHook on_walk = s.setup.on_walk;
  std::shared_ptr<WalkJob> walk = std::move(job);
  state.threads.Start(*cancel, [walk, token = *cancel, dispatcher, on_walk]() mutable {
    walk->outcome = process::RunChild(walk->spec, token);
    TakeProtection(walk.get());
    // The posted closure becomes the job's only owner, so it ends on the JS thread (or here, with
    // the closure, when the environment is going away).
    dispatcher->Post([done = std::move(walk), dispatcher, on_walk](Napi::Env env) {
      dispatcher->Release(env);
      RunAsJsCallback([&] {
        if (on_walk) on_walk(done->call_id, done->protection);
        done->finish(env, done->outcome);
      });
    });
  });
}

// The places the walk jail covers with empty mounts: the protected names and pairs at the top of
// the project, and Pi's agent directory when it lies inside. Deeper ones are kept out by the
// walkers' exclusions and the per-line check, and no symlink is followed to reach them.
std::vector<std::string> JailMasks(const Shared& s) {
  std::vector<std::string> masks;
  for (const ProtectedRow& row : BuiltInProtectedRows()) masks.emplace_back(row.path);
  masks.emplace_back(".env");  // the env-file rule's plain name (IsEnvFileName)
  const std::string root = s.setup.wall->root() + "/";
  const std::string& agent = s.setup.agent_dir;
  if (agent.compare(0, root.size(), root) == 0) {
    const std::string inside = LexicalPath(agent.substr(root.size()));
    if (std::find(masks.begin(), masks.end(), inside) == masks.end()) masks.push_back(inside);
  }
  return masks;
}

// The walker's command line: through pi-fusion-walk when there is one. `args` ends with the
// walked file's /proc name for a walk of one file (`start` is then that file).
process::ChildSpec WalkSpec(const Shared& s, std::string executable, std::vector<std::string> args,
                            const VettedObject& start) {
  process::ChildSpec spec;
  if (!s.setup.walk_helper.empty()) {
    spec.argv = {s.setup.walk_helper, "--project", s.setup.wall->root()};
    if (start.directory()) {
      spec.argv.insert(spec.argv.end(), {"--start", start.relative()});
    } else {
      // The jail names the file by its place in the project; outside it, by the open descriptor.
      spec.argv.insert(spec.argv.end(),
                       {"--target", start.relative(), "--outside-target", args.back()});
      args.pop_back();
    }
    for (const std::string& mask : JailMasks(s))
      spec.argv.insert(spec.argv.end(), {"--mask", mask});
    spec.argv.push_back("--");
  }
  spec.argv.push_back(std::move(executable));
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  // The walk starts in the vetted directory itself, reached through our open descriptor. It gets
  // the child's environment, as Pi's own tools do (ripgrep runs with --no-config; what fd or git
  // ignore files add can only hide more).
  if (start.directory()) spec.cwd = start.ProcPath();
  for (char** entry = environ; *entry != nullptr; ++entry) spec.env.emplace_back(*entry);
  spec.limits.stdout_cap = kWalkOutputCap;
  spec.limits.stderr_cap = 64 * 1024;
  spec.limits.wall = kWalkTime;
  spec.limits.idle = kWalkTime;
  spec.limits.term_grace = std::chrono::milliseconds(500);
  return spec;
}

std::string ToolBinary(const Shared& s, const std::vector<std::string>& names) {
  const char* path = std::getenv("PATH");
  return FindExecutable(names, s.setup.agent_dir + "/bin", path ? path : "");
}

// Why a walk failed, or nullopt when its output can be used (a stop at the output cap is a use).
std::optional<std::string> WalkFailure(const Result<process::ChildOutcome>& outcome,
                                       const char* tool, bool exit_one_ok) {
  if (!outcome.ok())
    return std::string("Failed to run ") + tool + ": " + outcome.status().message();
  if (outcome->stop_reason == process::StopReason::kStdoutCap) return std::nullopt;
  if (outcome->stop_reason == process::StopReason::kCancelled) return "Operation aborted";
  if (!outcome->status.ok()) return outcome->status.message();
  const int code = outcome->exit_code.value_or(-1);
  if (code == 0 || (exit_one_ok && code == 1)) return std::nullopt;
  std::string err = outcome->stderr_bytes;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  return err.empty() ? std::string(tool) + " exited with code " + std::to_string(code) : err;
}

Napi::Function GlobOperation(Napi::Env env, SharedPtr s, std::string id) {
  return Napi::Function::New(env, [s, id](const Napi::CallbackInfo& info) -> Napi::Value {
    Napi::Env env = info.Env();
    const std::string pattern = Arg(info, 0);
    const std::string search_path = Arg(info, 1);
    int64_t limit = 1000;
    if (info.Length() > 2 && info[2].IsObject()) {
      Napi::Value l = info[2].As<Napi::Object>().Get("limit");
      if (l.IsNumber()) limit = std::max<int64_t>(1, l.As<Napi::Number>().Int64Value());
    }
    auto start =
        std::make_shared<VettedObject>(VetOrThrow(env, *s, id, search_path, WallWant::kDirectory));
    const std::string fd_bin = ToolBinary(*s, {"fd", "fdfind"});
    if (fd_bin.empty()) throw Napi::Error::New(env, "fd is not available");
    Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
    auto job = std::make_unique<WalkJob>();
    job->start = start;
    job->call_id = id;
    job->spec = WalkSpec(*s, fd_bin, FdArgs(pattern, start->real_path()), *start);
    job->finish = [s, start, search_path, limit, deferred](
                      Napi::Env env, const Result<process::ChildOutcome>& outcome) {
      if (std::optional<std::string> failure = WalkFailure(outcome, "fd", false)) {
        deferred.Reject(Napi::Error::New(env, *failure).Value());
        return;
      }
      Napi::Array results = Napi::Array::New(env);
      for (const std::string& line : FdLines(outcome->stdout_bytes)) {
        if (static_cast<int64_t>(results.Length()) >= limit) break;
        if (s->setup.wall->HiddenInWalk(*start, line)) continue;
        results.Set(results.Length(), search_path + "/" + line);
      }
      deferred.Resolve(results);
    };
    RunWalk(env, *s, info.Env().Undefined(), std::move(job));
    return deferred.Promise();
  });
}

Napi::Object FindOperations(Napi::Env env, SharedPtr s, std::string id) {
  Napi::Object ops = Napi::Object::New(env);
  ops.Set("exists", ExistsOperation(env, s, id));
  ops.Set("glob", GlobOperation(env, s, id));
  return ops;
}

// A copy of Pi's definition whose execute builds the definition again per call, with operations
// that know the call (for the journal) and go through the wall.
using OpsFactory = Napi::Object (*)(Napi::Env, SharedPtr, std::string);

Napi::Object CopyObject(Napi::Env env, Napi::Object source) {
  Napi::Object copy = Napi::Object::New(env);
  Napi::Array keys = source.GetPropertyNames();
  for (uint32_t i = 0; i < keys.Length(); ++i) copy.Set(keys.Get(i), source.Get(keys.Get(i)));
  return copy;
}

Napi::Object WalledDefinition(Napi::Env env, SharedPtr s, const char* factory, OpsFactory ops) {
  const std::string root = s->setup.wall->root();
  Napi::Object base =
      PiFunction(*s, factory).Call({Napi::String::New(env, root)}).As<Napi::Object>();
  Napi::Object definition = CopyObject(env, base);
  definition.Set("execute",
                 Napi::Function::New(env, [s, factory, ops, root](const Napi::CallbackInfo& info) {
                   Napi::Env env = info.Env();
                   Napi::Object options = Napi::Object::New(env);
                   options.Set("operations", ops(env, s, Arg(info, 0)));
                   Napi::Object inner = PiFunction(*s, factory)
                                            .Call({Napi::String::New(env, root), options})
                                            .As<Napi::Object>();
                   std::vector<napi_value> args;
                   for (size_t i = 0; i < info.Length(); ++i) args.push_back(info[i]);
                   return Method(inner, "execute").Call(inner, args);
                 }));
  return definition;
}

// ---- grep: ripgrep's lines, formatted as Pi's grep formats them ----

struct GrepParams {
  std::string id;
  std::string path;
  GrepRequest request;
  int64_t limit = kGrepDefaultLimit;
};

GrepParams ReadGrepParams(const Napi::CallbackInfo& info) {
  GrepParams p;
  p.id = Arg(info, 0);
  Napi::Object params = info.Length() > 1 && info[1].IsObject() ? info[1].As<Napi::Object>()
                                                                : Napi::Object::New(info.Env());
  p.request.pattern = StringField(params, "pattern").value_or("");
  p.path = StringField(params, "path").value_or("");
  if (p.path.empty()) p.path = ".";
  p.request.glob = StringField(params, "glob");
  if (p.request.glob && p.request.glob->empty()) p.request.glob.reset();
  p.request.ignore_case = params.Get("ignoreCase").ToBoolean().Value();
  p.request.literal = params.Get("literal").ToBoolean().Value();
  Napi::Value context = params.Get("context");
  if (context.IsNumber() && context.As<Napi::Number>().DoubleValue() > 0) {
    p.request.context = static_cast<int64_t>(
        std::floor(std::min(context.As<Napi::Number>().DoubleValue(), 9007199254740991.0)));
  }
  Napi::Value limit = params.Get("limit");
  if (limit.IsNumber()) {
    p.limit = std::max<int64_t>(
        1, static_cast<int64_t>(
               std::floor(std::min(limit.As<Napi::Number>().DoubleValue(), 9007199254740991.0))));
  }
  return p;
}

// Pi's truncation helpers as GrepOutput takes them. Pi's grep details carry the object
// truncateHead returned, so the last one is kept in `*head`.
PiTruncation PiGrepTruncation(const Shared& s, Napi::Env env, Napi::Object* head) {
  PiTruncation pi;
  Napi::Function truncate_line = PiFunction(s, "truncateLine");
  pi.line = [env, truncate_line](const std::string& text) {
    Napi::Object cut = truncate_line.Call({Napi::String::New(env, text)}).As<Napi::Object>();
    const bool truncated = cut.Get("wasTruncated").ToBoolean().Value();
    return CutLine{cut.Get("text").ToString().Utf8Value(), truncated};
  };
  pi.head = [&s, env, head](const std::string& raw) {
    Napi::Object max_lines = Napi::Object::New(env);
    max_lines.Set("maxLines", Napi::Number::New(env, 9007199254740991.0));
    *head = PiFunction(s, "truncateHead")
                .Call({Napi::String::New(env, raw), max_lines})
                .As<Napi::Object>();
    return CutHead{head->Get("content").ToString().Utf8Value(),
                   head->Get("truncated").ToBoolean().Value()};
  };
  pi.format_size = [&s, env](int64_t bytes) {
    return PiFunction(s, "formatSize")
        .Call({Napi::Number::New(env, static_cast<double>(bytes))})
        .ToString()
        .Utf8Value();
  };
  pi.max_bytes = s.pi_tools->Value().Get("DEFAULT_MAX_BYTES").ToNumber().Int64Value();
  return pi;
}

// The tool result of Pi's grep: the text, and details only when there is something to say.
Napi::Object GrepToolResult(Napi::Env env, const GrepOutputResult& r, Napi::Object head) {
  if (!r.matched) return napi_util::TextResult(env, r.text, env.Undefined());
  head.Set("totalLines", Napi::Number::New(env, static_cast<double>(r.total_lines)));
  head.Set("totalBytes", Napi::Number::New(env, static_cast<double>(r.total_bytes)));
  Napi::Object details = Napi::Object::New(env);
  if (r.match_limit_reached) {
    details.Set("matchLimitReached",
                Napi::Number::New(env, static_cast<double>(*r.match_limit_reached)));
  }
  if (r.head_truncated) details.Set("truncation", head);
  if (r.lines_truncated) details.Set("linesTruncated", true);
  return napi_util::TextResult(
      env, r.text,
      details.GetPropertyNames().Length() > 0 ? details.As<Napi::Value>() : env.Undefined());
}

// rg's output through the wall's per-line filter into Pi's grep format.
Napi::Object FormatGrep(Napi::Env env, const Shared& s, const GrepParams& p,
                        const std::string& single, const VettedObject& start,
                        const process::ChildOutcome& outcome) {
  Napi::Object head;
  GrepOutput output(PiGrepTruncation(s, env, &head),
                    GrepOutputOptions{p.limit, p.request.context, single});
  GrepFilter filter(*s.setup.wall, start);
  for (const RipgrepLine& line : ParseRipgrepJson(outcome.stdout_bytes)) {
    if (filter.Hidden(line.path, line.text)) continue;
    if (!output.Add(line)) break;
  }
  const bool capped = outcome.stop_reason == process::StopReason::kStdoutCap;
  return GrepToolResult(env, output.Finish(capped), head);
}

std::string BaseName(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

Napi::Value GrepExecute(const Napi::CallbackInfo& info, SharedPtr s) {
  Napi::Env env = info.Env();
  Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
  try {
    auto params = std::make_shared<GrepParams>(ReadGrepParams(info));
    std::optional<std::string> resolved =
        ResolveLikePi(params->path, s->setup.wall->root(), s->setup.home);
    if (!resolved) {
      Refuse(env, *s, params->id,
             Status::Error(kPathOutsideProject,
                           "Refused: \"" + params->path + "\" is not a plain file path."));
    }
    auto start =
        std::make_shared<VettedObject>(VetOrThrow(env, *s, params->id, *resolved, WallWant::kAny));
    const std::string rg = ToolBinary(*s, {"rg"});
    if (rg.empty()) throw Napi::Error::New(env, "ripgrep (rg) is not available");
    auto job = std::make_unique<WalkJob>();
    job->start = start;
    job->call_id = params->id;
    job->spec = WalkSpec(
        *s, rg, RipgrepArgs(params->request, start->directory() ? "." : start->ProcPath()), *start);
    const std::string single = start->directory() ? "" : BaseName(*resolved);
    job->finish = [s, start, params, single, deferred](
                      Napi::Env env, const Result<process::ChildOutcome>& outcome) {
      if (std::optional<std::string> failure = WalkFailure(outcome, "ripgrep", true)) {
        deferred.Reject(Napi::Error::New(env, *failure).Value());
        return;
      }
      try {
        deferred.Resolve(FormatGrep(env, *s, *params, single, *start, *outcome));
      } catch (const Napi::Error& e) {
        deferred.Reject(e.Value());
      }
    };
    RunWalk(env, *s, info.Length() > 2 ? info[2] : env.Undefined(), std::move(job));
  } catch (const Napi::Error& e) {
    deferred.Reject(e.Value());
  }
  return deferred.Promise();
}

}  // namespace

void RegisterFileTools(Napi::Env env, Napi::Object pi, Napi::Object pi_tools,
                       FileToolsSetup setup) {
  auto s = std::make_shared<Shared>();
  s->setup = std::move(setup);
  // Kept in the environment's state, released with it: the tools may run until the process ends.
  ChildState& state = State(env);
  state.pi_tools = Napi::Persistent(pi_tools);
  s->pi_tools = &state.pi_tools;
  for (const char* name :
       {"createReadToolDefinition", "createLsToolDefinition", "createFindToolDefinition",
        "createGrepToolDefinition", "truncateHead", "truncateLine", "formatSize"}) {
    PiFunction(*s, name);  // all present, or the child fails to load
  }
  Napi::Function register_tool = Method(pi, "registerTool");
  for (const std::string& tool : s->setup.tools) {
    Napi::Object definition;
    if (tool == "read") {
      definition = WalledDefinition(env, s, "createReadToolDefinition", ReadOperations);
    } else if (tool == "ls") {
      definition = WalledDefinition(env, s, "createLsToolDefinition", LsOperations);
    } else if (tool == "find") {
      definition = WalledDefinition(env, s, "createFindToolDefinition", FindOperations);
    } else if (tool == "grep") {
      Napi::Object base = PiFunction(*s, "createGrepToolDefinition")
                              .Call({Napi::String::New(env, s->setup.wall->root())})
                              .As<Napi::Object>();
      definition = CopyObject(env, base);
      definition.Set("execute", Napi::Function::New(env, [s](const Napi::CallbackInfo& info) {
                       return GrepExecute(info, s);
                     }));
    } else {
      continue;
    }
    register_tool.Call(pi, {definition});
  }
}

}  // namespace pi_fusion::child
