// `pi-fusion child-run` starts its one child with the PI_FUSION_* variables a run gives a stage
// child of the same role, route and capability: both environments come from
// process::BuildStageChildEnvironment, and this holds the two callers to it from the outside (a
// variable one of them set by hand would show up here as a key the other lacks).
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli/child_run_spec.h"
#include "core/env_vars.h"
#include "run/child_stage.h"
#include "test_support.h"

namespace pi_fusion::cli {
namespace {

const std::vector<std::string> kHostEnv = {"PATH=/usr/bin", "HOME=/home/u",
                                           "PI_FUSION_CHILD_ADDON=/pkg/lib/pi_fusion_child.node"};
constexpr char kPolicy[] = "source-policy.private.json";
constexpr char kPolicySha[] = "sha256:0123";

std::set<std::string> FusionKeys(const std::vector<std::string>& env) {
  std::set<std::string> keys;
  for (const std::string& entry : env) {
    if (entry.rfind(env_vars::kPrefix, 0) == 0) keys.insert(entry.substr(0, entry.find('=')));
  }
  return keys;
}

std::string ValueOf(const std::vector<std::string>& env, const std::string& name) {
  for (const std::string& entry : env) {
    if (entry.rfind(name + "=", 0) == 0) return entry.substr(name.size() + 1);
  }
  return "<unset>";
}

// A run's candidate of `capability` on an anthropic-messages route, built as the orchestrator
// builds it.
std::vector<std::string> StageEnv(process::ChildCapability capability) {
  store::testing::StoreFixture fixture;
  run::PreparedRun run;
  run.request.host.node_path = "/usr/bin/node";
  run.request.host.pi_cli_path = "/pkg/pi/cli.js";
  run.request.host.package_root = "/pkg";
  run.request.host.cwd = "/work/repo";
  run.request.host.environment = kHostEnv;
  config::ModelInfo& model = run.models.routes[0].model;
  model.provider = "anthropic";
  model.id = "claude-x";
  model.api = "anthropic-messages";
  run.models.thinking_level = "off";
  if (capability == process::ChildCapability::kResearch) {
    run.source_policy = store::ArtifactRef{kPolicy, 10, kPolicySha};
  }
  run.store = std::move(fixture.store);
  run::StageChild child;
  child.role = Role::kCandidate;
  child.capability = capability;
  child.tools = process::CapabilityTools(capability);
  child.system_prompt = "Answer.";
  run::ChildFiles files{"/run/c.oversized.md", "/run/c.tool-calls.jsonl", "/run/c.seal.json"};
  if (child.tools.empty()) files.journal = files.seal = "";
  Result<process::ChildSpec> spec = run::BuildChildSpec(run, child, files);
  REQUIRE(spec.ok());
  return spec->env;
}

// child-run with the same role, route and capability; a research child's caller declares the
// source policy in its own environment.
std::vector<std::string> ChildRunEnv(const std::string& capability) {
  ChildRunArgs args;
  args.provider = "anthropic";
  args.model = "claude-x";
  args.api = "anthropic-messages";
  args.capability = capability;
  args.role = "candidate";
  args.node = "/usr/bin/node";
  args.pi_cli = "/pkg/pi/cli.js";
  args.child_extension = "/pkg/extensions/fusion-child.ts";
  args.child_addon = "/build/lib/pi_fusion_child.node";
  std::vector<std::string> parent = kHostEnv;
  if (capability == "research") {
    parent.push_back(std::string(env_vars::kSourcePolicy) + "=/run/" + kPolicy);
    parent.push_back(std::string(env_vars::kSourcePolicySha256) + "=" + kPolicySha);
  }
  Result<process::ChildSpec> spec =
      BuildChildRunSpec(args, parent, "prompt", "/tmp/child-run", "/tmp/child-run/o.md");
  REQUIRE(spec.ok());
  return spec->env;
}

TEST_CASE("ChildRun: its child gets the PI_FUSION_* keys of a run's stage child") {
  const std::pair<process::ChildCapability, const char*> cases[] = {
      {process::ChildCapability::kReason, "reason"},
      {process::ChildCapability::kInspect, "inspect"},
      {process::ChildCapability::kResearch, "research"}};
  for (const auto& [capability, name] : cases) {
    INFO(name);
    const std::vector<std::string> stage = StageEnv(capability);
    const std::vector<std::string> child_run = ChildRunEnv(name);
    CHECK(FusionKeys(child_run) == FusionKeys(stage));
    // The values that do not name a place in the run's or child-run's own directory agree too.
    for (const char* same : {env_vars::kChildRole, env_vars::kProviderApi, env_vars::kTools,
                             env_vars::kSourcePolicySha256}) {
      CHECK(ValueOf(child_run, same) == ValueOf(stage, same));
    }
    // So does everything outside PI_FUSION_* (the filtered host environment).
    std::vector<std::string> stage_rest, child_run_rest;
    for (const std::string& e : stage) {
      if (e.rfind(env_vars::kPrefix, 0) != 0) stage_rest.push_back(e);
    }
    for (const std::string& e : child_run) {
      if (e.rfind(env_vars::kPrefix, 0) != 0) child_run_rest.push_back(e);
    }
    CHECK(child_run_rest == stage_rest);
    // The one deliberate difference: child-run names the child library of its own build.
    CHECK(ValueOf(stage, env_vars::kChildAddon) == "/pkg/lib/pi_fusion_child.node");
    CHECK(ValueOf(child_run, env_vars::kChildAddon) == "/build/lib/pi_fusion_child.node");
  }
}

TEST_CASE("ChildRun: a caller's source policy passes on as it is, each variable on its own") {
  ChildRunArgs args;
  const std::vector<std::string> parent = {std::string(env_vars::kSourcePolicy) + "=/a",
                                           std::string(env_vars::kSourcePolicy) + "=/shadowed"};
  const std::vector<std::string> child = ChildRunEnvironment(args, parent, "/o.md", {"/j", "/s"});
  CHECK(ValueOf(child, env_vars::kSourcePolicy) == "/a");  // the first entry, as getenv() reads it
  CHECK(ValueOf(child, env_vars::kSourcePolicySha256) == "<unset>");
  CHECK(FusionKeys(child) == std::set<std::string>{env_vars::kChildRole, env_vars::kOversizePath,
                                                   env_vars::kSourcePolicy, env_vars::kChildAddon});
}

}  // namespace
}  // namespace pi_fusion::cli
