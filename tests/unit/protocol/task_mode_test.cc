// A pooled child's task mode: the task descriptor, the record reader, the task's environment
// (nothing of an earlier task or of the process's start is in force) and the end line's exit code.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <string>

#include "child/core/child_config.h"
#include "child/core/task_mode.h"
#include "core/env_vars.h"
#include "core/pooled_task.h"

namespace pi_fusion::child {
namespace {

const std::string kId1 = "0123456789abcdef0123456789abcdef";
const std::string kId2 = "fedcba9876543210fedcba9876543210";

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// A pipe whose ends close with the test.
struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() { REQUIRE(::pipe(fds) == 0); }
  ~Pipe() {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  void Write(const std::string& bytes) {
    REQUIRE(::write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  }
  void CloseWriter() {
    ::close(fds[1]);
    fds[1] = -1;
  }
};

TEST_CASE("TaskDescriptor: decimal 3 to 1024 only") {
  CHECK(*TaskDescriptor("3") == 3);
  CHECK(*TaskDescriptor("1024") == 1024);
  for (const char* bad : {"", "2", "0", "1025", "03x", "-3", " 3", "3 ", "99999", "+4"}) {
    INFO(bad);
    Result<int> fd = TaskDescriptor(bad);
    REQUIRE_FALSE(fd.ok());
    CHECK(fd.status().code() == "config_invalid");
  }
}

TEST_CASE("TaskEnvLookup: per-task variables come from the record only") {
  // The process environment a pooled child could have: per-child names of no task of it (as a
  // leftover or a mistake), and the per-run ones it really has.
  const EnvLookup process = Env({{env_vars::kCostAllowance, "0.01"},
                                 {env_vars::kToolJournal, "/old/journal.jsonl"},
                                 {env_vars::kChildRole, "merger"},
                                 {env_vars::kRequestSignalFd, "7"},
                                 {env_vars::kTaskFd, "3"},
                                 {"HOME", "/home/u"},
                                 {"PI_CACHE_RETENTION", "long"}});
  pooled_task::Task task{
      kId1,
      {{env_vars::kChildRole, "candidate"}, {env_vars::kOversizePath, "/run/c1.oversized.md"}}};
  const EnvLookup lookup = TaskEnvLookup(task, process);
  CHECK(lookup(env_vars::kChildRole) == "candidate");
  CHECK(lookup(env_vars::kOversizePath) == "/run/c1.oversized.md");
  // Absent from the record: unset, whatever the process has.
  CHECK_FALSE(lookup(env_vars::kCostAllowance).has_value());
  CHECK_FALSE(lookup(env_vars::kToolJournal).has_value());
  CHECK_FALSE(lookup(env_vars::kRequestSignalFd).has_value());
  // Everything else: the process's.
  CHECK(lookup("HOME") == "/home/u");
  CHECK(lookup("PI_CACHE_RETENTION") == "long");
  CHECK(lookup(env_vars::kTaskFd) == "3");

  Result<ChildConfig> config = ReadChildConfig(lookup);
  REQUIRE(config.ok());
  CHECK(config->role == Role::kCandidate);
  CHECK_FALSE(config->cost_allowance_usd.has_value());
  CHECK(config->tools.empty());
  CHECK(config->request_signal_fd == -1);
  CHECK(config->cache_retention == "long");
  CHECK(config->pi_agent_dir == "/home/u/.pi/agent");
}

TEST_CASE("TaskEnvLookup: a later task sees nothing of an earlier one") {
  const EnvLookup process = Env({{"HOME", "/home/u"}});
  pooled_task::Task first{kId1,
                          {{env_vars::kChildRole, "candidate"},
                           {env_vars::kOversizePath, "/run/a.md"},
                           {env_vars::kCostAllowance, "0.5"},
                           {env_vars::kTools, "read,grep"},
                           {env_vars::kToolJournal, "/run/a.journal.jsonl"},
                           {env_vars::kToolSeal, "/run/a.seal.json"}}};
  pooled_task::Task second{
      kId2, {{env_vars::kChildRole, "candidate"}, {env_vars::kOversizePath, "/run/b.md"}}};
  Result<ChildConfig> a = ReadChildConfig(TaskEnvLookup(first, process));
  REQUIRE(a.ok());
  CHECK(a->cost_allowance_usd == 0.5);
  CHECK(a->tools.size() == 2);
  Result<ChildConfig> b = ReadChildConfig(TaskEnvLookup(second, process));
  REQUIRE(b.ok());
  CHECK(b->oversize_path == "/run/b.md");
  CHECK_FALSE(b->cost_allowance_usd.has_value());
  CHECK(b->tools.empty());
  CHECK(b->tool_journal_path.empty());
}

TEST_CASE("TaskExitCode: Pi's text-mode rule") {
  CHECK(TaskExitCode(false, "stop") == 0);
  CHECK(TaskExitCode(false, std::nullopt) == 0);  // the last message is no assistant message
  CHECK(TaskExitCode(false, "toolUse") == 0);
  CHECK(TaskExitCode(false, "error") == 1);
  CHECK(TaskExitCode(false, "aborted") == 1);
  CHECK(TaskExitCode(false, "length") == 1);
  CHECK(TaskExitCode(true, "stop") == 1);  // a runtime guard, a refusal
  CHECK(TaskExitCode(true, std::nullopt) == 1);
}

TEST_CASE("TaskRecordReader: one line per call, the rest kept for the next task") {
  Pipe pipe;
  TaskRecordReader reader(pipe.fds[0]);
  const std::string one = pooled_task::EncodeRecord({kId1, {{env_vars::kChildRole, "merger"}}});
  const std::string two = pooled_task::EncodeRecord({kId2, {}});
  pipe.Write(one + two.substr(0, 10));
  Result<std::string> first = reader.ReadLine(1000);
  REQUIRE(first.ok());
  CHECK(*first + "\n" == one);
  REQUIRE(pooled_task::ParseRecord(*first).ok());
  pipe.Write(two.substr(10));
  Result<std::string> second = reader.ReadLine(1000);
  REQUIRE(second.ok());
  CHECK(*second + "\n" == two);
  CHECK(pooled_task::ParseRecord(*second)->task_id == kId2);
}

TEST_CASE("TaskRecordReader: no record in time, a closed pipe or an endless line fail") {
  {
    Pipe pipe;
    TaskRecordReader reader(pipe.fds[0]);
    pipe.Write("{\"partial\":");
    Result<std::string> line = reader.ReadLine(50);
    REQUIRE_FALSE(line.ok());
    CHECK(line.status().code() == "config_invalid");
    CHECK(line.status().message().find("in time") != std::string::npos);
  }
  {
    Pipe pipe;
    TaskRecordReader reader(pipe.fds[0]);
    pipe.Write("{}");
    pipe.CloseWriter();
    Result<std::string> line = reader.ReadLine(1000);
    REQUIRE_FALSE(line.ok());
    CHECK(line.status().message().find("closed") != std::string::npos);
  }
  {
    Pipe pipe;
    ::fcntl(pipe.fds[1], F_SETFL, O_NONBLOCK);
    TaskRecordReader reader(pipe.fds[0]);
    const std::string chunk(64 * 1024, 'x');
    // Fill the pipe, let the reader drain it (each call times out without a newline), repeat.
    bool failed = false;
    size_t written = 0;
    while (written < pooled_task::kMaxRecordBytes + chunk.size()) {
      const ssize_t n = ::write(pipe.fds[1], chunk.data(), chunk.size());
      if (n > 0) {
        written += static_cast<size_t>(n);
        continue;
      }
      Result<std::string> line = reader.ReadLine(20);  // reads some, finds no newline
      if (!line.ok() && line.status().message().find("limit") != std::string::npos) {
        failed = true;
        break;
      }
    }
    if (!failed) {
      Result<std::string> line = reader.ReadLine(1000);
      REQUIRE_FALSE(line.ok());
      CHECK(line.status().message().find("limit") != std::string::npos);
    }
  }
}

}  // namespace
}  // namespace pi_fusion::child
