// Refused file-tool calls made visible (src/run/tool_refusals.h): counted per candidate from
// audit records, read back from a run directory's bound journals, and said in bg_result's text.
// The records are synthetic: the child library's own end-to-end test journals real refusals.
#include "run/tool_refusals.h"

#include <catch2/catch.hpp>

#include "pi_fusion/sha256.h"
#include "store/verify.h"
#include "test_support.h"
#include "views/result_answer.h"

namespace pi_fusion::run {
namespace {

using nlohmann::json;
using store::testing::StoreFixture;

protocol::ToolCallRecord Record(int64_t ordinal, const std::string& tool, const std::string& status,
                                std::optional<std::string> error_code = std::nullopt) {
  protocol::ToolCallRecord r;
  r.ordinal = ordinal;
  r.tool_name = tool;
  r.arguments_sha256 = Sha256Ref("{}");
  r.arguments_bytes = 2;
  r.result_sha256 = Sha256Ref("[]");
  r.result_bytes = 2;
  r.status = status;
  r.duration_ms = 1;
  r.provenance.error_code = std::move(error_code);
  return r;
}

std::string Journal(const std::vector<protocol::ToolCallRecord>& records) {
  std::string out;
  for (const auto& r : records) out += protocol::EncodeJournalLine(r);
  return out;
}

// Three refusals by two walls, and what must not count: a call that ran, a tool that failed on
// its own, a refused tool outside the allowlist, and a failed fetch of a declared URL.
const std::vector<protocol::ToolCallRecord>& Mixed() {
  static const std::vector<protocol::ToolCallRecord> kRecords = {
      Record(1, "read", "error", "path_outside_project"),
      Record(2, "read", "ok"),
      Record(3, "grep", "error", "path_in_run_store"),
      Record(4, "read", "error"),
      Record(5, "bash", "error"),
      Record(6, "fusion_web_fetch", "error", "dns_failure"),
      Record(7, "ls", "error", "path_outside_project"),
  };
  return kRecords;
}

}  // namespace

TEST_CASE("ToolRefusals: counts only the walls' refusals, by code") {
  CHECK(CountPathRefusals(Mixed()) ==
        std::map<std::string, int64_t>{{"path_in_run_store", 1}, {"path_outside_project", 2}});
  CHECK(CountPathRefusals({}).empty());
  // A record that ran is never a refusal, whatever it carries.
  CHECK(CountPathRefusals({Record(1, "read", "ok", "path_protected")}).empty());
  for (std::string_view code : kPathRefusalCodes) {
    INFO(code);
    CHECK(CountPathRefusals({Record(1, "find", "error", std::string(code))}).size() == 1);
  }
}

TEST_CASE("ToolRefusals: rows stay by slot, sum across attempts, and read as one sentence each") {
  std::vector<workflow::ToolRefusalRow> rows;
  AddRefusals(3, {{"path_protected", 1}}, &rows);
  AddRefusals(1, {}, &rows);  // no refusal, no row
  AddRefusals(2, CountPathRefusals(Mixed()), &rows);
  AddRefusals(3, {{"path_protected", 2}, {"path_not_regular", 1}}, &rows);  // a second attempt
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].slot == 2);
  CHECK(rows[1].by_code ==
        std::map<std::string, int64_t>{{"path_not_regular", 1}, {"path_protected", 3}});
  const json details = workflow::ToolRefusalsJson(rows);
  CHECK(RefusalsText(details) ==
        "Candidate 2 had 3 tool calls refused (path_in_run_store 1, path_outside_project 2). "
        "Candidate 3 had 4 tool calls refused (path_not_regular 1, path_protected 3).");
  CHECK(RefusalsText(workflow::ToolRefusalsJson({{1, {{"path_not_found", 1}}}})) ==
        "Candidate 1 had 1 tool call refused (path_not_found 1).");
  CHECK(RefusalsText(json::array()).empty());
  CHECK(RefusalsText(json()).empty());  // a result written before the field existed
}

TEST_CASE("ToolRefusals: a failed run's bg_result counts the refusals in its bound journals") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  f.RecordCandidates();
  const std::string journal2 = Journal(Mixed());
  REQUIRE(f.store->WriteArtifact("candidate-2.attempt-1.tool-calls.jsonl", journal2).ok());
  REQUIRE(f.store
              ->WriteArtifact("candidate-3.attempt-1.tool-calls.jsonl",
                              Journal({Record(1, "read", "error", "path_protected")}))
              .ok());
  // Changed after the parent bound it: not counted.
  REQUIRE(f.store
              ->WriteArtifact("candidate-1.attempt-1.tool-calls.jsonl",
                              Journal({Record(1, "read", "ok")}))
              .ok());
  store::testing::WriteAll(f.Path("candidate-1.attempt-1.tool-calls.jsonl"),
                           Journal({Record(1, "read", "error", "path_protected")}));
  REQUIRE(f.store
              ->Fail(store::RunState::kFailed,
                     {"child_timeout", "candidate 1 idle", pi_fusion::Stage::kCandidate, 1, 1})
              .terminal.ok());

  Result<store::Manifest> manifest = store::ReadManifest(f.fs, f.store->run_dir());
  REQUIRE(manifest.ok());
  CHECK(ReadRunRefusals(f.fs, f.store->run_dir(), *manifest) ==
        json::parse(R"([{"by_code":{"path_in_run_store":1,"path_outside_project":2},"count":3,
          "slot":2},{"by_code":{"path_protected":1},"count":1,"slot":3}])"));

  tasks::TaskInfo task;
  task.id = store::testing::kRunId;
  task.workflow = "reason";
  task.artifact_dir = f.store->run_dir();
  task.state = tasks::TaskState::kFailed;
  task.terminal_text = "Fusion failed (stage=candidate, slot=1, attempt=1): child_timeout: idle";
  Result<views::ResultAnswer> view =
      views::BuildResultAnswer(f.fs, f.clock, task, views::Delivery::kInline);
  REQUIRE(view.ok());
  CHECK_THAT(view->text,
             Catch::Contains("\nCandidate 2 had 3 tool calls refused "
                             "(path_in_run_store 1, path_outside_project 2). "
                             "Candidate 3 had 1 tool call refused (path_protected 1)."));
  CHECK(view->details["tool_refusals"][0]["count"] == 3);
}

}  // namespace pi_fusion::run

namespace pi_fusion::run {
namespace {

TEST_CASE("WeakestWalkProtection: the weakest any walk had; none when no walk named one") {
  auto walk = [](std::optional<std::string> protection) {
    protocol::ToolCallRecord r;
    r.tool_name = "grep";
    r.provenance.walk_protection = std::move(protection);
    return r;
  };
  CHECK_FALSE(WeakestWalkProtection({walk(std::nullopt)}).has_value());
  CHECK(WeakestWalkProtection({walk("namespace+landlock")}) == "namespace+landlock");
  CHECK(WeakestWalkProtection({walk("namespace+landlock"), walk("landlock"), walk(std::nullopt)}) ==
        "landlock");
  CHECK(WeakestWalkProtection({walk("namespace"), walk("landlock")}) == "landlock");
  CHECK(WeakestWalkProtection({walk("namespace+landlock"), walk("odd")}) == "none");
  CHECK(WeakerWalkProtection(std::nullopt, std::string("namespace")) == "namespace");
  CHECK(WeakerWalkProtection(std::string("none"), std::string("namespace")) == "none");
}

TEST_CASE("The manifest records the run's walk protection, and reads back only a known one") {
  store::testing::StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  REQUIRE(f.store->RecordWalkProtection("namespace+landlock").ok());
  REQUIRE(f.store->RecordWalkProtection("landlock").ok());
  CHECK_FALSE(f.store->RecordWalkProtection("sandbox").ok());
  nlohmann::json manifest = nlohmann::json::parse(store::testing::ReadAll(f.Path("manifest.json")));
  CHECK(manifest["walk_protection"] == "landlock");
  CHECK(store::ManifestFromJson(manifest)->walk_protection == "landlock");
  manifest["walk_protection"] = "sandbox";
  CHECK_FALSE(store::ManifestFromJson(manifest).ok());
}

}  // namespace
}  // namespace pi_fusion::run
