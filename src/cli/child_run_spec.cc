#include "cli/child_run_spec.h"

#include <chrono>
#include <optional>
#include <string_view>
#include <utility>

#include "core/env_vars.h"
#include "core/error_codes.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::cli {
namespace {

// The value of the first `name` entry, as getenv() reads it; nullopt when there is none.
std::optional<std::string> FirstValue(const std::vector<std::string>& environment,
                                      std::string_view name) {
  for (const std::string& entry : environment) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

}  // namespace

Result<process::ChildCapability> ParseCapability(const std::string& name) {
  if (std::optional<process::ChildCapability> c = process::ParseChildCapability(name)) return *c;
  return Status::Error(kInvalidArguments, "unknown capability " + name);
}

AuditPaths AuditPathsIn(const std::string& dir) {
  return {dir + "/tool-calls.jsonl", dir + "/seal.json"};
}

std::vector<std::string> ChildRunEnvironment(const ChildRunArgs& args,
                                             const std::vector<std::string>& parent_env,
                                             const std::string& oversize, const AuditPaths& audit) {
  process::ChildVariables vars;
  vars.role = ParseRole(args.role).value_or(Role::kCandidate);  // checked by the CLI
  vars.provider_api = args.api;
  vars.oversize_path = oversize;
  vars.source_policy = FirstValue(parent_env, env_vars::kSourcePolicy);
  vars.source_policy_sha256 = FirstValue(parent_env, env_vars::kSourcePolicySha256);
  if (Result<process::ChildCapability> capability = ParseCapability(args.capability);
      capability.ok()) {
    vars.tools = process::CapabilityTools(*capability);
  }
  vars.tool_journal = audit.journal;
  vars.tool_seal = audit.seal;
  std::vector<std::string> out = process::BuildStageChildEnvironment(parent_env, vars);
  // A run's children inherit the host's PI_FUSION_CHILD_ADDON; this one gets --child-addon.
  const std::string addon = std::string(env_vars::kChildAddon) + "=";
  std::erase_if(out, [&](const std::string& entry) { return entry.rfind(addon, 0) == 0; });
  out.push_back(addon + args.child_addon);
  return out;
}

Result<process::ChildSpec> BuildChildRunSpec(const ChildRunArgs& args,
                                             const std::vector<std::string>& parent_env,
                                             const std::string& prompt, const std::string& dir,
                                             const std::string& oversize) {
  Result<process::ChildCapability> capability = ParseCapability(args.capability);
  if (!capability.ok()) return capability.status();
  process::ChildCommandSpec command;
  command.node_path = args.node;
  command.pi_cli_path = args.pi_cli;
  command.capability = *capability;
  command.exclude_tools = workflow::ChildDeniedTools();
  command.extensions = args.extensions;
  command.extensions.push_back(args.child_extension);
  command.provider = args.provider;
  command.model = args.model;
  command.thinking_level = args.thinking;
  command.system_prompt = args.system_prompt;
  Result<std::vector<std::string>> argv = process::BuildChildArgv(command);
  if (!argv.ok()) return argv.status();
  process::ChildSpec spec;
  spec.argv = std::move(argv).value();
  spec.env = ChildRunEnvironment(args, parent_env, oversize, AuditPathsIn(dir));
  spec.cwd = args.cwd;
  spec.stdin_data = prompt;
  spec.limits.wall = std::chrono::milliseconds(args.wall_ms);
  spec.limits.idle = std::chrono::milliseconds(args.idle_ms);
  return spec;
}

}  // namespace pi_fusion::cli
