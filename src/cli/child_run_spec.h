// The child that `pi-fusion child-run` starts: its command line and environment, built by the
// same process-layer builders a run uses for its stage children (BuildChildArgv,
// BuildStageChildEnvironment), so the debugging tool cannot drift from what a run starts.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pi_fusion/status.h"
#include "process/child_command.h"
#include "process/supervisor.h"

namespace pi_fusion::cli {

// The flags of `pi-fusion child-run` (child_run_command.cc fills in the build's paths).
struct ChildRunArgs {
  std::string provider;
  std::string model;
  std::string prompt_file;
  std::string system_prompt = "You are a careful assistant. Answer the user's request.";
  std::string capability = "reason";
  std::string role = "candidate";
  std::string thinking = "off";
  std::string api;  // the route's api; anthropic-messages defaults PI_CACHE_RETENTION to long
  std::string cwd;
  std::string artifact_dir;
  std::vector<std::string> extensions;  // loaded before the child extension (test fixtures)
  int64_t wall_ms = 50 * 60 * 1000;
  int64_t idle_ms = 35 * 60 * 1000;
  std::string node;
  std::string pi_cli;
  std::string child_extension;
  std::string child_addon;
};

Result<process::ChildCapability> ParseCapability(const std::string& name);

// A tool-enabled child's audit log, beside the other evidence in the artifact directory.
struct AuditPaths {
  std::string journal, seal;
};
AuditPaths AuditPathsIn(const std::string& dir);

// The child's environment: `parent_env` ("NAME=value", this process's own) through
// BuildStageChildEnvironment with the child's role, api, oversize path (`oversize`, for every
// role) and, for a tool-enabled capability, its tools and audit paths; plus PI_FUSION_CHILD_ADDON
// set to --child-addon. child-run has no flags for a research child's source policy: the caller's
// own PI_FUSION_SOURCE_POLICY and PI_FUSION_SOURCE_POLICY_SHA256 (the first entry of each in
// `parent_env`, as getenv() reads it) are passed on, each when set.
std::vector<std::string> ChildRunEnvironment(const ChildRunArgs& args,
                                             const std::vector<std::string>& parent_env,
                                             const std::string& oversize, const AuditPaths& audit);

// argv, environment, working directory, stdin and limits of the child. Error invalid_arguments
// for an unknown capability; child_spawn_failed from BuildChildArgv.
Result<process::ChildSpec> BuildChildRunSpec(const ChildRunArgs& args,
                                             const std::vector<std::string>& parent_env,
                                             const std::string& prompt, const std::string& dir,
                                             const std::string& oversize);

}  // namespace pi_fusion::cli
