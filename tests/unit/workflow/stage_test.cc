// Stage prompts and stdin payloads (src/workflow/stage_prompts.h, stage_inputs.h).
#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "pi_fusion/canonical_json.h"
#include "workflow/clean_task.h"
#include "workflow/stage_inputs.h"
#include "workflow/stage_prompts.h"
#include "workflow/workflow_constants.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;
using pi_fusion::testing::CheckAgainstSchema;
using pi_fusion::testing::LoadArtifactSchema;

CanonicalDocument Input() {
  auto request = schema::NormalizeFusionCall(
      "fusion_investigate",
      {{"objective", "o"}, {"background", json::array()}, {"deliverable", "d"}});
  REQUIRE(request.ok());
  auto input = BuildCleanTaskInput("/r", request.value());
  REQUIRE(input.ok());
  return input.value();
}

std::vector<AnonymousCandidate> Candidates() {
  return {{"C", "answer c"}, {"A", "answer \"a\"\n"}, {"B", "answer b — é"}};
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("StagePrompts: candidates get the exact limit, limitations and anonymity",
          "[workflow][prompts]") {
  for (Workflow w : {Workflow::kReason, Workflow::kInvestigate, Workflow::kResearch}) {
    const std::string prompt = CandidateSystemPromptOf(SpecOf(w));
    CHECK(Contains(prompt, "Hard maximum: 49,152 JSON-rendered UTF-8 bytes"));
    CHECK(Contains(prompt, "\"Limitations\" section"));
    CHECK(Contains(prompt, "Do not name or guess providers, models, slots"));
    CHECK(prompt == CandidateSystemPromptOf(SpecOf(w)));
  }
  const std::string reason = CandidateSystemPromptOf(SpecOf(Workflow::kReason));
  CHECK(Contains(reason, "You have no tools."));
  CHECK(Contains(reason, "\"session_projection\""));
  CHECK_FALSE(Contains(reason, "fusion_web_fetch"));
  const std::string inspect = CandidateSystemPromptOf(SpecOf(Workflow::kInvestigate));
  CHECK(Contains(inspect, "read, grep, find and ls"));
  CHECK(Contains(inspect, "\"clean_task\""));
  CHECK_FALSE(Contains(inspect, "fusion_web_fetch"));
  CHECK(Contains(CandidateSystemPromptOf(SpecOf(Workflow::kResearch)), "request.sources"));
}

TEST_CASE("StagePrompts: evaluator, repair and merger contracts", "[workflow][prompts]") {
  const std::string evaluator = EvaluatorSystemPrompt();
  CHECK(Contains(evaluator, "Hard maximum: 65,536 JSON-rendered UTF-8 bytes"));
  CHECK(Contains(evaluator, "pi-background-tasks.fusion-blind-candidates.v1"));
  CHECK(Contains(evaluator, "no Markdown code fence"));
  CHECK(Contains(evaluator, "Do not score, rank, vote or pick a winner"));
  const std::string repair = EvaluationRepairSystemPrompt();
  CHECK(repair.starts_with(evaluator));
  CHECK(Contains(repair, "pi-background-tasks.fusion-evaluation-repair-input.v1"));
  const std::string merger = MergerSystemPrompt();
  CHECK(Contains(merger, "Hard maximum: 65,536 JSON-rendered UTF-8 bytes"));
  CHECK(Contains(merger, "in Markdown"));
  CHECK(Contains(merger, "Do not mention the candidates, their letters"));
  CHECK(Contains(merger, "pi-background-tasks.fusion-merge-input.v1"));
}

TEST_CASE("StageInputs: candidate stdin survives Pi's trim", "[workflow][inputs]") {
  const CanonicalDocument input = Input();
  const std::string stdin_text = CandidateStdin(input);
  CHECK(stdin_text == std::string(kCandidateInstruction) + "\n\n" + input.bytes);
  CHECK_FALSE(std::isspace(static_cast<unsigned char>(stdin_text.front())));
  CHECK(stdin_text.back() == '}');
}

TEST_CASE("StageInputs: blind, repair and merge inputs are canonical, closed and ordered",
          "[workflow][inputs]") {
  const CanonicalDocument input = Input();
  auto blind = BuildBlindInput(input, Candidates());
  REQUIRE(blind.ok());
  CHECK(blind->bytes == CanonicalJson(blind->value));
  CHECK(
      blind->bytes ==
      R"({"candidates":[{"candidate_id":"A","response":"answer \"a\"\n"},)"
      R"({"candidate_id":"B","response":"answer b — é"},{"candidate_id":"C","response":"answer c"}],)"
      R"("canonical_input":)" +
          input.bytes + R"(,"schema_version":"pi-background-tasks.fusion-blind-candidates.v1"})");
  CHECK(CheckAgainstSchema(LoadArtifactSchema("fusion-blind-candidates.v1.json"), blind->value)
            .empty());

  auto repair = BuildRepairInput(*blind, "```json\n{} \xff", {{"$", "not JSON"}});
  REQUIRE(repair.ok());
  CHECK(repair->value["original_blind_input"] == blind->value);
  CHECK(repair->value["invalid_output"] == "```json\n{} \xef\xbf\xbd");
  CHECK(repair->value["validation_errors"] == json::array({"$: not JSON"}));
  CHECK(CheckAgainstSchema(LoadArtifactSchema("fusion-evaluation-repair-input.v1.json"),
                           repair->value)
            .empty());

  const json evaluation = json::parse(EvaluationTemplate());
  auto merge = BuildMergeInput(input, Candidates(), evaluation);
  REQUIRE(merge.ok());
  CHECK(merge->value["evaluation"] == evaluation);
  CHECK(merge->value["candidates"] == blind->value["candidates"]);
  CHECK(merge->value["canonical_input"] == input.value);
  CHECK(CheckAgainstSchema(LoadArtifactSchema("fusion-merge-input.v1.json"), merge->value).empty());
}

TEST_CASE("StageInputs: refuse anything but exactly A, B and C", "[workflow][inputs]") {
  const CanonicalDocument input = Input();
  const std::vector<std::vector<AnonymousCandidate>> bad = {
      {{"A", "a"}, {"B", "b"}},
      {{"A", "a"}, {"B", "b"}, {"B", "b"}},
      {{"A", "a"}, {"B", "b"}, {"D", "d"}},
      {{"A", "a"}, {"B", "b"}, {"C", "c"}, {"C", "c"}},
  };
  for (const auto& candidates : bad) {
    CHECK(BuildBlindInput(input, candidates).status().code() == kOrchestrationFailed);
    CHECK(BuildMergeInput(input, candidates, json::object()).status().code() ==
          kOrchestrationFailed);
  }
}

}  // namespace pi_fusion::workflow
