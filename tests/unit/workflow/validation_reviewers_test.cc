// Validate's minority rule (src/workflow/validation_reviewers.h) and its prompts' templates
// (src/workflow/validation_prompts.h).
#include "workflow/validation_reviewers.h"

#include <map>

#include <catch2/catch.hpp>

#include "workflow/stage_inputs.h"
#include "workflow/validation_prompts.h"
#include "workflow/validation_report.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

Status Err(const char* code) { return Status::Error(code, std::string(code) + " happened"); }

}  // namespace

TEST_CASE("ReviewerTally: one unusable reviewer is dropped, a second fails the run",
          "[workflow][validation]") {
  using Next = ReviewerTally::Next;
  struct End {
    int slot;
    Status status;
    Next next;
  };
  struct Case {
    const char* name;
    std::vector<End> ends;
    const char* failure_code;  // nullptr: the run goes on
    int failure_slot;
    size_t dropped;
  };
  const Status ok = Status::Ok();
  const std::vector<Case> cases = {
      {"three usable",
       {{1, ok, Next::kWait}, {2, ok, Next::kWait}, {3, ok, Next::kWait}},
       nullptr,
       0,
       0},
      {"a provider error is dropped",
       {{2, Err("child_exit_failed"), Next::kWait}, {1, ok, Next::kWait}, {3, ok, Next::kWait}},
       nullptr,
       0,
       1},
      {"a stalled reviewer is dropped",
       {{1, Err("child_stalled"), Next::kWait}, {2, ok, Next::kWait}, {3, ok, Next::kWait}},
       nullptr,
       0,
       1},
      {"an invalid report is dropped",
       {{3, Err("validation_reports_invalid"), Next::kWait},
        {1, ok, Next::kWait},
        {2, ok, Next::kWait}},
       nullptr,
       0,
       1},
      {"timeout and output cap: the second fails at once",
       {{1, Err("child_timeout"), Next::kWait},
        {3, Err("child_output_cap"), Next::kCancelOthers},
        {2, Err("child_cancelled"), Next::kWait}},
       "validation_reports_invalid",
       3,
       2},
      {"an audit failure is fatal",
       {{1, ok, Next::kWait},
        {2, Err("tool_audit_invalid"), Next::kCancelOthers},
        {3, Err("child_cancelled"), Next::kWait}},
       "tool_audit_invalid",
       2,
       0},
      {"a runtime guard refusal is fatal even after a drop",
       {{1, Err("child_exit_failed"), Next::kWait},
        {2, Err("child_runtime_limit_exceeded"), Next::kCancelOthers},
        {3, ok, Next::kWait}},
       "child_runtime_limit_exceeded",
       2,
       1},
      {"a protocol violation is fatal",
       {{3, Err("child_event_invalid"), Next::kCancelOthers}},
       "child_event_invalid",
       3,
       0},
      {"the run's cancellation is fatal",
       {{1, Err("child_cancelled"), Next::kCancelOthers}},
       "child_cancelled",
       1,
       0},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    ReviewerTally tally;
    for (const End& e : c.ends) CHECK(tally.Record(e.slot, e.status) == e.next);
    const auto failure = tally.failure();
    CHECK(failure.has_value() == (c.failure_code != nullptr));
    if (failure) {
      CHECK(failure->status.code() == c.failure_code);
      CHECK(failure->slot == c.failure_slot);
    }
    CHECK(tally.dropped().size() == c.dropped);
  }
}

TEST_CASE("ReviewerTally: the run's error names both unusable reviewers",
          "[workflow][validation]") {
  ReviewerTally tally;
  tally.Record(1, Status::Error("validation_reports_invalid", "the review is not valid"));
  tally.Record(2, Status::Error("child_exit_failed", "child ended with exit code 1"));
  CHECK(tally.failure()->status.message() ==
        "2 of 3 validation reviews are unusable; reviewer 1: validation_reports_invalid: the "
        "review is not valid; reviewer 2: child_exit_failed: child ended with exit code 1");
}

TEST_CASE("MoveDroppedToC: the other two reviewers become A and B, uniformly",
          "[workflow][validation]") {
  // Over the six equally likely draws, for each dropped slot: a bijection with the dropped slot
  // as C, and each of the two ways to letter the remaining slots exactly three times.
  const std::vector<std::array<std::string, 3>> perms = {{"A", "B", "C"}, {"A", "C", "B"},
                                                         {"B", "A", "C"}, {"B", "C", "A"},
                                                         {"C", "A", "B"}, {"C", "B", "A"}};
  for (int dropped = 1; dropped <= 3; ++dropped) {
    std::map<std::string, int> letterings;
    for (const auto& perm : perms) {
      const AnonymousMap map = MoveDroppedToC(AnonymousMap{perm}, dropped);
      INFO(perm[0] << perm[1] << perm[2] << " dropped " << dropped);
      CHECK(map.SlotOf("C") == dropped);
      CHECK(AnonymousMapFromJson(map.ToJson()).ok());
      ++letterings[map.candidate_for_slot[0] + map.candidate_for_slot[1] +
                   map.candidate_for_slot[2]];
    }
    CHECK(letterings.size() == 2);
    for (const auto& [lettering, count] : letterings) CHECK(count == 3);
  }
}

TEST_CASE("ValidationPrompts: the embedded templates satisfy their contracts",
          "[workflow][validation][prompts]") {
  CHECK(ReadValidationReport(ValidationReportTemplate()).ok());
  const EvaluationScope scope{{"A", "B", "C"},
                              std::vector<std::string>{"A-F001", "B-F001", "C-F001"}};
  CHECK(ValidateEvaluation(ValidationEvaluationTemplate(), scope).errors.empty());
  CHECK(ValidationReviewerSystemPrompt().find(ValidationReportTemplate()) != std::string::npos);
  CHECK(ValidationEvaluatorSystemPrompt().find(ValidationEvaluationTemplate()) !=
        std::string::npos);
  CHECK(ValidationRepairSystemPrompt().starts_with(ValidationEvaluatorSystemPrompt()));
  CHECK(ValidationReviewerSystemPrompt().find("49,152 JSON-rendered UTF-8 bytes") !=
        std::string::npos);
  CHECK(ValidationEvaluatorSystemPrompt().find("65,536 JSON-rendered UTF-8 bytes") !=
        std::string::npos);
  CHECK(ValidationMergerSystemPrompt().find("No headings") != std::string::npos);
}

}  // namespace pi_fusion::workflow
