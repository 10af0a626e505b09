// ReadFailureView: the four summary statuses, the spend so far per role and the model requests
// (the summary's, or the manifest's for a summary without them), and fitting 8 KiB by dropping
// whole rows with omission counts.
#include <unistd.h>

#include <functional>

#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "store/constants.h"
#include "store/failure_view.h"
#include "test_support.h"

using nlohmann::json;
using namespace pi_fusion::store;
using pi_fusion::Stage;
using namespace pi_fusion::store::testing;

namespace {

json View(const StoreFixture& f) {
  auto view = ReadFailureView(pi_fusion::PosixFileSystem(), f.store->run_dir());
  REQUIRE(view.ok());
  return view.value();
}

// A failed run whose manifest and summary a test may edit.
struct EditableRun : StoreFixture {
  void EditManifest(const std::function<void(json&)>& edit) const {
    json m = json::parse(ReadAll(Path(kManifestFile)));
    edit(m);
    WriteAll(Path(kManifestFile), pi_fusion::CanonicalJson(m));
  }
  json Summary() const { return json::parse(ReadAll(Path(kFailureSummaryFile))); }
  // Writes `summary` and binds it in the manifest, so it verifies.
  void Rebind(const json& summary) const {
    const std::string bytes = pi_fusion::CanonicalJson(summary);
    WriteAll(Path(kFailureSummaryFile), bytes);
    EditManifest([&](json& m) {
      m["artifacts"]["failure-summary.json"]["byte_length"] = bytes.size();
      m["artifacts"]["failure-summary.json"]["sha256"] = pi_fusion::Sha256Ref(bytes);
    });
  }
};

struct FailedRun : EditableRun {
  FailedRun() {
    WalkTo(RunState::kCandidatesRunning);
    RecordCandidates();
    REQUIRE(store
                ->Fail(RunState::kFailed,
                       {"child_timeout", "candidate 3 timed out", Stage::kCandidate, 3, 1})
                .summary.ok());
  }
};

// Three candidates (candidate 2 with two model requests) and the evaluation, then stopped before
// the merger: no merger spend.
struct StoppedBeforeMerge : EditableRun {
  StoppedBeforeMerge() {
    WalkTo(RunState::kCandidatesRunning);
    for (int slot = 1; slot <= 3; ++slot) {
      AttemptUpdate done{{Stage::kCandidate, slot, 1},
                         AttemptState::kCompleted,
                         SampleUsage(static_cast<uint64_t>(slot) * 10)};
      done.requests = slot == 2 ? 2 : 1;
      REQUIRE(store->RecordAttempt(done).ok());
    }
    WalkTo(RunState::kEvaluating);
    AttemptUpdate evaluation{
        {Stage::kEvaluation, std::nullopt, 1}, AttemptState::kCompleted, SampleUsage(40)};
    evaluation.requests = 1;
    REQUIRE(store->RecordAttempt(evaluation).ok());
    WalkTo(RunState::kEvaluationComplete);
    REQUIRE(
        store->Fail(RunState::kFailed, {"cost_cap_exceeded", "cap", Stage::kMerge}).summary.ok());
  }
  // usage_by_role as this run spent it.
  static json Rows() {
    return {RoleRow("candidate", 1, 1, 10), RoleRow("candidate", 2, 2, 20),
            RoleRow("candidate", 3, 1, 30), RoleRow("evaluator", std::nullopt, 1, 40)};
  }
};

}  // namespace

TEST_CASE("FailureView: a bound, intact summary is verified", "[store][view]") {
  FailedRun run;
  const json view = View(run);
  CHECK(view["answer"] == json{{"present", false}, {"reason", "run_did_not_commit"}});
  CHECK(view["summary_status"] == "verified");
  CHECK(view["failure"]["code"] == "child_timeout");
  CHECK(view["failure"]["slot"] == 3);
  CHECK(view["evidence_artifacts"][0]["path"] == kFailureSummaryFile);
  CHECK(view["evidence_artifacts"].size() == 5);
  CHECK(view["attempts"].size() == 3);
  CHECK(view["progress"]["candidates"]["completed"] == 3);
  CHECK(view["usage_so_far"]["input"] == 60);
  // Candidates 1 and 2 verified: bg_result's details advise the resume (child_timeout never
  // suggested a retry, so it comes last).
  CHECK(view["remediation_ids"] == json{"inspect_attempt_stderr", "split_task", "resume_run"});
  CHECK(view["omitted"] == json{{"attempts", 0}, {"evidence_artifacts", 0}});
  CHECK(pi_fusion::CanonicalJson(view).find("candidate answer") == std::string::npos);
}

TEST_CASE("FailureView: summary statuses for missing, altered and foreign summaries",
          "[store][view]") {
  struct Case {
    const char* what;
    std::function<void(const FailedRun&)> change;
    const char* status;
  };
  const Case cases[] = {
      {"no summary bound",
       [](const FailedRun& r) {
         r.EditManifest([](json& m) { m["artifacts"].erase("failure-summary.json"); });
       },
       "legacy_manifest_only"},
      {"summary altered",
       [](const FailedRun& r) {
         std::string b = ReadAll(r.Path(kFailureSummaryFile));
         b[10] ^= 0x01;
         WriteAll(r.Path(kFailureSummaryFile), b);
       },
       "integrity_failed"},
      {"summary deleted", [](const FailedRun& r) { ::unlink(r.Path(kFailureSummaryFile).c_str()); },
       "integrity_failed"},
      {"summary of another run, rebound",
       [](const FailedRun& r) {
         json s = json::parse(ReadAll(r.Path(kFailureSummaryFile)));
         s["run_id"] = "reason-ffffffffffffffffffffffffffffffff";
         const std::string bytes = pi_fusion::CanonicalJson(s);
         WriteAll(r.Path(kFailureSummaryFile), bytes);
         r.EditManifest([&](json& m) {
           m["artifacts"]["failure-summary.json"]["byte_length"] = bytes.size();
           m["artifacts"]["failure-summary.json"]["sha256"] = pi_fusion::Sha256Ref(bytes);
         });
       },
       "integrity_failed"},
      {"summary claiming an answer, rebound",
       [](const FailedRun& r) {
         json s = json::parse(ReadAll(r.Path(kFailureSummaryFile)));
         s["answer"]["present"] = true;
         const std::string bytes = pi_fusion::CanonicalJson(s);
         WriteAll(r.Path(kFailureSummaryFile), bytes);
         r.EditManifest([&](json& m) {
           m["artifacts"]["failure-summary.json"]["byte_length"] = bytes.size();
           m["artifacts"]["failure-summary.json"]["sha256"] = pi_fusion::Sha256Ref(bytes);
         });
       },
       "integrity_failed"},
      {"manifest deleted", [](const FailedRun& r) { ::unlink(r.Path(kManifestFile).c_str()); },
       "unavailable"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    FailedRun run;
    c.change(run);
    const json view = View(run);
    CHECK(view["summary_status"] == c.status);
    CHECK(view["answer"]["present"] == false);
    if (std::string(c.status) == "unavailable") {
      CHECK(view["failure"]["code"] == "artifact_error");
      CHECK(view["progress"].is_null());
    } else {
      // Derived from the manifest with the summary's own rules.
      CHECK(view["failure"]["code"] == "child_timeout");
      CHECK(view["attempts"].size() == 3);
      CHECK(view["evidence_artifacts"].size() == 4);
    }
  }
}

TEST_CASE("FailureView: the spend so far per role and the run's model requests", "[store][view]") {
  StoppedBeforeMerge run;
  const json view = View(run);
  CHECK(view["summary_status"] == "verified");
  CHECK(view["usage_by_role"] == StoppedBeforeMerge::Rows());
  CHECK(view["model_requests"] == 5);
  CHECK(view["usage_so_far"] == run.Summary()["usage"]);
}

TEST_CASE("FailureView: the rows are the summary's; a summary without them gets the manifest's",
          "[store][view]") {
  SECTION("a verified summary's own figures") {
    StoppedBeforeMerge run;
    json summary = run.Summary();
    summary["model_requests"] = 7;
    summary["usage_by_role"].erase(3);
    run.Rebind(summary);
    const json view = View(run);
    CHECK(view["summary_status"] == "verified");
    CHECK(view["model_requests"] == 7);
    CHECK(view["usage_by_role"].size() == 3);
  }
  SECTION("a summary written before usage_by_role and model_requests existed") {
    StoppedBeforeMerge run;
    json summary = run.Summary();
    summary.erase("usage_by_role");
    summary.erase("model_requests");
    run.Rebind(summary);
    const json view = View(run);
    CHECK(view["summary_status"] == "verified");
    CHECK(view["usage_by_role"] == StoppedBeforeMerge::Rows());
    CHECK(view["model_requests"] == 5);
  }
  SECTION("no summary bound: derived from the manifest") {
    StoppedBeforeMerge run;
    run.EditManifest([](json& m) { m["artifacts"].erase("failure-summary.json"); });
    const json view = View(run);
    CHECK(view["summary_status"] == "legacy_manifest_only");
    CHECK(view["usage_by_role"] == StoppedBeforeMerge::Rows());
    CHECK(view["model_requests"] == 5);
  }
}

TEST_CASE("FailureView: a run that is not failed or cancelled has no failure view",
          "[store][view]") {
  StoreFixture f;
  auto view = ReadFailureView(pi_fusion::PosixFileSystem(), f.store->run_dir());
  CHECK(view.status().code() == pi_fusion::kArtifactError);
  CHECK(view.status().message().find("initializing") != std::string::npos);
}

TEST_CASE("FailureView: fits 8 KiB by dropping whole rows and counting them", "[store][view]") {
  StoreFixture f;
  for (int n = 1; n <= 30; ++n) {
    REQUIRE(f.store
                ->RecordAttempt({{Stage::kCandidate, 1 + n % 3, n},
                                 AttemptState::kFailed,
                                 SampleUsage(1),
                                 AttemptError{"child_exit_failed", "x"}})
                .ok());
  }
  for (int n = 0; n < 40; ++n) {
    REQUIRE(f.store->WriteArtifact(std::to_string(n) + std::string(100, 'e'), "e").ok());
  }
  REQUIRE(
      f.store->Fail(RunState::kFailed, {"child_exit_failed", std::string(3000, 'm')}).summary.ok());
  const json view = View(f);
  const size_t size = pi_fusion::CanonicalJson(view).size();
  CHECK(size <= kFailureViewMaxBytes);
  // Whole rows: 41 evidence refs + the summary's own, 30 attempts, minus the summary's caps.
  CHECK(view["evidence_artifacts"].size() + view["omitted"]["evidence_artifacts"].get<size_t>() ==
        42);
  CHECK(view["attempts"].size() + view["omitted"]["attempts"].get<size_t>() == 30);
  // Evidence goes first; attempts only once evidence is gone.
  if (!view["evidence_artifacts"].empty()) CHECK(view["attempts"].size() == kSummaryMaxAttempts);
  CHECK(view["evidence_artifacts"].size() < 42);
  for (const json& ref : view["evidence_artifacts"]) CHECK(ref.size() == 3);
  CHECK(view["failure"]["message"].get<std::string>().size() == kTerminalMessageMaxBytes);
}

TEST_CASE("FitFailureView: drops evidence from the end, then the oldest attempts",
          "[store][view]") {
  json view = {{"answer", {{"present", false}, {"reason", "run_did_not_commit"}}},
               {"summary_status", "verified"},
               {"failure", {{"code", "x"}, {"message", "m"}}},
               {"progress", nullptr},
               {"usage_so_far", nullptr},
               {"attempts", json::array()},
               {"evidence_artifacts", json::array()},
               {"remediation_ids", json::array()},
               {"omitted", {{"attempts", 2}, {"evidence_artifacts", 0}}}};
  for (int i = 0; i < 10; ++i) {
    view["attempts"].push_back({{"n", i}, {"pad", std::string(100, 'a')}});
    view["evidence_artifacts"].push_back({{"n", i}, {"pad", std::string(100, 'e')}});
  }
  // The view after dropping `evidence` rows from the end and `attempts` from the start.
  auto dropped = [&](size_t attempts, size_t evidence) {
    json v = view;
    v["attempts"].erase(v["attempts"].begin(), v["attempts"].begin() + attempts);
    v["evidence_artifacts"].erase(v["evidence_artifacts"].end() - evidence,
                                  v["evidence_artifacts"].end());
    v["omitted"] = {{"attempts", 2 + attempts}, {"evidence_artifacts", evidence}};
    return v;
  };
  struct Case {
    size_t budget;
    json expected;
  };
  const Case cases[] = {
      {pi_fusion::CanonicalJson(view).size(), view},
      {pi_fusion::CanonicalJson(view).size() - 1, dropped(0, 1)},
      {pi_fusion::CanonicalJson(dropped(0, 7)).size(), dropped(0, 7)},
      {pi_fusion::CanonicalJson(dropped(0, 10)).size(), dropped(0, 10)},
      {pi_fusion::CanonicalJson(dropped(0, 10)).size() - 1, dropped(1, 10)},
      {pi_fusion::CanonicalJson(dropped(9, 10)).size(), dropped(9, 10)},
  };
  for (const Case& c : cases) {
    INFO("budget " << c.budget);
    json v = view;
    FitFailureView(v, c.budget);
    CHECK(v == c.expected);
  }
}
