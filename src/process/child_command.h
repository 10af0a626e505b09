// The command line and environment of a Fusion child `pi` process (spec/CONTRACTS.md,
// "Children"; seed-fusion-subsystem.md, "Child process isolation").
//
// Pure functions, no OS access; thread-safe. The prompt is NOT part of the argv: Pi joins piped
// stdin and an argv prompt with no separator (spec/PI_HOST.md §1), so the whole prompt goes in
// ChildSpec::stdin_data and nothing else is passed as a message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pi_fusion/status.h"

namespace pi_fusion::process {

// Which tools a child may use.
enum class ChildCapability {
  kReason,    // --no-tools
  kInspect,   // read-only file tools
  kResearch,  // read-only file tools + fusion_web_fetch
};

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

// The PI_FUSION_* variables the parent sets for each child (its role, its provider API, the
// oversize path, its tools, audit journal and seal, the source policy, the first-request signal).
// A parent environment's own values of these never reach a child: getenv() sees the first of
// duplicate entries, so an inherited one would override the per-child value appended after it.
bool IsPerChildVariable(std::string_view name);

// The child environment from the parent's ("KEY=value" entries, order kept; for duplicate keys
// the first wins, as getenv() does; entries without '=' are dropped):
//   - every IsStrippedChildVariable() and IsPerChildVariable() name removed;
//   - PI_SKIP_VERSION_CHECK=1 (overriding any inherited value);
//   - for Anthropic routes (`provider_api == "anthropic-messages"`) PI_CACHE_RETENTION=long when
//     the parent has none or an empty one; an inherited short|none|long stays as it is.
std::vector<std::string> BuildChildEnvironment(const std::vector<std::string>& parent_env,
                                               std::string_view provider_api);

}  // namespace pi_fusion::process
