// The child `pi` command line and environment (spec/CONTRACTS.md, "Children").
#include "process/child_command.h"

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/env_vars.h"

namespace pi_fusion::process {
namespace {

using Argv = std::vector<std::string>;

ChildCommandSpec BaseSpec(ChildCapability capability) {
  ChildCommandSpec spec;
  spec.node_path = "/opt/node/bin/node";
  spec.pi_cli_path = "/pkg/dist/bundle/cli.js";
  spec.capability = capability;
  spec.extensions = {"/ext/fusion-child.ts"};
  spec.provider = "anthropic";
  spec.model = "claude-x";
  spec.thinking_level = "high";
  spec.system_prompt = "You are candidate A.\nAnswer in Markdown.";
  spec.exclude_tools = {"bash",
                        "edit",
                        "write",
                        "powershell",
                        "fusion_reason",
                        "fusion_investigate",
                        "fusion_research",
                        "fusion_validate",
                        "fusion_brainstorm",
                        "bg_result",
                        "bg_status",
                        "bg_kill"};
  return spec;
}

const char* kDeny =
    "bash,edit,write,powershell,fusion_reason,fusion_investigate,fusion_research,fusion_validate,"
    "fusion_brainstorm,bg_result,bg_status,bg_kill";

Argv Expected(const Argv& tool_flags) {
  Argv argv = {"/opt/node/bin/node", "/pkg/dist/bundle/cli.js", "--mode", "text", "--no-session"};
  argv.insert(argv.end(), tool_flags.begin(), tool_flags.end());
  Argv tail = {"--no-extensions",
               "--no-skills",
               "--no-prompt-templates",
               "--no-themes",
               "--no-context-files",
               "--extension",
               "/ext/fusion-child.ts",
               "--provider",
               "anthropic",
               "--model",
               "claude-x",
               "--thinking",
               "high",
               "--system-prompt",
               "You are candidate A.\nAnswer in Markdown."};
  argv.insert(argv.end(), tail.begin(), tail.end());
  return argv;
}

TEST_CASE("ChildCommand: argv per capability is exactly the contract's") {
  struct Row {
    ChildCapability capability;
    Argv tool_flags;
  };
  const std::vector<Row> rows = {
      {ChildCapability::kReason, {"--no-tools"}},
      {ChildCapability::kInspect,
       {"--no-builtin-tools", "--tools", "read,grep,find,ls", "--exclude-tools", kDeny}},
      {ChildCapability::kResearch,
       {"--no-builtin-tools", "--tools", "read,grep,find,ls,fusion_web_fetch", "--exclude-tools",
        kDeny}},
  };
  for (const Row& row : rows) {
    Result<Argv> argv = BuildChildArgv(BaseSpec(row.capability));
    REQUIRE(argv.ok());
    CHECK(argv.value() == Expected(row.tool_flags));
  }
}

TEST_CASE(
    "ChildCapability: the names of the manifest and child-run parse back, nothing else does") {
  CHECK(ChildCapabilityName(ChildCapability::kReason) == "reason");
  CHECK(ChildCapabilityName(ChildCapability::kInspect) == "inspect");
  CHECK(ChildCapabilityName(ChildCapability::kResearch) == "research");
  for (ChildCapability capability : kAllChildCapabilities) {
    CHECK(ParseChildCapability(ChildCapabilityName(capability)) == capability);
  }
  for (const char* other : {"", "Reason", "investigate", "inspect ", "fetch"}) {
    INFO(other);
    CHECK_FALSE(ParseChildCapability(other).has_value());
  }
}

TEST_CASE("ChildCommand: the prompt is never an argument; it goes on stdin") {
  Result<Argv> argv = BuildChildArgv(BaseSpec(ChildCapability::kReason));
  REQUIRE(argv.ok());
  CHECK(argv.value().back() ==
        "You are candidate A.\nAnswer in Markdown.");  // the last flag's value
  CHECK(argv.value()[argv.value().size() - 2] == "--system-prompt");
}

TEST_CASE("ChildCommand: an override command replaces node and the Pi CLI") {
  ChildCommandSpec spec = BaseSpec(ChildCapability::kReason);
  spec.node_path.clear();
  spec.pi_cli_path.clear();
  spec.command_override = {"/tests/fake-pi", "--fake"};
  Result<Argv> argv = BuildChildArgv(spec);
  REQUIRE(argv.ok());
  CHECK(Argv(argv.value().begin(), argv.value().begin() + 4) ==
        Argv{"/tests/fake-pi", "--fake", "--mode", "text"});
}

TEST_CASE("ChildCommand: extensions are passed in load order") {
  ChildCommandSpec spec = BaseSpec(ChildCapability::kReason);
  spec.extensions = {"/ext/attribution.ts", "/ext/fusion-child.ts"};
  Result<Argv> argv = BuildChildArgv(spec);
  REQUIRE(argv.ok());
  const Argv& a = argv.value();
  auto first = std::find(a.begin(), a.end(), "--extension");
  REQUIRE(first != a.end());
  CHECK(Argv(first, first + 4) ==
        Argv{"--extension", "/ext/attribution.ts", "--extension", "/ext/fusion-child.ts"});
}

TEST_CASE("ChildCommand: malformed specs are refused with child_spawn_failed") {
  struct Row {
    const char* what;
    void (*mutate)(ChildCommandSpec*);
  };
  const std::vector<Row> rows = {
      {"no node", [](ChildCommandSpec* s) { s->node_path.clear(); }},
      {"no pi cli", [](ChildCommandSpec* s) { s->pi_cli_path.clear(); }},
      {"no extension", [](ChildCommandSpec* s) { s->extensions.clear(); }},
      {"empty extension", [](ChildCommandSpec* s) { s->extensions = {""}; }},
      {"no provider", [](ChildCommandSpec* s) { s->provider.clear(); }},
      {"no model", [](ChildCommandSpec* s) { s->model.clear(); }},
      {"no system prompt", [](ChildCommandSpec* s) { s->system_prompt.clear(); }},
      {"bad thinking", [](ChildCommandSpec* s) { s->thinking_level = "extreme"; }},
      {"empty denylist", [](ChildCommandSpec* s) { s->exclude_tools.clear(); }},
      {"comma in tool", [](ChildCommandSpec* s) { s->exclude_tools = {"bash,edit"}; }},
      {"NUL in prompt", [](ChildCommandSpec* s) { s->system_prompt = std::string("a\0b", 3); }},
      {"prompt over 128 KiB",
       [](ChildCommandSpec* s) { s->system_prompt.assign(128 * 1024, 'p'); }},
  };
  for (const Row& row : rows) {
    ChildCommandSpec spec = BaseSpec(ChildCapability::kInspect);
    row.mutate(&spec);
    Result<Argv> argv = BuildChildArgv(spec);
    INFO(row.what);
    REQUIRE_FALSE(argv.ok());
    CHECK(argv.status().code() == "child_spawn_failed");
  }
  ChildCommandSpec largest = BaseSpec(ChildCapability::kInspect);
  largest.system_prompt.assign(128 * 1024 - 1, 'p');
  CHECK(BuildChildArgv(largest).ok());
}

TEST_CASE("ChildEnvironment: which inherited variables a child loses") {
  struct Row {
    const char* name;
    bool stripped;
  };
  const std::vector<Row> rows = {
      {"PI_SESSION_ID", true},
      {"PI_SESSION_FILE", true},
      {"PI_PROVIDER", true},
      {"PI_MODEL", true},
      {"PI_REASONING_LEVEL", true},
      {"PI_AUTH_FILE", true},
      {"PI_API_KEY", true},
      {"PI_API_BASE_URL", true},
      {"OPENAI_API_KEY", true},
      {"OPENAI_BASE_URL", true},
      {"OPENAI_ORG_ID", true},
      {"OPENAI_PROJECT", true},
      {"OPENROUTER_API_KEY", true},
      {"OPENROUTER_BASE_URL", true},
      {"ANTHROPIC_API_KEY", true},
      {"ANTHROPIC_AUTH_TOKEN", true},
      {"ANTHROPIC_OAUTH_TOKEN", true},
      {"ANTHROPIC_BASE_URL", true},
      {"ANTHROPIC_FEDERATION_RULE_ID", true},
      {"ANTHROPIC_IDENTITY_TOKEN_FILE", true},
      {"AZURE_OPENAI_API_KEY", true},
      {"AZURE_OPENAI_BASE_URL", true},
      {"AZURE_OPENAI_RESOURCE_NAME", true},
      {"AZURE_API_KEY", true},
      {"AZURE_AI_API_KEY", true},
      {"AZURE_API_BASE", true},
      {"AZURE_INFERENCE_ENDPOINT", true},
      {"PI_FUSION_DEBUG", false},
      {"PI_FUSION_API_KEY", false},
      {"PI_CODING_AGENT_DIR", false},
      {"PI_OFFLINE", false},
      {"PI_CACHE_RETENTION", false},
      {"HOME", false},
      {"PATH", false},
      {"ANTHROPIC_MODEL_HINT", false},
      {"AZURE_REGION", false},
      {"PI_SESSIONS_DIR", false},
  };
  for (const Row& row : rows) {
    INFO(row.name);
    CHECK(IsStrippedChildVariable(row.name) == row.stripped);
  }
}

TEST_CASE("ChildEnvironment: built from the parent's, order kept, version check skipped") {
  const std::vector<std::string> parent = {"HOME=/home/u",
                                           "PI_SESSION_ID=abc",
                                           "OPENAI_API_KEY=sk-1",
                                           "PI_FUSION_TRACE=1",
                                           "HOME=/shadowed",
                                           "PI_SKIP_VERSION_CHECK=0",
                                           "NOEQUALS",
                                           "=bad",
                                           "PATH=/usr/bin"};
  CHECK(BuildChildEnvironment(parent, "openai-codex-responses") ==
        std::vector<std::string>{"HOME=/home/u", "PI_FUSION_TRACE=1", "PATH=/usr/bin",
                                 "PI_SKIP_VERSION_CHECK=1"});
}

TEST_CASE("ChildEnvironment: the parent's per-child PI_FUSION_* values never reach a child") {
  const std::vector<std::string> parent = {"PI_FUSION_CHILD_ROLE=merger",
                                           "PI_FUSION_OVERSIZE_PATH=/tmp/elsewhere",
                                           "PI_FUSION_TOOLS=bash",
                                           "PI_FUSION_TOOL_JOURNAL=/tmp/j",
                                           "PI_FUSION_TOOL_SEAL=/tmp/s",
                                           "PI_FUSION_SOURCE_POLICY=/tmp/p",
                                           "PI_FUSION_SOURCE_POLICY_SHA256=sha256:00",
                                           "PI_FUSION_PROVIDER_API=anthropic-messages",
                                           "PI_FUSION_REQUEST_SIGNAL_FD=3",
                                           "PI_FUSION_CHILD_WRAPPER=/usr/bin/env",
                                           "PATH=/usr/bin"};
  // Host-wide settings (a wrapper, a trace flag) still pass; the per-child ones are the parent's
  // to set for each child.
  CHECK(BuildChildEnvironment(parent, "openai-completions") ==
        std::vector<std::string>{"PI_FUSION_CHILD_WRAPPER=/usr/bin/env", "PATH=/usr/bin",
                                 "PI_SKIP_VERSION_CHECK=1"});
  CHECK(IsPerChildVariable("PI_FUSION_CHILD_ROLE"));
  CHECK_FALSE(IsPerChildVariable("PI_FUSION_CHILD_WRAPPER"));
}

// An admitted openai route is the ChatGPT subscription OAuth stored in the agent directory's
// auth.json. Pi lets a stored credential own its provider and reads OPENAI_API_KEY only when
// nothing is stored, so a child that keeps the credential store (PI_CODING_AGENT_DIR, or HOME for
// the default ~/.pi/agent) and loses every metered key can only use that same OAuth credential:
// if it were gone, the child would fail for want of a key instead of falling back to metering.
TEST_CASE("ChildEnvironment: an openai subscription child keeps the credential store only") {
  const std::vector<std::string> parent = {"HOME=/home/u",
                                           "PI_CODING_AGENT_DIR=/home/u/.pi/agent",
                                           "OPENAI_API_KEY=sk-metered",
                                           "OPENAI_BASE_URL=https://proxy.example.com/v1",
                                           "OPENAI_ORG_ID=org-1",
                                           "PI_API_KEY=sk-2",
                                           "PI_PROVIDER=openai",
                                           "AZURE_OPENAI_API_KEY=az",
                                           "PATH=/usr/bin"};
  const std::vector<std::string> child = BuildChildEnvironment(parent, "openai-responses");
  CHECK(child == std::vector<std::string>{"HOME=/home/u", "PI_CODING_AGENT_DIR=/home/u/.pi/agent",
                                          "PATH=/usr/bin", "PI_SKIP_VERSION_CHECK=1"});
  for (const std::string& entry : child) {
    INFO(entry);
    CHECK(entry.find("sk-") == std::string::npos);
    CHECK(entry.rfind("OPENAI", 0) == std::string::npos);
  }
}

TEST_CASE("ChildEnvironment: Anthropic routes default PI_CACHE_RETENTION to long") {
  struct Row {
    const char* api;
    std::vector<std::string> parent;
    std::vector<std::string> expected;
  };
  const std::vector<Row> rows = {
      {"anthropic-messages", {}, {"PI_SKIP_VERSION_CHECK=1", "PI_CACHE_RETENTION=long"}},
      {"anthropic-messages",
       {"PI_CACHE_RETENTION=short"},
       {"PI_CACHE_RETENTION=short", "PI_SKIP_VERSION_CHECK=1"}},
      {"anthropic-messages",
       {"PI_CACHE_RETENTION=none"},
       {"PI_CACHE_RETENTION=none", "PI_SKIP_VERSION_CHECK=1"}},
      {"anthropic-messages",
       {"PI_CACHE_RETENTION="},
       {"PI_SKIP_VERSION_CHECK=1", "PI_CACHE_RETENTION=long"}},
      {"openai-codex-responses", {}, {"PI_SKIP_VERSION_CHECK=1"}},
      {"openai-codex-responses",
       {"PI_CACHE_RETENTION="},
       {"PI_CACHE_RETENTION=", "PI_SKIP_VERSION_CHECK=1"}},
  };
  for (const Row& row : rows) {
    INFO(row.api << " " << (row.parent.empty() ? "unset" : row.parent[0]));
    CHECK(BuildChildEnvironment(row.parent, row.api) == row.expected);
  }
}

// The names a child can get are the table's per-child names, all of them and only them: no caller
// of the builder can add a PI_FUSION_* variable of its own, and a new per-child row in
// core/env_vars.h without a field here fails this test.
TEST_CASE("StageChildEnvironment: sets exactly core/env_vars.h's per-child names, in its order") {
  ChildVariables vars;
  vars.role = Role::kCandidate;
  vars.provider_api = "anthropic-messages";
  vars.oversize_path = "/run/candidate-1.attempt-1.response.oversized.md";
  vars.source_policy = "/run/source-policy.private.json";
  vars.source_policy_sha256 = "sha256:00";
  vars.tools = {"read", "grep", "find", "ls", "fusion_web_fetch"};
  vars.tool_journal = "/run/j.jsonl";
  vars.tool_seal = "/run/s.json";
  vars.request_signal_fd = 3;
  vars.session_dir = "/home/u/.pi/agent/sessions/--p--";
  vars.cost_allowance_usd = 0.125;
  const std::vector<std::string> parent = {"PATH=/usr/bin", "PI_FUSION_CHILD_ROLE=merger",
                                           "PI_FUSION_WARM=0", "PI_FUSION_COST_ALLOWANCE_USD=99"};
  const std::vector<std::string> child = BuildStageChildEnvironment(parent, vars);
  CHECK(child == std::vector<std::string>{
                     "PATH=/usr/bin",
                     "PI_FUSION_WARM=0",
                     "PI_SKIP_VERSION_CHECK=1",
                     "PI_CACHE_RETENTION=long",
                     "PI_FUSION_CHILD_ROLE=candidate",
                     "PI_FUSION_PROVIDER_API=anthropic-messages",
                     "PI_FUSION_OVERSIZE_PATH=/run/candidate-1.attempt-1.response.oversized.md",
                     "PI_FUSION_SOURCE_POLICY=/run/source-policy.private.json",
                     "PI_FUSION_SOURCE_POLICY_SHA256=sha256:00",
                     "PI_FUSION_TOOLS=read,grep,find,ls,fusion_web_fetch",
                     "PI_FUSION_TOOL_JOURNAL=/run/j.jsonl",
                     "PI_FUSION_TOOL_SEAL=/run/s.json",
                     "PI_FUSION_REQUEST_SIGNAL_FD=3",
                     "PI_FUSION_SESSION_DIR=/home/u/.pi/agent/sessions/--p--",
                     "PI_FUSION_COST_ALLOWANCE_USD=0.125000000",
                 });
  std::vector<std::string> set_by_builder, per_child;
  for (size_t i = 4; i < child.size(); ++i) {
    set_by_builder.push_back(child[i].substr(0, child[i].find('=')));
  }
  for (const env_vars::Variable& variable : env_vars::kVariables) {
    // PI_FUSION_TASK_FD is a pooled process's alone, set where it is spawned (PooledChild::Start):
    // a stage child never gets it.
    if (variable.scope == env_vars::Scope::kPerChild &&
        std::string_view(variable.name) != env_vars::kTaskFd) {
      per_child.emplace_back(variable.name);
    }
    CHECK(IsPerChildVariable(variable.name) == (variable.scope == env_vars::Scope::kPerChild));
  }
  CHECK(set_by_builder == per_child);
}

TEST_CASE("StageChildEnvironment: an empty value leaves its variable unset") {
  ChildVariables vars;
  vars.role = Role::kEvaluator;
  vars.tool_journal = "/run/j.jsonl";  // no tools: no journal, no seal
  vars.tool_seal = "/run/s.json";
  CHECK(BuildStageChildEnvironment({}, vars) ==
        std::vector<std::string>{"PI_SKIP_VERSION_CHECK=1", "PI_FUSION_CHILD_ROLE=evaluator"});
  vars.source_policy = "";  // set, if empty: passed on as set (the child reads empty as unset)
  CHECK(BuildStageChildEnvironment({}, vars).back() == "PI_FUSION_SOURCE_POLICY=");
}

TEST_CASE("CostAllowanceText: plain decimal, rounded down to a billionth of a dollar") {
  CHECK(CostAllowanceText(0) == "0.000000000");
  CHECK(CostAllowanceText(0.125) == "0.125000000");
  CHECK(CostAllowanceText(1.0 / 3) == "0.333333333");  // never up: shares never sum past the cap
  CHECK(CostAllowanceText(2.0 / 3) == "0.666666666");
  CHECK(CostAllowanceText(12.5) == "12.500000000");
  CHECK(CostAllowanceText(1e-10) == "0.000000000");
  CHECK(CostAllowanceText(-1) == "0.000000000");
  // Three shares of a cap, as text, sum to no more than the cap.
  const double cap = 0.1;
  double sum = 0;
  for (int i = 0; i < 3; ++i) sum += std::stod(CostAllowanceText(cap / 3));
  CHECK(sum <= cap);
}

}  // namespace
}  // namespace pi_fusion::process
