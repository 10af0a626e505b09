#include "process/child_command.h"

#include "core/env_vars.h"
#include "core/error_codes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <unordered_set>

namespace pi_fusion::process {
namespace {

// Linux MAX_ARG_STRLEN (32 pages): one argument longer than this makes execve fail with E2BIG.
constexpr size_t kMaxArgBytes = 128 * 1024 - 1;

constexpr std::array<std::string_view, 7> kThinkingLevels = {"off",  "minimal", "low", "medium",
                                                             "high", "xhigh",   "max"};

constexpr std::array<std::string_view, 4> kStrippedPrefixes = {"PI_SESSION_", "PI_API_", "OPENAI_",
                                                               "OPENROUTER_"};
constexpr std::array<std::string_view, 13> kStrippedNames = {
    "PI_PROVIDER",
    "PI_MODEL",
    "PI_REASONING_LEVEL",
    "PI_AUTH_FILE",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_OAUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    // Workload identity federation: with these Pi obtains a metered API token by itself.
    "ANTHROPIC_FEDERATION_RULE_ID",
    "ANTHROPIC_ORGANIZATION_ID",
    "ANTHROPIC_IDENTITY_TOKEN_FILE",
    "ANTHROPIC_SERVICE_ACCOUNT_ID",
    "ANTHROPIC_WORKSPACE_ID",
};
// AZURE_OPENAI_* goes entirely; other AZURE_* only when it names a key or an endpoint.
constexpr std::array<std::string_view, 4> kAzureSuffixes = {"API_KEY", "BASE_URL", "API_BASE",
                                                            "ENDPOINT"};

Status Invalid(const std::string& what) {
  return Status::Error(kChildSpawnFailed, "invalid child command: " + what);
}

Status CheckField(std::string_view name, const std::string& value) {
  if (value.empty()) return Invalid(std::string(name) + " is empty");
  return Status::Ok();
}

Status CheckToolNames(const std::vector<std::string>& tools) {
  if (tools.empty()) return Invalid("exclude_tools is empty; children need the denylist");
  for (const auto& tool : tools) {
    if (tool.empty() || tool.find(',') != std::string::npos) {
      return Invalid("bad tool name in exclude_tools: '" + tool + "'");
    }
  }
  return Status::Ok();
}

Status CheckSpec(const ChildCommandSpec& spec) {
  if (spec.command_override.empty()) {
    if (Status s = CheckField("node_path", spec.node_path); !s.ok()) return s;
    if (Status s = CheckField("pi_cli_path", spec.pi_cli_path); !s.ok()) return s;
  }
  if (spec.extensions.empty()) return Invalid("no child extension");
  for (const auto& ext : spec.extensions) {
    if (Status s = CheckField("extension path", ext); !s.ok()) return s;
  }
  if (Status s = CheckField("provider", spec.provider); !s.ok()) return s;
  if (Status s = CheckField("model", spec.model); !s.ok()) return s;
  if (Status s = CheckField("system_prompt", spec.system_prompt); !s.ok()) return s;
  if (std::find(kThinkingLevels.begin(), kThinkingLevels.end(), spec.thinking_level) ==
      kThinkingLevels.end()) {
    return Invalid("unknown thinking level '" + spec.thinking_level + "'");
  }
  if (spec.capability != ChildCapability::kReason) return CheckToolNames(spec.exclude_tools);
  return Status::Ok();
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ',';
    out += item;
  }
  return out;
}

void AppendToolFlags(const ChildCommandSpec& spec, std::vector<std::string>* argv) {
  if (spec.capability == ChildCapability::kReason) {
    argv->push_back("--no-tools");
    return;
  }
  argv->insert(argv->end(),
               {"--no-builtin-tools", "--tools", Join(CapabilityTools(spec.capability)),
                "--exclude-tools", Join(spec.exclude_tools)});
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string_view ChildCapabilityName(ChildCapability capability) {
  switch (capability) {
    case ChildCapability::kReason:
      return "reason";
    case ChildCapability::kInspect:
      return "inspect";
    case ChildCapability::kResearch:
      return "research";
  }
  return "";
}

std::optional<ChildCapability> ParseChildCapability(std::string_view name) {
  for (ChildCapability capability : kAllChildCapabilities) {
    if (ChildCapabilityName(capability) == name) return capability;
  }
  return std::nullopt;
}

std::vector<std::string> CapabilityTools(ChildCapability capability) {
  if (capability == ChildCapability::kReason) return {};
  std::vector<std::string> tools = {"read", "grep", "find", "ls"};
  if (capability == ChildCapability::kResearch) tools.push_back("fusion_web_fetch");
  return tools;
}

Result<std::vector<std::string>> BuildChildArgv(const ChildCommandSpec& spec) {
  if (Status s = CheckSpec(spec); !s.ok()) return s;
  std::vector<std::string> argv = spec.command_override;
  if (argv.empty()) argv = {spec.node_path, spec.pi_cli_path};
  argv.insert(argv.end(), {"--mode", "text", "--no-session"});
  AppendToolFlags(spec, &argv);
  argv.insert(argv.end(), {"--no-extensions", "--no-skills", "--no-prompt-templates", "--no-themes",
                           "--no-context-files"});
  for (const auto& ext : spec.extensions) argv.insert(argv.end(), {"--extension", ext});
  argv.insert(argv.end(), {"--provider", spec.provider, "--model", spec.model, "--thinking",
                           spec.thinking_level, "--system-prompt", spec.system_prompt});
  for (const auto& arg : argv) {
    if (arg.find('\0') != std::string::npos) return Invalid("NUL byte in an argument");
    if (arg.size() > kMaxArgBytes) {
      return Invalid("an argument of " + std::to_string(arg.size()) +
                     " bytes exceeds the 128 KiB per-argument limit");
    }
  }
  return argv;
}

bool IsPerChildVariable(std::string_view name) { return env_vars::IsPerChild(name); }

bool IsStrippedChildVariable(std::string_view name) {
  if (StartsWith(name, env_vars::kPrefix)) return false;
  for (std::string_view prefix : kStrippedPrefixes) {
    if (StartsWith(name, prefix)) return true;
  }
  for (std::string_view exact : kStrippedNames) {
    if (name == exact) return true;
  }
  if (StartsWith(name, "AZURE_OPENAI_")) return true;
  if (StartsWith(name, "AZURE_")) {
    for (std::string_view suffix : kAzureSuffixes) {
      if (EndsWith(name, suffix)) return true;
    }
  }
  return false;
}

std::vector<std::string> BuildChildEnvironment(const std::vector<std::string>& parent_env,
                                               std::string_view provider_api) {
  const bool anthropic = provider_api == "anthropic-messages";
  std::vector<std::string> env;
  std::unordered_set<std::string_view> seen;
  bool has_retention = false;
  for (const auto& entry : parent_env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string_view name(entry.data(), eq);
    if (!seen.insert(name).second) continue;  // getenv() sees only the first
    if (IsStrippedChildVariable(name) || IsPerChildVariable(name) ||
        name == "PI_SKIP_VERSION_CHECK") {
      continue;
    }
    if (name == "PI_CACHE_RETENTION") {
      const bool empty = eq + 1 == entry.size();
      if (anthropic && empty) continue;  // empty counts as unset; defaulted below
      has_retention = true;
    }
    env.push_back(entry);
  }
  env.push_back("PI_SKIP_VERSION_CHECK=1");
  if (anthropic && !has_retention) {
    env.push_back("PI_CACHE_RETENTION=long");
  }
  return env;
}

std::vector<std::string> BuildStageChildEnvironment(const std::vector<std::string>& parent_env,
                                                    const ChildVariables& vars) {
  std::vector<std::string> out = BuildChildEnvironment(parent_env, vars.provider_api);
  auto set = [&out](std::string_view name, const std::string& value) {
    out.push_back(std::string(name) + "=" + value);
  };
  set(env_vars::kChildRole, std::string(RoleName(vars.role)));
  // The child starts loading this API's module while it waits for its input (warm children).
  if (!vars.provider_api.empty()) set(env_vars::kProviderApi, vars.provider_api);
  if (!vars.oversize_path.empty()) set(env_vars::kOversizePath, vars.oversize_path);
  if (vars.source_policy) set(env_vars::kSourcePolicy, *vars.source_policy);
  if (vars.source_policy_sha256) set(env_vars::kSourcePolicySha256, *vars.source_policy_sha256);
  if (!vars.tools.empty()) {
    set(env_vars::kTools, Join(vars.tools));
    set(env_vars::kToolJournal, vars.tool_journal);
    set(env_vars::kToolSeal, vars.tool_seal);
  }
  if (vars.request_signal_fd)
    set(env_vars::kRequestSignalFd, std::to_string(*vars.request_signal_fd));
  if (!vars.session_dir.empty()) set(env_vars::kSessionDir, vars.session_dir);
  if (vars.cost_allowance_usd)
    set(env_vars::kCostAllowance, CostAllowanceText(*vars.cost_allowance_usd));
  return out;
}

std::string CostAllowanceText(double usd) {
  constexpr int64_t kNanos = 1'000'000'000;
  // Integer arithmetic after the one rounding down: the text is exactly the nanodollars kept.
  // Capped far above any cap a person sets, so the nanodollars fit in 64 bits.
  const double capped = std::min(usd, 1e9);
  const int64_t nanos = capped > 0 ? static_cast<int64_t>(std::floor(capped * kNanos)) : 0;
  std::string fraction = std::to_string(nanos % kNanos);
  fraction.insert(0, 9 - fraction.size(), '0');
  return std::to_string(nanos / kNanos) + "." + fraction;
}

}  // namespace pi_fusion::process
