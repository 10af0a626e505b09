// Every artifact the store writes conforms to its closed schema in schemas/artifacts/, and the
// definitions those self-contained files share stay identical.
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "store/constants.h"
#include "store/failure_summary.h"
#include "store/failure_view.h"
#include "store/usage_claim.h"
#include "test_support.h"

using nlohmann::json;
using namespace pi_fusion::store;
using pi_fusion::Stage;
using namespace pi_fusion::store::testing;
using pi_fusion::testing::CheckAgainstSchema;
using pi_fusion::testing::LoadArtifactSchema;

namespace {

json ReadJsonFile(const std::string& path) { return json::parse(ReadAll(path)); }

void CheckConforms(const std::string& schema_file, const json& value) {
  INFO(schema_file << ": " << value.dump());
  const auto violations = CheckAgainstSchema(LoadArtifactSchema(schema_file), value);
  for (const auto& v : violations) INFO(v);
  CHECK(violations.empty());
  if (!violations.empty()) FAIL_CHECK(violations.front());
}

// A run with every kind of attempt row: usage with subsets, errors, interrupted.
void RecordVariedAttempts(StoreFixture& f) {
  f.WalkTo(RunState::kCandidatesRunning);
  f.RecordCandidates();
  Usage with_subsets = SampleUsage(3);
  with_subsets.cache_write_1h = 2;
  with_subsets.reasoning = 1;
  with_subsets.cost.total_from_provider = true;
  REQUIRE(f.store->AddAttemptUsage({Stage::kCandidate, 1, 1}, with_subsets).ok());
  AttemptUpdate exited{{Stage::kCandidate, 1, 1}, AttemptState::kCompleted};
  exited.exit = ChildExitRecord{std::nullopt, 15, "after_answer", true, "2026-01-02T03:04:06.500Z"};
  exited.first_output_at = "2026-01-02T03:04:05.250Z";
  REQUIRE(f.store->RecordAttempt(exited).ok());
  f.WalkTo(RunState::kEvaluating);
  REQUIRE(f.store
              ->RecordAttempt({{Stage::kEvaluation, std::nullopt, 1},
                               AttemptState::kFailed,
                               SampleUsage(2),
                               AttemptError{"evaluation_invalid", "bad"}})
              .ok());
  REQUIRE(f.store->RecordAttempt({{Stage::kEvaluation, std::nullopt, 2}}).ok());
  REQUIRE(f.store->SetAnonymousMap({{"A", 3}, {"B", 1}, {"C", 2}}).ok());
  REQUIRE(f.store
              ->RecordWarmChild(Stage::kMerge, WarmChildOutcome::kUnused,
                                "2026-01-02T03:04:05.006Z", "stopped before its input")
              .ok());
  REQUIRE(f.store->RecordDroppedReviewer(3, "validation_reports_invalid", "not a report").ok());
  REQUIRE(f.store->RecordDegraded({2, "p/m", "cut_after_grace", std::nullopt, 15}).ok());
  REQUIRE(f.store->RecordAdaptive({false, "check", {"they differ"}, 0.002, false}).ok());
  REQUIRE(f.store->RecordAttempt({{Stage::kAgreement, std::nullopt, 1}}).ok());
}

}  // namespace

TEST_CASE("Schemas: manifests at every stage conform to fusion-manifest.v5", "[store][schema]") {
  StoreFixture f;
  CheckConforms("fusion-manifest.v5.json", ReadJsonFile(f.Path(kManifestFile)));
  RecordVariedAttempts(f);
  CheckConforms("fusion-manifest.v5.json", ReadJsonFile(f.Path(kManifestFile)));
  REQUIRE(f.store
              ->Fail(RunState::kFailed,
                     {"evaluation_invalid", "twice", Stage::kEvaluation, std::nullopt, 2})
              .summary.ok());
  CheckConforms("fusion-manifest.v5.json", ReadJsonFile(f.Path(kManifestFile)));
  CheckConforms("error.json", ReadJsonFile(f.Path(kErrorFile)));
  CheckConforms("fusion-failure-summary.v1.json", ReadJsonFile(f.Path(kFailureSummaryFile)));
}

TEST_CASE("Schemas: a completed run's manifest, result.json and usage claim conform",
          "[store][schema]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  f.RecordCandidates();
  f.WalkTo(RunState::kMerging);
  REQUIRE(f.store->CommitResult("answer", json{{"anything", {1, 2}}}).ok());
  CheckConforms("fusion-manifest.v5.json", ReadJsonFile(f.Path(kManifestFile)));
  CheckConforms("fusion-committed-result.v1.json", ReadJsonFile(f.Path(kResultFile)));
  REQUIRE(
      ClaimUsageOnce(f.fs, f.clock, f.store->run_dir(), kRunId, f.store->Snapshot().usage).ok());
  CheckConforms("usage-claim.json", ReadJsonFile(f.Path(kUsageClaimFile)));
}

TEST_CASE("Schemas: cancelled and capped summaries and every failure view conform",
          "[store][schema]") {
  StoreFixture f;
  for (int n = 1; n <= 30; ++n) {
    REQUIRE(f.store->RecordAttempt({{Stage::kCandidate, 2, n}, AttemptState::kCancelled}).ok());
  }
  for (int n = 0; n < 70; ++n) REQUIRE(f.store->WriteArtifact("e" + std::to_string(n), "x").ok());
  REQUIRE(f.store->Fail(RunState::kCancelled, {"child_cancelled", std::string(5000, 'z')})
              .summary.ok());
  CheckConforms("fusion-failure-summary.v1.json", ReadJsonFile(f.Path(kFailureSummaryFile)));
  auto view = ReadFailureView(pi_fusion::PosixFileSystem(), f.store->run_dir());
  REQUIRE(view.ok());
  CheckConforms("failure-view.json", view.value());
  ::unlink(f.Path(kFailureSummaryFile).c_str());
  CheckConforms("failure-view.json",
                ReadFailureView(pi_fusion::PosixFileSystem(), f.store->run_dir()).value());
  ::unlink(f.Path(kManifestFile).c_str());
  CheckConforms("failure-view.json",
                ReadFailureView(pi_fusion::PosixFileSystem(), f.store->run_dir()).value());
}

TEST_CASE("Schemas: the checker catches unknown and missing keys", "[store][schema]") {
  StoreFixture f;
  const json schema = LoadArtifactSchema("fusion-manifest.v5.json");
  json manifest = ReadJsonFile(f.Path(kManifestFile));
  CHECK(CheckAgainstSchema(schema, manifest).empty());
  json extra = manifest;
  extra["surprise"] = true;
  CHECK_FALSE(CheckAgainstSchema(schema, extra).empty());
  json missing = manifest;
  missing.erase("anonymous_map");
  CHECK_FALSE(CheckAgainstSchema(schema, missing).empty());
  json bad_ref = manifest;
  bad_ref["artifacts"]["x"] = {{"path", "../x"}, {"byte_length", 1}, {"sha256", "sha256:00"}};
  CHECK(CheckAgainstSchema(schema, bad_ref).size() >= 2);
}

TEST_CASE("Schemas: every remediation id and failure class is in the summary schema",
          "[store][schema]") {
  const json schema = LoadArtifactSchema("fusion-failure-summary.v1.json");
  const json& ids = schema["$defs"]["remediation_id"]["enum"];
  const json& classes =
      schema["properties"]["classifications"]["properties"]["failure_class"]["enum"];
  // CONTRACTS.md "Error codes", the audit log's, plus one the store has never heard of.
  for (const char* code : {"config_invalid",
                           "config_conflict",
                           "model_unavailable",
                           "context_capture_failed",
                           "context_policy_unsupported_block",
                           "prompt_budget_exceeded_forecast",
                           "prompt_budget_exceeded_measured",
                           "model_capacity_unknown",
                           "child_spawn_failed",
                           "child_stdin_failed",
                           "child_event_invalid",
                           "child_exit_failed",
                           "child_runtime_limit_exceeded",
                           "child_runtime_payload_invalid",
                           "child_cache_policy_invalid",
                           "child_timeout",
                           "child_output_cap",
                           "child_cancelled",
                           "evaluation_invalid",
                           "artifact_error",
                           "state_transition_invalid",
                           "orchestration_failed",
                           "tool_audit_invalid",
                           "validation_reports_invalid",
                           "host_ended",
                           "random_unavailable",
                           "invalid_arguments",
                           "source_policy_invalid",
                           "cost_cap_exceeded",
                           "run_not_resumable",
                           "child_stalled",
                           "unheard_of"}) {
    INFO(code);
    CHECK(std::find(classes.begin(), classes.end(), FailureClass(code)) != classes.end());
    for (bool cancelled : {false, true}) {
      for (const auto& id : RemediationIds(code, cancelled)) {
        INFO(id);
        CHECK(std::find(ids.begin(), ids.end(), id) != ids.end());
      }
    }
  }
}

TEST_CASE("Schemas: shared definitions are identical in every artifact schema", "[store][schema]") {
  const char* files[] = {"fusion-manifest.v5.json",
                         "fusion-committed-result.v1.json",
                         "fusion-failure-summary.v1.json",
                         "error.json",
                         "usage-claim.json",
                         "failure-view.json"};
  std::map<std::string, std::pair<std::string, json>> first;  // def -> (file, value)
  for (const char* file : files) {
    const json schema = LoadArtifactSchema(file);
    CHECK(schema["additionalProperties"] == false);
    for (auto it = schema["$defs"].begin(); it != schema["$defs"].end(); ++it) {
      auto [pos, inserted] = first.emplace(it.key(), std::make_pair(file, it.value()));
      INFO(it.key() << " in " << file << " vs " << pos->second.first);
      if (!inserted) CHECK(pos->second.second == it.value());
    }
  }
  // The manifest's required keys are exactly what the store writes.
  StoreFixture f;
  const json manifest = ReadJsonFile(f.Path(kManifestFile));
  std::set<std::string> written, required;
  for (auto it = manifest.begin(); it != manifest.end(); ++it) written.insert(it.key());
  const json manifest_schema = LoadArtifactSchema("fusion-manifest.v5.json");
  for (const json& key : manifest_schema["required"]) {
    required.insert(key.get<std::string>());
  }
  CHECK(written == required);
}
