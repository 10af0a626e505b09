// The pooled child's task record and its start and end lines: what the parent writes is what the
// child reads, and nothing else is taken.
#include <catch2/catch.hpp>

#include "core/env_vars.h"
#include "core/pooled_task.h"

namespace pi_fusion::pooled_task {
namespace {

const std::string kId = "0123456789abcdef0123456789abcdef";

TEST_CASE("PooledTask: a record round-trips its per-child variables") {
  Task task{kId, {{"PI_FUSION_CHILD_ROLE", "candidate"}, {"PI_FUSION_OVERSIZE_PATH", "/r/x.md"}}};
  const std::string line = EncodeRecord(task);
  CHECK(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1);
  Result<Task> back = ParseRecord(line);
  REQUIRE(back.ok());
  CHECK(back->task_id == kId);
  CHECK(back->vars == task.vars);
}

TEST_CASE("PooledTask: a record names only per-task variables, in exactly its shape") {
  auto with = [](const std::string& vars, const std::string& id = kId,
                 const std::string& schema = kSchemaVersion) {
    return ParseRecord(R"({"schema_version":")" + schema + R"(","task_id":")" + id +
                       R"(","vars":)" + vars + "}");
  };
  CHECK(with(R"({"PI_FUSION_CHILD_ROLE":"merger"})").ok());
  CHECK_FALSE(with(R"({"HOME":"/tmp"})").ok());  // not a per-child variable
  CHECK_FALSE(with(R"({"PI_FUSION_REQUEST_SIGNAL_FD":"3"})").ok());
  CHECK_FALSE(with(R"({"PI_FUSION_TASK_FD":"4"})").ok());
  CHECK_FALSE(with(R"({"PI_FUSION_CHILD_ROLE":1})").ok());
  CHECK_FALSE(with(R"({"PI_FUSION_CHILD_ROLE":"a\u0000b"})").ok());
  CHECK_FALSE(with("{}", "0123").ok());
  CHECK_FALSE(with("{}", kId, "pi-background-tasks.fusion-pooled-task.v2").ok());
  CHECK_FALSE(ParseRecord(R"({"schema_version":")" + std::string(kSchemaVersion) +
                          R"(","task_id":")" + kId + R"(","vars":{},"extra":1})")
                  .ok());
  CHECK_FALSE(ParseRecord("not json").ok());
  CHECK(ParseRecord("x").status().code() == "config_invalid");
}

TEST_CASE("PooledTask: start and end lines read back, anything else does not") {
  const std::string start = StartLine(kId);
  CHECK(start == "@pi-fusion-task-start {\"task_id\":\"" + kId + "\"}\n");
  CHECK(ParseStartLine(std::string_view(start).substr(0, start.size() - 1)) == kId);
  const std::string end = EndLine(kId, 1);
  std::optional<End> read = ParseEndLine(std::string_view(end).substr(0, end.size() - 1));
  REQUIRE(read);
  CHECK(read->task_id == kId);
  CHECK(read->exit_code == 1);
  CHECK_FALSE(ParseStartLine("@pi-fusion-task-start {\"task_id\":\"zz\"}"));
  CHECK_FALSE(ParseStartLine("@pi-fusion-frame {\"task_id\":\"" + kId + "\"}"));
  CHECK_FALSE(ParseEndLine("@pi-fusion-task-end {\"exit_code\":300,\"task_id\":\"" + kId + "\"}"));
  CHECK_FALSE(ParseEndLine("@pi-fusion-task-end {\"task_id\":\"" + kId + "\"}"));
}

TEST_CASE("PooledTask: the task pipe's variable is per child, so a host's value never passes") {
  CHECK(env_vars::IsPerChild(env_vars::kTaskFd));
  CHECK_FALSE(IsTaskVariable(env_vars::kTaskFd));
  CHECK(IsTaskVariable(env_vars::kCostAllowance));
}

}  // namespace
}  // namespace pi_fusion::pooled_task
