// The WorkflowSpec table: one row per workflow, consistent with the tool catalog, and every
// schema file's workflow enum and run-id pattern spelled from the same list.
#include <catch2/catch.hpp>

#include <functional>
#include <set>

#include "json_schema_check.h"
#include "store/run_id.h"
#include "url/source_policy_file.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

std::vector<std::string> WorkflowNames() {
  std::vector<std::string> names;
  for (Workflow w : kAllWorkflows) names.emplace_back(Name(w));
  return names;
}

// The run-id pattern of `names`: "^research-…" for one, "^(reason|…)-…" for more.
std::string RunIdPatternOf(const std::vector<std::string>& names) {
  std::string alternatives;
  for (const std::string& name : names) {
    alternatives += (alternatives.empty() ? "" : "|") + name;
  }
  if (names.size() > 1) alternatives = "(" + alternatives + ")";
  return "^" + alternatives + "-[0-9a-f]{32}$";
}

std::string RunIdPattern() { return RunIdPatternOf(WorkflowNames()); }

// The workflows whose row declares sources: the only run ids a source policy may bind.
std::vector<std::string> DeclaringWorkflowNames() {
  std::vector<std::string> names;
  for (Workflow w : kAllWorkflows) {
    if (SpecOf(w).declares_sources) names.emplace_back(Name(w));
  }
  return names;
}

TEST_CASE("Workflow: names parse back, and nothing else does") {
  for (Workflow w : kAllWorkflows) CHECK(ParseWorkflow(Name(w)) == w);
  CHECK_FALSE(ParseWorkflow("brainstorm"));
  CHECK_FALSE(ParseWorkflow("Reason"));
  CHECK_FALSE(ParseWorkflow(""));
  CHECK(store::IsWorkflow("validate"));
  CHECK_FALSE(store::IsWorkflow("brainstorm"));
}

TEST_CASE("WorkflowSpec: every workflow has its row and its tool") {
  for (Workflow w : kAllWorkflows) {
    const WorkflowSpec& spec = SpecOf(w);
    INFO(Name(w));
    CHECK(spec.workflow == w);
    REQUIRE(spec.tool != nullptr);
    CHECK(spec.tool->workflow == w);
    CHECK(spec.tool->name == "fusion_" + std::string(Name(w)));
    CHECK(&schema::FusionTool(w) == spec.tool);
  }
}

TEST_CASE("WorkflowSpec: the rows say what the seeds say of each workflow") {
  const WorkflowSpec& reason = SpecOf(Workflow::kReason);
  CHECK(reason.candidate_capability == Capability::kReason);
  CHECK(reason.context == ContextPolicy::kSessionProjection);
  for (Workflow w : {Workflow::kInvestigate, Workflow::kResearch, Workflow::kValidate}) {
    CHECK(SpecOf(w).context == ContextPolicy::kCleanTask);
  }
  CHECK(SpecOf(Workflow::kInvestigate).candidate_capability == Capability::kInspect);
  CHECK(SpecOf(Workflow::kValidate).candidate_capability == Capability::kInspect);
  CHECK(SpecOf(Workflow::kResearch).candidate_capability == Capability::kResearch);
  for (Workflow w : kAllWorkflows) {
    INFO(Name(w));
    CHECK(SpecOf(w).declares_sources == (w == Workflow::kResearch));
    CHECK((SpecOf(w).shape == StageShape::kValidation) == (w == Workflow::kValidate));
    CHECK((SpecOf(w).candidate_failure == CandidateFailureRule::kMinority) ==
          (w == Workflow::kValidate));
  }
  CHECK(ContextPolicyName(ContextPolicy::kCleanTask) == "clean_task");
  CHECK(ContextPolicyName(ContextPolicy::kSessionProjection) == "session_projection");
}

TEST_CASE("WorkflowSpec: each row pairs its stage shape with the failure rule that shape runs") {
  // The orchestrator picks its path by the shape, and each path runs its candidates under one
  // rule: the fusion path under the quorum (fail fast), the validation path under the minority
  // rule. A row pairing them otherwise would be run by the other rule.
  for (Workflow w : kAllWorkflows) {
    INFO(Name(w));
    const WorkflowSpec& spec = SpecOf(w);
    CHECK(spec.candidate_failure == (spec.shape == StageShape::kValidation
                                         ? CandidateFailureRule::kMinority
                                         : CandidateFailureRule::kFailFast));
  }
}

TEST_CASE("WorkflowSpec: a new row is all a fifth workflow's stages read") {
  // A synthetic fifth workflow: a clean task answered without tools, a pairing no row has. Its
  // prompts, its children's tools, its input kind and its headline come from the row and its tool
  // row alone; nothing keys on which workflow it is.
  schema::ToolSpec tool{"fusion_synthetic", "Fusion Synthetic", "d", Workflow::kReason, "s", {},
                        "objective"};
  const WorkflowSpec row{Workflow::kReason,
                         &tool,
                         Capability::kReason,
                         ContextPolicy::kCleanTask,
                         StageShape::kFusion,
                         false,
                         CandidateFailureRule::kFailFast};
  const std::string candidate = CandidateSystemPromptOf(row);
  CHECK(candidate.find("\"clean_task\"") != std::string::npos);
  CHECK(candidate.find("\"session_projection\"") == std::string::npos);
  CHECK(candidate.find("You have no tools.") != std::string::npos);
  CHECK(ContextPolicyName(row.context) == "clean_task");
  CHECK(EvaluatorSystemPromptOf(row) == EvaluatorSystemPromptOf(SpecOf(Workflow::kReason)));
  CHECK(MergerSystemPromptOf(row, CandidateSet::kTwoOrThree) ==
        MergerSystemPromptOf(SpecOf(Workflow::kInvestigate), CandidateSet::kTwoOrThree));
  CHECK(schema::HeadlineOf(*row.tool, {{"objective", "Why?"}, {"prompt", "no"}}) == "Why?");
  // The existing rows' prompts are the same function of their own rows.
  CHECK(CandidateSystemPromptOf(SpecOf(Workflow::kInvestigate)) != candidate);
}

TEST_CASE("ToolSpec: every tool names its headline argument, and it is in its schema") {
  for (const schema::ToolSpec& tool : schema::RegisteredTools()) {
    INFO(tool.name);
    const json* parameters = schema::ToolParameters(tool.name);
    REQUIRE(parameters != nullptr);
    CHECK(parameters->at("properties").contains(tool.headline));
  }
  CHECK(schema::HeadlineOf(schema::FusionTool(Workflow::kReason), {{"prompt", "Q"}}) == "Q");
  CHECK(schema::HeadlineOf(schema::FusionTool(Workflow::kValidate), {{"prompt", "Q"}}).empty());
  CHECK(schema::HeadlineOf(*schema::FindTool("bg_result"), {{"taskId", "t1"}}) == "t1");
  CHECK(schema::FindTool("fusion_brainstorm") == nullptr);
}

TEST_CASE("ChildDeniedTools: Pi's mutating tools and every tool of this package, exact names") {
  CHECK(ChildDeniedTools() ==
        std::vector<std::string>{"bash", "edit", "write", "powershell", "fusion_reason",
                                 "fusion_investigate", "fusion_research", "fusion_validate",
                                 "fusion_brainstorm", "bg_result", "bg_status", "bg_kill"});
}

// Every `enum` that lists a workflow and every `pattern` of a run id (any workflow's), anywhere in
// `value`.
void CollectWorkflowSpellings(const json& value, const std::string& where,
                              std::vector<std::pair<std::string, json>>* enums,
                              std::vector<std::pair<std::string, std::string>>* patterns) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      const std::string at = where + "/" + key;
      if (key == "enum" && child.is_array() &&
          std::find(child.begin(), child.end(), json("investigate")) != child.end()) {
        enums->emplace_back(at, child);
      }
      if (key == "pattern" && child.is_string() &&
          child.get<std::string>().find("-[0-9a-f]{32}$") != std::string::npos) {
        patterns->emplace_back(at, child.get<std::string>());
      }
      CollectWorkflowSpellings(child, at, enums, patterns);
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      CollectWorkflowSpellings(value[i], where + "/" + std::to_string(i), enums, patterns);
    }
  }
}

TEST_CASE("Schemas: every workflow enum and run-id pattern is spelled from the table") {
  std::vector<std::pair<std::string, json>> enums;
  std::vector<std::pair<std::string, std::string>> patterns;
  for (const std::string& file : testing::ListSourceFiles("schemas", ".json")) {
    CollectWorkflowSpellings(testing::LoadSourceJson(file), file, &enums, &patterns);
  }
  // The check sees them: the artifact schemas carry both in many places.
  CHECK(enums.size() >= 5);
  CHECK(patterns.size() >= 5);
  // A list names every workflow, or (the clean-task input) exactly the clean-task ones.
  std::vector<std::string> clean_task;
  for (Workflow w : kAllWorkflows) {
    if (SpecOf(w).context == ContextPolicy::kCleanTask) clean_task.emplace_back(Name(w));
  }
  for (const auto& [where, list] : enums) {
    INFO(where);
    CHECK((list == json(WorkflowNames()) || list == json(clean_task)));
  }
  // A run id of any workflow, or (the source policy) of exactly the workflows that declare sources.
  const std::string declaring = RunIdPatternOf(DeclaringWorkflowNames());
  bool source_policy_seen = false;
  for (const auto& [where, pattern] : patterns) {
    INFO(where);
    const bool source_policy = where.find("fusion-source-policy") != std::string::npos;
    source_policy_seen = source_policy_seen || source_policy;
    CHECK(pattern == (source_policy ? declaring : RunIdPattern()));
  }
  CHECK(source_policy_seen);
}

TEST_CASE("Source policy: binds a run id of exactly the workflows whose row declares sources") {
  const std::string hex(32, 'a');
  for (Workflow w : kAllWorkflows) {
    INFO(Name(w));
    const url::SourcePolicy policy{std::string(Name(w)) + "-" + hex, {"https://example.com/"}};
    Result<std::string> bytes = url::SourcePolicyJson(policy);
    REQUIRE(bytes.ok());
    CHECK(url::ParseSourcePolicy(*bytes).ok() == SpecOf(w).declares_sources);
  }
}

}  // namespace
}  // namespace pi_fusion::workflow
