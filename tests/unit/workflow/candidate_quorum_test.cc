// The candidate phase's quorum rule (src/workflow/candidate_quorum.h).
#include "workflow/candidate_quorum.h"

#include <catch2/catch.hpp>

#include "core/error_codes.h"
#include "workflow/stage_inputs.h"
#include "workflow/stage_prompts.h"

namespace pi_fusion::workflow {
namespace {

using Next = CandidateQuorum::Next;
using Reason = MissingCandidate::Reason;

Status Err(const char* code) { return Status::Error(code, std::string(code) + " happened"); }
const Status kOk = Status::Ok();

CandidateQuorum Quorum(int quorum, std::optional<double> grace = std::nullopt) {
  return CandidateQuorum(quorum, grace, 15);
}

}  // namespace

TEST_CASE("IsSurvivableCandidateFailure: provider errors, timeouts, limits and its cost share only",
          "[workflow][quorum]") {
  for (const char* code : {kChildExitFailed, kChildTimeout, kChildRuntimeLimitExceeded,
                           kCostCapExceeded, kChildStalled}) {
    CHECK(IsSurvivableCandidateFailure(Err(code)));
  }
  for (const char* code :
       {kToolAuditInvalid, kChildEventInvalid, kChildOutputCap, kChildCancelled, kArtifactError,
        kChildRuntimePayloadInvalid, kChildCachePolicyInvalid, kOrchestrationFailed}) {
    CHECK_FALSE(IsSurvivableCandidateFailure(Err(code)));
  }
}

TEST_CASE("GraceWindowSeconds: the configured window, else max(floor, half the second's time)",
          "[workflow][quorum]") {
  CHECK(GraceWindowSeconds(1.5, 15, 100) == 1.5);
  CHECK(GraceWindowSeconds(0, 15, 100) == 0);
  CHECK(GraceWindowSeconds(std::nullopt, 15, 10) == 15);
  CHECK(GraceWindowSeconds(std::nullopt, 15, 40) == 20);
  CHECK(GraceWindowSeconds(std::nullopt, 15, 41.234) == Approx(20.6));
}

TEST_CASE("CandidateQuorum 3: the first failure in time fails the run and stops the rest",
          "[workflow][quorum]") {
  CandidateQuorum q = Quorum(3);
  CHECK(q.Record(2, kOk, 1) == Next::kWait);
  CHECK(q.Record(3, Err(kChildExitFailed), 2) == Next::kStopOthers);
  CHECK(q.Record(1, Err(kChildCancelled), 3) == Next::kWait);
  CHECK_FALSE(q.grace_seconds());
  CHECK(q.CutAfterGrace() == 0);
  const auto out = q.Finish();
  REQUIRE(out.failure);
  CHECK(out.failure->status.code() == kChildExitFailed);
  CHECK(out.failure->slot == 3);
  CHECK_FALSE(out.missing);
}

TEST_CASE("CandidateQuorum 3: three verified answers, no grace, nothing missing",
          "[workflow][quorum]") {
  CandidateQuorum q = Quorum(3);
  for (int slot = 1; slot <= 3; ++slot) CHECK(q.Record(slot, kOk, slot) == Next::kWait);
  CHECK_FALSE(q.grace_seconds());
  const auto out = q.Finish();
  CHECK_FALSE(out.failure);
  CHECK_FALSE(out.missing);
}

TEST_CASE("CandidateQuorum: a cancellation nobody failed for is the run's own, lowest slot first",
          "[workflow][quorum]") {
  for (int quorum : {2, 3}) {
    CandidateQuorum q = Quorum(quorum);
    CHECK(q.Record(3, Err(kChildCancelled), 1) == Next::kWait);
    CHECK(q.Record(1, kOk, 1) == Next::kWait);
    CHECK(q.Record(2, Err(kChildCancelled), 1) == Next::kWait);
    const auto out = q.Finish();
    REQUIRE(out.failure);
    CHECK(out.failure->status.code() == kChildCancelled);
    CHECK(out.failure->slot == 2);
  }
}

TEST_CASE("CandidateQuorum 2: a candidate that fails survivably is left out",
          "[workflow][quorum]") {
  for (const char* code :
       {kChildExitFailed, kChildTimeout, kChildRuntimeLimitExceeded, kChildStalled}) {
    CandidateQuorum q = Quorum(2);
    CHECK(q.Record(3, Err(code), 1) == Next::kWait);
    CHECK(q.Record(1, kOk, 2) == Next::kWait);
    // The last one running ends the phase: there is nothing to wait a grace for.
    CHECK(q.Record(2, kOk, 3) == Next::kWait);
    CHECK_FALSE(q.grace_seconds());
    const auto out = q.Finish();
    CHECK_FALSE(out.failure);
    REQUIRE(out.missing);
    CHECK(out.missing->slot == 3);
    CHECK(out.missing->reason == Reason::kFailed);
    CHECK(out.missing->code == code);
    CHECK_FALSE(out.missing->grace_seconds);
    CHECK(std::string(MissingReasonName(out.missing->reason)) == "failed");
  }
}

TEST_CASE("CandidateQuorum 2: a failure after two verified answers, inside the grace",
          "[workflow][quorum]") {
  CandidateQuorum q = Quorum(2, 5);
  CHECK(q.Record(1, kOk, 1) == Next::kWait);
  CHECK(q.Record(2, kOk, 2) == Next::kStartGrace);
  CHECK(q.grace_seconds() == 5);
  CHECK(q.Record(3, Err(kChildTimeout), 3) == Next::kWait);
  CHECK(q.CutAfterGrace() == 0);  // it ended already
  const auto out = q.Finish();
  CHECK_FALSE(out.failure);
  REQUIRE(out.missing);
  CHECK(out.missing->slot == 3);
  CHECK(out.missing->reason == Reason::kFailed);
  CHECK(out.missing->code == kChildTimeout);
}

TEST_CASE("CandidateQuorum 2: a second lost candidate fails the run with the first failure",
          "[workflow][quorum]") {
  CandidateQuorum q = Quorum(2);
  CHECK(q.Record(2, Err(kChildExitFailed), 1) == Next::kWait);
  CHECK(q.Record(1, Err(kChildTimeout), 2) == Next::kStopOthers);
  CHECK(q.Record(3, Err(kChildCancelled), 3) == Next::kWait);
  const auto out = q.Finish();
  REQUIRE(out.failure);
  CHECK(out.failure->status.code() == kChildExitFailed);
  CHECK(out.failure->slot == 2);
  CHECK_FALSE(out.missing);
}

TEST_CASE("CandidateQuorum 2: an audit failure stays fatal, even after two verified answers",
          "[workflow][quorum]") {
  CandidateQuorum q = Quorum(2, 10);
  CHECK(q.Record(1, kOk, 1) == Next::kWait);
  CHECK(q.Record(3, kOk, 2) == Next::kStartGrace);
  CHECK(q.Record(2, Err(kToolAuditInvalid), 3) == Next::kStopOthers);
  CHECK(q.CutAfterGrace() == 0);
  const auto out = q.Finish();
  REQUIRE(out.failure);
  CHECK(out.failure->status.code() == kToolAuditInvalid);
  CHECK(out.failure->slot == 2);
  CHECK_FALSE(out.missing);
}

TEST_CASE("CandidateQuorum 2: a fatal failure after a survivable one is the run's error",
          "[workflow][quorum]") {
  CandidateQuorum q = Quorum(2);
  CHECK(q.Record(1, Err(kChildExitFailed), 1) == Next::kWait);
  CHECK(q.Record(2, Err(kChildOutputCap), 2) == Next::kStopOthers);
  CHECK(q.Record(3, Err(kChildCancelled), 3) == Next::kWait);
  const auto out = q.Finish();
  REQUIRE(out.failure);
  CHECK(out.failure->status.code() == kChildOutputCap);
  CHECK(out.failure->slot == 2);
}

TEST_CASE("CandidateQuorum 2: the straggler is cut when the grace ends", "[workflow][quorum]") {
  CandidateQuorum q = Quorum(2);  // the default rule: max(15, 40 / 2) = 20
  CHECK(q.Record(2, kOk, 10) == Next::kWait);
  CHECK(q.Record(1, kOk, 40) == Next::kStartGrace);
  CHECK(q.grace_seconds() == 20);
  CHECK(q.CutAfterGrace() == 3);
  CHECK(q.CutAfterGrace() == 0);  // once
  // Its end after the cut (cancelled, or any failure the cut caused) changes nothing.
  CHECK(q.Record(3, Err(kChildCancelled), 70) == Next::kWait);
  const auto out = q.Finish();
  CHECK_FALSE(out.failure);
  REQUIRE(out.missing);
  CHECK(out.missing->slot == 3);
  CHECK(out.missing->reason == Reason::kCutAfterGrace);
  CHECK(out.missing->code.empty());
  CHECK(out.missing->grace_seconds == 20);
  CHECK(std::string(MissingReasonName(out.missing->reason)) == "cut_after_grace");
}

TEST_CASE("CandidateQuorum 2: an answer that lands after the cut but before the phase ends is used",
          "[workflow][quorum]") {
  CandidateQuorum q = Quorum(2, 1);
  CHECK(q.Record(1, kOk, 1) == Next::kWait);
  CHECK(q.Record(3, kOk, 1) == Next::kStartGrace);
  CHECK(q.CutAfterGrace() == 2);
  CHECK(q.Record(2, kOk, 3) == Next::kWait);
  const auto out = q.Finish();
  CHECK_FALSE(out.failure);
  CHECK_FALSE(out.missing);
}

TEST_CASE("CandidateQuorum 2: three answers inside the grace, nothing missing",
          "[workflow][quorum]") {
  CandidateQuorum q = Quorum(2, 3);
  CHECK(q.Record(1, kOk, 1) == Next::kWait);
  CHECK(q.Record(2, kOk, 1) == Next::kStartGrace);
  CHECK(q.Record(3, kOk, 2) == Next::kWait);
  CHECK(q.CutAfterGrace() == 0);
  const auto out = q.Finish();
  CHECK_FALSE(out.failure);
  CHECK_FALSE(out.missing);
}

TEST_CASE("A quorum-2 run's later stages: two or three in the prompts, A and B in the inputs",
          "[workflow][quorum]") {
  // Quorum 3 keeps its three-candidate wording; the stage golden tests hold its bytes.
  for (const std::string& prompt : {EvaluatorSystemPrompt(CandidateSet::kTwoOrThree),
                                    EvaluationRepairSystemPrompt(CandidateSet::kTwoOrThree),
                                    MergerSystemPrompt(CandidateSet::kTwoOrThree)}) {
    CHECK(prompt.find("two or three") != std::string::npos);
  }
  CHECK(EvaluatorSystemPrompt().find("two or three") == std::string::npos);
  CHECK(MergerSystemPrompt().find("two or three") == std::string::npos);
  CHECK(EvaluatorSystemPrompt(CandidateSet::kTwoOrThree)
            .find("one assessment for each candidate in the input (A and B, or A, B and C)") !=
        std::string::npos);

  const CanonicalDocument input = *MakeCanonicalDocument(nlohmann::json{{"schema_version", "x"}},
                                                         kOrchestrationFailed, "the input");
  Result<CanonicalDocument> two = BuildBlindInput(input, {{"B", "b"}, {"A", "a"}}, 2);
  REQUIRE(two.ok());
  CHECK(two->bytes.find(R"("candidate_id":"C")") == std::string::npos);
  CHECK(two->value["candidates"].size() == 2);
  CHECK_FALSE(BuildBlindInput(input, {{"A", "a"}, {"C", "c"}}, 2).ok());
  CHECK_FALSE(BuildBlindInput(input, {{"A", "a"}, {"B", "b"}}).ok());  // three unless told
}

// Bug: a resumed quorum-2 run that reused two answers started the grace window at once (the
// reused answers "took" no time), so the third candidate, the one the resume ran for, was cut
// after the 15 s floor and the run answered degraded.
TEST_CASE("CandidateQuorum 2: reused answers never start the grace window", "[workflow][quorum]") {
  SECTION("two reused: the third runs to its own end, and is used") {
    CandidateQuorum q = Quorum(2);
    CHECK(q.Record(1, kOk, 0.01, /*reused=*/true) == Next::kWait);
    CHECK(q.Record(2, kOk, 0.01, /*reused=*/true) == Next::kWait);
    CHECK_FALSE(q.grace_seconds());
    CHECK(q.CutAfterGrace() == 0);
    CHECK(q.Record(3, kOk, 20) == Next::kWait);
    const auto out = q.Finish();
    CHECK_FALSE(out.failure);
    CHECK_FALSE(out.missing);
  }
  SECTION("one reused, one that ran: the window starts, from the running one's own time") {
    CandidateQuorum q = Quorum(2);
    CHECK(q.Record(1, kOk, 0.01, /*reused=*/true) == Next::kWait);
    CHECK(q.Record(2, kOk, 60) == Next::kStartGrace);
    CHECK(q.grace_seconds() == 30);
  }
  SECTION("the running one first, the reused one second: the running one's time still rules") {
    CandidateQuorum q = Quorum(2);
    CHECK(q.Record(2, kOk, 44) == Next::kWait);
    CHECK(q.Record(1, kOk, 0.01, /*reused=*/true) == Next::kStartGrace);
    CHECK(q.grace_seconds() == 22);
  }
}

// Bug: now + a huge window overflowed the clock's nanoseconds and wrapped into the past, so the
// third candidate was cut at once.
TEST_CASE("GraceDeadline: never before now, saturating at the clock's end", "[workflow][quorum]") {
  const Clock::TimePoint now = Clock::TimePoint() + std::chrono::hours(24 * 365);
  CHECK(GraceDeadline(now, 1.5) - now == std::chrono::milliseconds(1500));
  CHECK(GraceDeadline(now, 0) == now);
  CHECK(GraceDeadline(now, 1e11) == Clock::TimePoint::max());
  CHECK(GraceDeadline(now, 1e300) == Clock::TimePoint::max());
  CHECK(GraceDeadline(now, 3000) > now);
}

}  // namespace pi_fusion::workflow
