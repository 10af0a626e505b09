// The command line and environment of a Fusion child `pi` process (spec/CONTRACTS.md,
// "Children"; seed-fusion-subsystem.md, "Child process isolation").
//
// Pure functions, no OS access; thread-safe. The prompt is NOT part of the argv: Pi joins piped
// stdin and an argv prompt with no separator (spec/PI_HOST.md §1), so the whole prompt goes in
// ChildSpec::stdin_data and nothing else is passed as a message.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/role.h"
#include "pi_fusion/status.h"

namespace pi_fusion::process {

// Which tools a child may use.
enum class ChildCapability {
  kReason,    // --no-tools
  kInspect,   // read-only file tools
  kResearch,  // read-only file tools + fusion_web_fetch
};

inline constexpr std::array<ChildCapability, 3> kAllChildCapabilities = {
    ChildCapability::kReason, ChildCapability::kInspect, ChildCapability::kResearch};

// "reason", "inspect", "research": the manifest's `capabilities` and `pi-fusion child-run
// --capability`.
std::string_view ChildCapabilityName(ChildCapability capability);
// The capability named `name`; nullopt for any other text.
std::optional<ChildCapability> ParseChildCapability(std::string_view name);

// The tools a child of `capability` may run, in Pi's --tools order: none (reason); read, grep,
// find, ls (inspect); those and fusion_web_fetch (research).
std::vector<std::string> CapabilityTools(ChildCapability capability);

struct ChildCommandSpec {
  std::string node_path;    // the node executable, absolute
  std::string pi_cli_path;  // Pi's CLI entry (`dist/bundle/cli.js`), absolute
  // When non-empty, replaces {node_path, pi_cli_path} as the start of argv (tests run a fake pi).
  std::vector<std::string> command_override;
  ChildCapability capability = ChildCapability::kReason;
  // Child extensions in load order, each passed as `--extension <path>`. Non-Anthropic routes
  // give only the child governor; Anthropic routes the attribution extension first, then it.
  std::vector<std::string> extensions;
  std::string provider;
  std::string model;
  std::string thinking_level;  // off | minimal | low | medium | high | xhigh | max
  std::string system_prompt;   // passed verbatim as one argument
  // Joined with "," for --exclude-tools (inspect and research only; required there): the tools no
  // child may ever run (workflow::ChildDeniedTools). Exact names, never patterns: Pi reads
  // --exclude-tools entries as globs, and `fusion_*` would also remove research's own
  // fusion_web_fetch.
  std::vector<std::string> exclude_tools;
};

// Builds exactly:
//   <node> <pi-cli> --mode text --no-session <tool flags> --no-extensions --no-skills
//   --no-prompt-templates --no-themes --no-context-files --extension <ext>...
//   --provider P --model M --thinking L --system-prompt S
// with tool flags `--no-tools` (reason), `--no-builtin-tools --tools read,grep,find,ls
// --exclude-tools <deny>` (inspect), the same plus `fusion_web_fetch` in --tools (research).
// Error code "child_spawn_failed" when a field is empty or malformed (unknown thinking level, a
// NUL byte, a comma inside a tool name) or an argument exceeds Linux's per-argument limit
// (MAX_ARG_STRLEN, 128 KiB), which would otherwise fail later as E2BIG.
Result<std::vector<std::string>> BuildChildArgv(const ChildCommandSpec& spec);

// True for variables a child must not inherit: PI_SESSION_*, PI_PROVIDER, PI_MODEL,
// PI_REASONING_LEVEL, PI_AUTH_FILE, PI_API_*, OPENAI_*, OPENROUTER_*, AZURE_OPENAI_*,
// AZURE_*API_KEY / AZURE_*BASE_URL / AZURE_*API_BASE / AZURE_*ENDPOINT, and the Anthropic API
// credentials, base URL and workload-identity variables. PI_FUSION_* is kept (but see
// IsPerChildVariable).
bool IsStrippedChildVariable(std::string_view name);

// The PI_FUSION_* variables the parent sets for each child (core/env_vars.h, Scope::kPerChild: its
// role, its provider API, the oversize path, its tools, audit journal and seal, the source policy,
// the first-request signal). A parent environment's own values of these never reach a child:
// getenv() sees the first of duplicate entries, so an inherited one would override the per-child
// value appended after it.
bool IsPerChildVariable(std::string_view name);

// The child environment from the parent's ("KEY=value" entries, order kept; for duplicate keys
// the first wins, as getenv() does; entries without '=' are dropped):
//   - every IsStrippedChildVariable() and IsPerChildVariable() name removed;
//   - PI_SKIP_VERSION_CHECK=1 (overriding any inherited value);
//   - for Anthropic routes (`provider_api == "anthropic-messages"`) PI_CACHE_RETENTION=long when
//     the parent has none or an empty one; an inherited short|none|long stays as it is.
std::vector<std::string> BuildChildEnvironment(const std::vector<std::string>& parent_env,
                                               std::string_view provider_api);

// The values of one child's per-child variables (core/env_vars.h). An empty string, an empty list
// or nullopt leaves its variable unset.
struct ChildVariables {
  Role role = Role::kCandidate;  // PI_FUSION_CHILD_ROLE (RoleName): candidate | evaluator | merger
  std::string provider_api;      // PI_FUSION_PROVIDER_API; also picks PI_CACHE_RETENTION's default
  std::string oversize_path;     // PI_FUSION_OVERSIZE_PATH
  std::optional<std::string> source_policy;         // PI_FUSION_SOURCE_POLICY
  std::optional<std::string> source_policy_sha256;  // PI_FUSION_SOURCE_POLICY_SHA256
  // PI_FUSION_TOOLS, comma-joined; when not empty, PI_FUSION_TOOL_JOURNAL and PI_FUSION_TOOL_SEAL
  // are set with it.
  std::vector<std::string> tools;
  std::string tool_journal;
  std::string tool_seal;
  std::optional<int> request_signal_fd;  // PI_FUSION_REQUEST_SIGNAL_FD: the inherited number
  std::string session_dir;               // PI_FUSION_SESSION_DIR: the parent Pi's session directory
  // PI_FUSION_COST_ALLOWANCE_USD: the child's share of the run's cost cap, written rounded down
  // to a billionth of a dollar (CostAllowanceText) so the shares never sum past what was split.
  std::optional<double> cost_allowance_usd;
};

// `usd` rounded down to a billionth of a dollar, in plain decimal: "0.012500000".
// REQUIRES: usd finite and >= 0.
std::string CostAllowanceText(double usd);

// The whole environment of one Fusion child, the one builder every child's environment comes
// from (a run's stage children and `pi-fusion child-run`): BuildChildEnvironment(parent_env,
// vars.provider_api), then the per-child variables `vars` sets, in core/env_vars.h's order.
std::vector<std::string> BuildStageChildEnvironment(const std::vector<std::string>& parent_env,
                                                    const ChildVariables& vars);

}  // namespace pi_fusion::process
