#include "child/core/child_config.h"

#include "child/core/file_wall.h"
#include "core/env_vars.h"
#include "core/error_codes.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace pi_fusion::child {
namespace {

Status Invalid(const std::string& message) {
  return Status::Error(kConfigInvalid, "pi-fusion child extension: " + message);
}

bool Absolute(const std::optional<std::string>& path) {
  return path && !path->empty() && path->front() == '/';
}

Status ReadTools(const EnvLookup& lookup, ChildConfig* config) {
  const std::optional<std::string> tools = lookup(env_vars::kTools);
  if (!tools || tools->empty()) return Status::Ok();
  size_t start = 0;
  while (start <= tools->size()) {
    size_t end = tools->find(',', start);
    if (end == std::string::npos) end = tools->size();
    std::string name = tools->substr(start, end - start);
    if (name.empty()) {
      return Invalid(std::string(env_vars::kTools) + " has an empty tool name: '" + *tools + "'");
    }
    config->tools.push_back(std::move(name));
    start = end + 1;
  }
  const std::optional<std::string> journal = lookup(env_vars::kToolJournal);
  const std::optional<std::string> seal = lookup(env_vars::kToolSeal);
  if (!Absolute(journal) || !Absolute(seal)) {
    return Invalid(std::string("a child with tools needs absolute ") + env_vars::kToolJournal +
                   " and " + env_vars::kToolSeal + " paths");
  }
  config->tool_journal_path = *journal;
  config->tool_seal_path = *seal;
  return Status::Ok();
}

// A descriptor number above stdio, in plain decimal ("3"); the parent names the one it passed.
Result<int> SignalDescriptor(const std::string& text) {
  int fd = 0;
  const bool digits = text.size() <= 4 && std::all_of(text.begin(), text.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
  if (digits) fd = std::stoi(text);
  if (!digits || fd < 3) {
    return Invalid(std::string(env_vars::kRequestSignalFd) +
                   " must be a descriptor number of 3 or more, not '" + text + "'");
  }
  return fd;
}

// Plain decimal dollars ("0.012500000"), as the parent writes them: nothing a locale, a sign or
// an exponent could make mean something else.
Result<double> Allowance(const std::string& text) {
  const bool plain = !text.empty() && text.size() <= 32 &&
                     std::count(text.begin(), text.end(), '.') <= 1 &&
                     std::all_of(text.begin(), text.end(),
                                 [](char c) { return (c >= '0' && c <= '9') || c == '.'; }) &&
                     text != ".";
  if (!plain) {
    return Invalid(std::string(env_vars::kCostAllowance) +
                   " must be a decimal number of US dollars, not '" + text + "'");
  }
  double usd = 0;
  std::from_chars(text.data(), text.data() + text.size(), usd);  // locale-independent
  return usd;
}

}  // namespace

Result<ChildConfig> ReadChildConfig(const EnvLookup& lookup) {
  ChildConfig config;
  const std::optional<std::string> role = lookup(env_vars::kChildRole);
  if (!role) {
    return Invalid(std::string(env_vars::kChildRole) +
                   " is not set (the library runs only as a Fusion child)");
  }
  // A repair child is an evaluator to itself (ChildRoleOf): the parent never sends "repair".
  const std::optional<Role> parsed = ParseRole(*role);
  if (!parsed || *parsed == Role::kRepair) {
    return Invalid(std::string(env_vars::kChildRole) +
                   " must be candidate, evaluator or merger, not '" + *role + "'");
  }
  config.role = *parsed;
  if (config.role == Role::kCandidate) {
    const std::optional<std::string> path = lookup(env_vars::kOversizePath);
    if (!path || path->empty() || path->front() != '/') {
      return Invalid(std::string("a candidate needs an absolute ") + env_vars::kOversizePath);
    }
    config.oversize_path = *path;
  }
  if (Status s = ReadTools(lookup, &config); !s.ok()) return s;
  if (config.role == Role::kEvaluator && !config.tools.empty()) {
    config.tool_budget = protocol::kEvaluatorToolBudget;
    config.max_tool_calls = protocol::kEvaluatorMaxToolCalls;
  }
  if (std::optional<std::string> signal = lookup(env_vars::kRequestSignalFd);
      signal && !signal->empty()) {
    Result<int> fd = SignalDescriptor(*signal);
    if (!fd.ok()) return fd.status();
    config.request_signal_fd = *fd;
  }
  if (std::optional<std::string> allowance = lookup(env_vars::kCostAllowance);
      allowance && !allowance->empty()) {
    Result<double> usd = Allowance(*allowance);
    if (!usd.ok()) return usd.status();
    config.cost_allowance_usd = *usd;
  }
  std::optional<std::string> retention = lookup("PI_CACHE_RETENTION");
  if (retention && !retention->empty()) config.cache_retention = std::move(retention);
  config.pi_agent_dir = PiAgentDir(lookup("PI_CODING_AGENT_DIR"), lookup("HOME").value_or(""));
  config.wall_places.agent_dir = config.pi_agent_dir;
  config.wall_places.home = lookup("HOME").value_or("");
  return config;
}

EnvLookup ProcessEnvLookup() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

}  // namespace pi_fusion::child
