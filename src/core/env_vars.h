// Every PI_FUSION_* environment variable of the product, once: its name, who sets it, who reads
// it, and whether it is per run or per child. The rest of the C++ names them only through these
// constants, and docs/protocol.md's "Environment" table lists exactly these rows (a unit test,
// env_vars_test, holds the code, the TypeScript extensions and that table to this one).
//
// Per child: the parent (the host plugin) sets the variable anew in each stage child's environment
// (process::BuildStageChildEnvironment) and drops any value the host itself carries, so a Pi
// started from inside a child cannot hand its own role or paths on. Per run: the host's
// environment holds it (a person, a test harness, or `pi-fusion child-run` for its one child); it
// is the same for every child of a run and passes the child environment filter unchanged.
//
// Constants only; thread-safe.
#pragma once

#include <array>
#include <string_view>

namespace pi_fusion::env_vars {

// The prefix every one of them starts with; the child environment filter keeps it.
inline constexpr char kPrefix[] = "PI_FUSION_";

// Per run, set in the host's environment.
inline constexpr char kAddon[] = "PI_FUSION_ADDON";
inline constexpr char kWarm[] = "PI_FUSION_WARM";
inline constexpr char kChildWrapper[] = "PI_FUSION_CHILD_WRAPPER";
inline constexpr char kRawAnswer[] = "PI_FUSION_RAW_ANSWER";
inline constexpr char kChildAddon[] = "PI_FUSION_CHILD_ADDON";

// Per child, set by the parent, in the order the parent appends them.
inline constexpr char kChildRole[] = "PI_FUSION_CHILD_ROLE";
inline constexpr char kProviderApi[] = "PI_FUSION_PROVIDER_API";
inline constexpr char kOversizePath[] = "PI_FUSION_OVERSIZE_PATH";
inline constexpr char kSourcePolicy[] = "PI_FUSION_SOURCE_POLICY";
inline constexpr char kSourcePolicySha256[] = "PI_FUSION_SOURCE_POLICY_SHA256";
inline constexpr char kTools[] = "PI_FUSION_TOOLS";
inline constexpr char kToolJournal[] = "PI_FUSION_TOOL_JOURNAL";
inline constexpr char kToolSeal[] = "PI_FUSION_TOOL_SEAL";
inline constexpr char kRequestSignalFd[] = "PI_FUSION_REQUEST_SIGNAL_FD";
inline constexpr char kSessionDir[] = "PI_FUSION_SESSION_DIR";
inline constexpr char kCostAllowance[] = "PI_FUSION_COST_ALLOWANCE_USD";
// A pooled child's task pipe (core/pooled_task.h): set for a pooled process, never with the
// variables it carries.
inline constexpr char kTaskFd[] = "PI_FUSION_TASK_FD";

enum class Setter {
  kHost,    // the host's environment: whoever starts Pi (or `pi-fusion child-run`)
  kParent,  // the host plugin, for each stage child
};

enum class Reader {
  kHostExtension,   // extensions/fusion.ts, before the plugin is loaded
  kParent,          // the host plugin (pi_fusion.node)
  kChildExtension,  // extensions/fusion-child.ts, in each child
  kChildLibrary,    // the child library (pi_fusion_child.node), in each child
};

enum class Scope { kPerRun, kPerChild };

struct Variable {
  std::string_view name;
  Setter set_by;
  Reader read_by;
  Scope scope;
};

inline constexpr std::array<Variable, 17> kVariables = {{
    {kAddon, Setter::kHost, Reader::kHostExtension, Scope::kPerRun},
    {kWarm, Setter::kHost, Reader::kParent, Scope::kPerRun},
    {kChildWrapper, Setter::kHost, Reader::kParent, Scope::kPerRun},
    {kRawAnswer, Setter::kHost, Reader::kParent, Scope::kPerRun},
    {kChildAddon, Setter::kHost, Reader::kChildExtension, Scope::kPerRun},
    {kChildRole, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kProviderApi, Setter::kParent, Reader::kChildExtension, Scope::kPerChild},
    {kOversizePath, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kSourcePolicy, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kSourcePolicySha256, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kTools, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kToolJournal, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kToolSeal, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kRequestSignalFd, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kSessionDir, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kCostAllowance, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
    {kTaskFd, Setter::kParent, Reader::kChildLibrary, Scope::kPerChild},
}};

// True for the names the parent sets anew for each stage child.
constexpr bool IsPerChild(std::string_view name) {
  for (const Variable& variable : kVariables) {
    if (variable.name == name) return variable.scope == Scope::kPerChild;
  }
  return false;
}

// How docs/protocol.md's table words each value.
constexpr std::string_view SetterName(Setter setter) {
  return setter == Setter::kHost ? "host environment" : "parent";
}
constexpr std::string_view ReaderName(Reader reader) {
  switch (reader) {
    case Reader::kHostExtension:
      return "extensions/fusion.ts";
    case Reader::kParent:
      return "parent";
    case Reader::kChildExtension:
      return "extensions/fusion-child.ts";
    case Reader::kChildLibrary:
      break;
  }
  return "child library";
}
constexpr std::string_view ScopeName(Scope scope) {
  return scope == Scope::kPerRun ? "per run" : "per child";
}

}  // namespace pi_fusion::env_vars
