// RunStore::Fail: error.json, then the terminal manifest, then one failure-summary attempt bound
// by the manifest; what each injected fault leaves behind; and the summary's content rules.
#include <cerrno>
#include <set>

#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "pi_fusion/sha256.h"
#include "store/constants.h"
#include "store/failure_summary.h"
#include "store/verify.h"
#include "test_support.h"

using nlohmann::json;
using namespace pi_fusion::store;
using pi_fusion::Stage;
using namespace pi_fusion::store::testing;

namespace {

RunError CandidateError() {
  return RunError{"child_exit_failed", "candidate 2 exited with status 1", Stage::kCandidate, 2, 1};
}

Manifest DiskManifest(const StoreFixture& f) {
  auto m = ReadManifest(pi_fusion::PosixFileSystem(), f.store->run_dir());
  REQUIRE(m.ok());
  return m.value();
}

json ReadSummary(const StoreFixture& f) {
  return json::parse(ReadAll(f.Path(kFailureSummaryFile)));
}

}  // namespace

TEST_CASE("Fail: error.json, terminal manifest, failure summary, then the binding manifest",
          "[store][fail]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  f.RecordCandidates();
  const size_t before = f.fs.published().size();
  const FailReport report = f.store->Fail(RunState::kFailed, CandidateError());
  CHECK(report.terminal.ok());
  CHECK(report.summary.ok());
  CHECK(report.summary_note.empty());
  const auto published = f.fs.published();
  CHECK(std::vector<std::string>(published.begin() + before, published.end()) ==
        std::vector<std::string>{"error.json", "manifest.json", "failure-summary.json",
                                 "manifest.json"});
  const Manifest m = DiskManifest(f);
  CHECK(m.state == RunState::kFailed);
  CHECK(m.error == CandidateError());
  REQUIRE(report.summary_ref.has_value());
  CHECK(m.artifacts.at(kFailureSummaryFile) == *report.summary_ref);
  CHECK(m.artifacts.at(kFailureSummaryFile).sha256 ==
        pi_fusion::Sha256Ref(ReadAll(f.Path(kFailureSummaryFile))));
  const json error = json::parse(ReadAll(f.Path(kErrorFile)));
  CHECK(error["error"]["code"] == "child_exit_failed");
  CHECK(error["state"] == "failed");
  CHECK(ModeOf(f.Path(kErrorFile)) == 0600);
  CHECK(ModeOf(f.Path(kFailureSummaryFile)) == 0600);
}

TEST_CASE("Fail: the summary holds no response text and describes the durable manifest",
          "[store][fail]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  f.RecordCandidates();
  REQUIRE(f.store->Fail(RunState::kFailed, CandidateError()).summary.ok());
  const std::string bytes = ReadAll(f.Path(kFailureSummaryFile));
  CHECK(bytes.find("candidate answer") == std::string::npos);
  const json summary = json::parse(bytes);
  CHECK(summary["answer"] == json{{"present", false}, {"reason", "run_did_not_commit"}});
  CHECK(summary["usage"] == UsageToJson(DiskManifest(f).usage));
  CHECK(summary["evidence"].size() == 4);  // three responses and error.json
  CHECK_FALSE(bytes.find("manifest.json") != std::string::npos);
  CHECK(summary["classifications"]["failure_class"] == "child_process");
  // Bug: a run a resume can take said retry_run, which pays again for its verified answers.
  CHECK(summary["remediation_ids"] == json{"inspect_attempt_stderr", "resume_run"});
}

TEST_CASE("Fail: a run with nothing to resume keeps retry_run", "[store][fail]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  REQUIRE(f.store->Fail(RunState::kFailed, CandidateError()).summary.ok());
  const json summary = json::parse(ReadAll(f.Path(kFailureSummaryFile)));
  CHECK(summary["remediation_ids"] == json{"inspect_attempt_stderr", "retry_run"});
}

TEST_CASE("Fail: a summary write failure is noted and the terminal manifest stands",
          "[store][fail]") {
  struct Case {
    const char* what;
    FsOp op;
    std::string path_part;
    int skip;
    bool summary_file_remains;
  };
  const Case cases[] = {
      {"ENOSPC writing the summary", FsOp::kAppend, "failure-summary.json", 0, false},
      {"EIO syncing the summary", FsOp::kSync, "failure-summary.json", 0, false},
      {"binding manifest cannot be written", FsOp::kRename, "manifest.json", 1, true},
      {"the terminal manifest cannot be re-read", FsOp::kReadFile, "manifest.json", 0, false},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    StoreFixture f;
    f.WalkTo(RunState::kEvaluating);
    f.fs.FailOn(c.op, ENOSPC, c.path_part, c.skip);
    const FailReport report = f.store->Fail(RunState::kFailed, {"evaluation_invalid", "bad JSON"});
    CHECK(report.terminal.ok());
    CHECK(report.summary.code() == pi_fusion::kArtifactError);
    CHECK_FALSE(report.summary_ref.has_value());
    CHECK(report.summary_note.rfind("failure summary unavailable: ", 0) == 0);
    CHECK(report.summary_note.size() <= kSummaryNoteMaxBytes);
    const Manifest m = DiskManifest(f);
    CHECK(m.state == RunState::kFailed);
    CHECK(m.artifacts.count(kErrorFile) == 1);
    CHECK(m.artifacts.count(kFailureSummaryFile) == 0);
    CHECK(Exists(f.Path(kFailureSummaryFile)) == c.summary_file_remains);
    const auto names = pi_fusion::PosixFileSystem().ListDir(f.store->run_dir());
    REQUIRE(names.ok());
    for (const auto& name : names.value()) {
      CHECK_FALSE(pi_fusion::IsDurableTempName(name));
    }
  }
}

TEST_CASE("Fail: an error.json failure does not keep the run from becoming terminal",
          "[store][fail]") {
  StoreFixture f;
  f.fs.FailOn(FsOp::kAppend, ENOSPC, "error.json");
  const FailReport report = f.store->Fail(RunState::kCancelled, {"child_cancelled", "bg_kill"});
  CHECK(report.terminal.code() == pi_fusion::kArtifactError);
  CHECK(report.terminal.message().find("error.json") != std::string::npos);
  const Manifest m = DiskManifest(f);
  CHECK(m.state == RunState::kCancelled);
  CHECK(m.artifacts.count(kErrorFile) == 0);
  CHECK(report.summary.ok());
}

TEST_CASE("Fail: when the terminal manifest cannot be written the store is still over",
          "[store][fail]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  f.fs.FailOn(FsOp::kRename, EIO, "manifest.json");
  const FailReport report = f.store->Fail(RunState::kFailed, CandidateError());
  CHECK(report.terminal.code() == pi_fusion::kArtifactError);
  CHECK_FALSE(report.summary.ok());
  CHECK(DiskManifest(f).state == RunState::kCandidatesRunning);
  CHECK(f.store->Snapshot().state == RunState::kFailed);
  CHECK(f.store->Transition(RunState::kCandidatesComplete).code() ==
        pi_fusion::kStateTransitionInvalid);
  CHECK_FALSE(Exists(f.Path(kFailureSummaryFile)));
}

TEST_CASE("Fail: only failed/cancelled, only once", "[store][fail]") {
  StoreFixture f;
  for (RunState bad : {RunState::kCompleted, RunState::kMerging, RunState::kInitializing}) {
    CHECK(f.store->Fail(bad, CandidateError()).terminal.code() ==
          pi_fusion::kStateTransitionInvalid);
  }
  CHECK_FALSE(Exists(f.Path(kErrorFile)));
  REQUIRE(f.store->Fail(RunState::kCancelled, {"child_cancelled", "stop"}).terminal.ok());
  const std::string manifest = ReadAll(f.Path(kManifestFile));
  const FailReport again = f.store->Fail(RunState::kFailed, CandidateError());
  CHECK(again.terminal.code() == pi_fusion::kStateTransitionInvalid);
  CHECK(ReadAll(f.Path(kManifestFile)) == manifest);
}

namespace {

// Records attempts of `f`'s run, each with one unit of usage and, when `code` is set, an error.
auto AttemptRecorder(StoreFixture& f) {
  return [&f](AttemptKey key, AttemptState state, const char* code = nullptr) {
    std::optional<AttemptError> error;
    if (code != nullptr) error = AttemptError{code, "x"};
    REQUIRE(f.store->RecordAttempt({key, state, SampleUsage(1), error}).ok());
  };
}

}  // namespace

TEST_CASE("FailureSummary: progress counts each slot by its latest attempt", "[store][fail]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  const auto record = AttemptRecorder(f);
  record({Stage::kCandidate, 1, 1}, AttemptState::kCompleted);
  record({Stage::kCandidate, 2, 1}, AttemptState::kFailed, "child_spawn_failed");
  record({Stage::kCandidate, 2, 2}, AttemptState::kCompleted);
  record({Stage::kCandidate, 3, 1}, AttemptState::kRunning);
  f.WalkTo(RunState::kEvaluating);
  record({Stage::kEvaluation, std::nullopt, 1}, AttemptState::kFailed, "evaluation_invalid");
  REQUIRE(f.store->Fail(RunState::kFailed, {"evaluation_invalid", "twice"}).summary.ok());
  const json summary = ReadSummary(f);
  const json& p = summary["progress"];
  CHECK(p["children_started"] == 5);
  CHECK(p["candidates"] == json{{"attempts", 4},
                                {"completed", 2},
                                {"failed", 0},
                                {"cancelled", 0},
                                {"interrupted", 1},
                                {"not_started", 0}});
  CHECK(p["evaluation"] == json{{"attempts", 1},
                                {"completed", 0},
                                {"failed", 1},
                                {"cancelled", 0},
                                {"interrupted", 0},
                                {"not_started", 0}});
  CHECK(p["merge"] == json{{"attempts", 0},
                           {"completed", 0},
                           {"failed", 0},
                           {"cancelled", 0},
                           {"interrupted", 0},
                           {"not_started", 1}});
  // No agreement check or order check was asked: no rows for them.
  CHECK_FALSE(p.contains("agreement"));
  CHECK_FALSE(p.contains("order_check"));
  CHECK(summary["attempts"][1]["error_code"] == "child_spawn_failed");
  CHECK(summary["attempts"][3]["ended_at"].is_null());
  CHECK(summary["classifications"] ==
        json{{"failure_class", "evaluation"}, {"cancelled", false}, {"before_any_child", false}});
}

TEST_CASE("FailureSummary: a policy check the run asked has a progress row", "[store][fail]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  const auto record = AttemptRecorder(f);
  record({Stage::kCandidate, 1, 1}, AttemptState::kCompleted);
  record({Stage::kCandidate, 2, 1}, AttemptState::kCompleted);
  record({Stage::kAgreement, std::nullopt, 1}, AttemptState::kFailed, "evaluation_invalid");
  record({Stage::kAgreement, std::nullopt, 2}, AttemptState::kFailed, "evaluation_invalid");
  REQUIRE(f.store->Fail(RunState::kFailed, {"evaluation_invalid", "twice"}).summary.ok());
  const json summary = ReadSummary(f);
  const json& p = summary["progress"];
  CHECK(p["agreement"] == json{{"attempts", 2},
                               {"completed", 0},
                               {"failed", 1},
                               {"cancelled", 0},
                               {"interrupted", 0},
                               {"not_started", 0}});
  CHECK_FALSE(p.contains("order_check"));
  CHECK(p["candidates"]["not_started"] == 1);
}

TEST_CASE("FailureSummary: the spend so far per role and the run's model requests",
          "[store][fail]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  // Candidate 2 made a tool call: two model requests.
  for (int slot = 1; slot <= 3; ++slot) {
    AttemptUpdate done{{Stage::kCandidate, slot, 1},
                       AttemptState::kCompleted,
                       SampleUsage(static_cast<uint64_t>(slot) * 10)};
    done.requests = slot == 2 ? 2 : 1;
    REQUIRE(f.store->RecordAttempt(done).ok());
  }
  f.WalkTo(RunState::kEvaluating);
  AttemptUpdate evaluation{
      {Stage::kEvaluation, std::nullopt, 1}, AttemptState::kCompleted, SampleUsage(40)};
  evaluation.requests = 1;
  REQUIRE(f.store->RecordAttempt(evaluation).ok());
  f.WalkTo(RunState::kEvaluationComplete);
  // Stopped before the merger: no merger row.
  REQUIRE(
      f.store->Fail(RunState::kFailed, {"cost_cap_exceeded", "cap", Stage::kMerge}).summary.ok());
  const json summary = ReadSummary(f);
  CHECK(summary["usage_by_role"] ==
        json{RoleRow("candidate", 1, 1, 10), RoleRow("candidate", 2, 2, 20),
             RoleRow("candidate", 3, 1, 30), RoleRow("evaluator", std::nullopt, 1, 40)});
  CHECK(summary["model_requests"] == 5);
  CHECK(summary["usage"] == UsageToJson(DiskManifest(f).usage));
  CHECK(CheckFailureSummary(summary, DiskManifest(f)).ok());
}

TEST_CASE("FailureSummary: model requests are unknown when an attempt with usage has no count",
          "[store][fail]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  f.RecordCandidates();  // usage, but no request counts (as manifests before counts were kept)
  REQUIRE(f.store->Fail(RunState::kFailed, CandidateError()).summary.ok());
  const json summary = ReadSummary(f);
  CHECK(summary["model_requests"].is_null());
  REQUIRE(summary["usage_by_role"].size() == 3);
  CHECK(summary["usage_by_role"][1]["requests"].is_null());
  CHECK(summary["usage_by_role"][1]["usage"] == UsageToJson(SampleUsage(20)));
}

TEST_CASE("FailureSummary: a preflight failure says no child started", "[store][fail]") {
  StoreFixture f;
  REQUIRE(f.store->Fail(RunState::kFailed, {"prompt_budget_exceeded_forecast", "too big"})
              .summary.ok());
  const json summary = ReadSummary(f);
  CHECK(summary["progress"]["children_started"] == 0);
  CHECK(summary["progress"]["candidates"]["not_started"] == 3);
  CHECK(summary["classifications"]["before_any_child"] == true);
  CHECK(summary["classifications"]["failure_class"] == "budget");
  CHECK(summary["remediation_ids"][0] == "inspect_budget_plan");
}

TEST_CASE("FailureSummary: caps rows and the message and counts what it omitted", "[store][fail]") {
  StoreFixture f;
  for (int n = 1; n <= 30; ++n) {
    const AttemptKey key{Stage::kCandidate, 1, n};
    REQUIRE(f.store->RecordAttempt({key, AttemptState::kFailed}).ok());
  }
  for (int n = 0; n < 70; ++n) {
    REQUIRE(f.store->WriteArtifact("evidence-" + std::to_string(100 + n) + ".txt", "e").ok());
  }
  const std::string long_message = std::string(1023, 'm') + "\xc3\xa9" + std::string(2000, 'n');
  REQUIRE(f.store->Fail(RunState::kFailed, {"child_timeout", long_message}).summary.ok());
  const json summary = ReadSummary(f);
  CHECK(summary["attempts"].size() == kSummaryMaxAttempts);
  CHECK(summary["attempts"][0]["attempt"] == 7);  // the oldest six were omitted
  CHECK(summary["evidence"].size() == kSummaryMaxEvidence);
  CHECK(summary["terminal_error"]["message"] == std::string(1023, 'm'));  // no split character
  CHECK(summary["terminal_error"]["message_bytes"] == long_message.size());
  CHECK(summary["omitted"] == json{{"attempts", 6},
                                   {"evidence", 71 - 64},  // 70 files and error.json
                                   {"terminal_message_bytes", long_message.size() - 1023}});
}

TEST_CASE("RemediationIds: cancelled runs point at retrying, unknown codes at error.json",
          "[store][fail]") {
  CHECK(RemediationIds("child_cancelled", true) == std::vector<std::string>{"retry_run"});
  CHECK(RemediationIds("something_new", false) == std::vector<std::string>{"inspect_error_json"});
  CHECK(RemediationIds("child_output_cap", false) ==
        std::vector<std::string>{"inspect_oversized_response", "split_task"});
  CHECK(FailureClass("something_new") == "orchestration");
}

TEST_CASE("RemediationIds: a resumable run is resumed, never retried", "[store][fail]") {
  CHECK(RemediationIds("child_cancelled", true, true) == std::vector<std::string>{"resume_run"});
  CHECK(RemediationIds("host_ended", false, true) ==
        std::vector<std::string>{"check_host_exit", "resume_run"});
  // A code that never suggested a retry gets the resume last.
  CHECK(RemediationIds("cost_cap_exceeded", false, true) ==
        std::vector<std::string>{"raise_or_clear_cost_cap", "choose_cheaper_routes", "resume_run"});
  CHECK(RemediationIds("host_ended", false, false) ==
        std::vector<std::string>{"check_host_exit", "retry_run"});
}

// Regression: the codes this project added (CONTRACTS.md) fell through to the unknown-code rule,
// so a host that died, a bad reviewer pair or a broken audit log all read as "orchestration,
// inspect error.json", and tool_audit_invalid shared its class with frame errors.
TEST_CASE("FailureClass: each code this project adds has its own class and remediation",
          "[store][fail]") {
  struct Case {
    const char* code;
    const char* failure_class;
    std::vector<std::string> remediation;
  };
  const std::vector<Case> cases = {
      {"tool_audit_invalid", "tool_audit", {"inspect_tool_call_audit_log"}},
      {"validation_reports_invalid",
       "validation_reports",
       {"inspect_reviewer_reports", "retry_run"}},
      {"host_ended", "host", {"check_host_exit", "retry_run"}},
      {"random_unavailable", "system", {"check_os_randomness"}},
      {"invalid_arguments", "arguments", {"fix_tool_arguments"}},
      {"source_policy_invalid", "source_policy", {"inspect_source_policy", "retry_run"}},
      {"cost_cap_exceeded", "cost", {"raise_or_clear_cost_cap", "choose_cheaper_routes"}},
      {"run_not_resumable", "resume", {"read_result_or_start_new_run"}},
      {"child_stalled", "stall", {"inspect_attempt_stderr", "raise_stall_seconds"}},
  };
  std::set<std::string> classes = {
      "configuration", "context",      "budget",     "child_process", "child_protocol",
      "child_limit",   "cancellation", "evaluation", "artifact",      "orchestration"};
  for (const Case& c : cases) {
    INFO(c.code);
    CHECK(FailureClass(c.code) == c.failure_class);
    CHECK(RemediationIds(c.code, false) == c.remediation);
    CHECK(classes.insert(std::string(FailureClass(c.code))).second);  // shared with no other code
  }
}
