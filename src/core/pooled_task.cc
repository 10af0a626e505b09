#include "core/pooled_task.h"

#include <nlohmann/json.hpp>

#include "core/closed_object.h"
#include "core/env_vars.h"
#include "core/error_codes.h"
#include "core/json_text.h"
#include "pi_fusion/canonical_json.h"

namespace pi_fusion::pooled_task {
namespace {

bool IsTaskId(std::string_view id) {
  if (id.size() != 32) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Status Invalid(const std::string& what) {
  return Status::Error(kConfigInvalid, "pi-fusion child: invalid task record: " + what);
}

std::optional<nlohmann::json> ParseAfter(std::string_view line, std::string_view prefix) {
  if (line.substr(0, prefix.size()) != prefix) return std::nullopt;
  Result<nlohmann::json> body = ParseHostJson(line.substr(prefix.size()), kConfigInvalid);
  if (!body.ok() || !body->is_object()) return std::nullopt;
  return std::move(body).value();
}

}  // namespace

bool IsTaskVariable(std::string_view name) {
  return env_vars::IsPerChild(name) && name != env_vars::kRequestSignalFd &&
         name != env_vars::kTaskFd;
}

std::string EncodeRecord(const Task& task) {
  nlohmann::json vars = nlohmann::json::object();
  for (const auto& [name, value] : task.vars) vars[name] = value;
  return CanonicalJson(
             {{"schema_version", kSchemaVersion}, {"task_id", task.task_id}, {"vars", vars}}) +
         "\n";
}

Result<Task> ParseRecord(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (line.size() >= kMaxRecordBytes) return Invalid("longer than its limit");
  Result<nlohmann::json> json = ParseHostJson(line, kConfigInvalid);
  if (!json.ok()) return Invalid("not JSON");
  ClosedObjectReader reader(*json);
  const std::optional<std::string> schema = reader.String("schema_version");
  std::optional<std::string> id = reader.String("task_id");
  const nlohmann::json* vars = reader.Member("vars", JsonShape::kObject);
  if (reader.Finish() || !schema || !id || vars == nullptr) return Invalid("wrong shape");
  if (*schema != kSchemaVersion) return Invalid("unknown schema_version");
  if (!IsTaskId(*id)) return Invalid("task_id is not 32 lowercase hex digits");
  Task task;
  task.task_id = std::move(*id);
  for (const auto& [name, value] : vars->items()) {
    if (!IsTaskVariable(name)) return Invalid("'" + name + "' is not a per-task variable");
    if (!value.is_string()) return Invalid("the value of " + name + " is not a string");
    const std::string text = value.get<std::string>();
    if (text.find('\0') != std::string::npos) return Invalid("NUL byte in " + name);
    task.vars.emplace(name, text);
  }
  return task;
}

std::string StartLine(std::string_view task_id) {
  return std::string(kStartPrefix) + CanonicalJson({{"task_id", std::string(task_id)}}) + "\n";
}

std::string EndLine(std::string_view task_id, int exit_code) {
  return std::string(kEndPrefix) +
         CanonicalJson({{"exit_code", exit_code}, {"task_id", std::string(task_id)}}) + "\n";
}

std::optional<std::string> ParseStartLine(std::string_view line) {
  std::optional<nlohmann::json> body = ParseAfter(line, kStartPrefix);
  if (!body || body->size() != 1) return std::nullopt;
  const auto id = body->find("task_id");
  if (id == body->end() || !id->is_string() || !IsTaskId(id->get<std::string>())) {
    return std::nullopt;
  }
  return id->get<std::string>();
}

std::optional<End> ParseEndLine(std::string_view line) {
  std::optional<nlohmann::json> body = ParseAfter(line, kEndPrefix);
  if (!body || body->size() != 2) return std::nullopt;
  const auto id = body->find("task_id");
  const auto code = body->find("exit_code");
  if (id == body->end() || !id->is_string() || !IsTaskId(id->get<std::string>())) {
    return std::nullopt;
  }
  if (code == body->end() || !code->is_number_integer()) return std::nullopt;
  const int64_t value = code->get<int64_t>();
  if (value < 0 || value > 255) return std::nullopt;
  return End{id->get<std::string>(), static_cast<int>(value)};
}

}  // namespace pi_fusion::pooled_task
