// RunStore: directory creation and modes, durable manifest updates, artifacts, attempts, usage,
// transitions, and concurrent attempts.
#include <cerrno>
#include <filesystem>
#include <thread>

#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "pi_fusion/sha256.h"
#include "store/constants.h"
#include "store/verify.h"
#include "test_support.h"

using nlohmann::json;
using namespace pi_fusion::store;
using pi_fusion::Stage;
using namespace pi_fusion::store::testing;

namespace {

// The manifest on disk, parsed strictly.
Manifest DiskManifest(StoreFixture& f) {
  auto m = ReadManifest(pi_fusion::PosixFileSystem(), f.store->run_dir());
  REQUIRE(m.ok());
  return m.value();
}

void CheckDiskMatchesMemory(StoreFixture& f) {
  CHECK(ManifestToJson(DiskManifest(f)) == ManifestToJson(f.store->Snapshot()));
}

}  // namespace

TEST_CASE("RunStore: creates every directory 0700 and the manifest 0600", "[store]") {
  StoreFixture f;
  const std::string session = f.dir.path() + "/.pi/fusion/session___n__code_id-4242";
  CHECK(f.store->run_dir() == session + "/" + kRunId);
  for (const std::string& d :
       {f.dir.path() + "/.pi", f.dir.path() + "/.pi/fusion", session, f.store->run_dir()}) {
    INFO(d);
    CHECK(ModeOf(d) == 0700);
  }
  CHECK(ModeOf(f.Path(kManifestFile)) == 0600);
  const Manifest m = DiskManifest(f);
  CHECK(m.state == RunState::kInitializing);
  CHECK(m.workflow == "reason");
  CHECK(m.created_at == "2025-01-02T03:04:05.006Z");
  CHECK(m.cwd == f.dir.path());
  CHECK(m.attempts.empty());
  CHECK(m.artifacts.empty());
  CHECK(m.anonymous_map.is_null());
  CHECK_FALSE(m.error.has_value());
  CHECK(m.models == SampleSpec("/").models);
}

TEST_CASE("RunStore: an existing .pi keeps its mode", "[store]") {
  TempDir dir;
  FixedClock clock;
  REQUIRE(pi_fusion::PosixFileSystem().CreateDir(dir.path() + "/.pi", 0755).ok());
  auto store = RunStore::Create(pi_fusion::PosixFileSystem(), clock, SampleSpec(dir.path()));
  REQUIRE(store.ok());
  CHECK(ModeOf(dir.path() + "/.pi") == 0755);
  CHECK(ModeOf(dir.path() + "/.pi/fusion") == 0700);
}

TEST_CASE("RunStore: the store root is ignored by git; a user's own ignore file stays", "[store]") {
  StoreFixture f;
  const std::string ignore = f.dir.path() + "/.pi/fusion/.gitignore";
  CHECK(ReadAll(ignore) == "*\n");
  CHECK(ModeOf(ignore) == 0600);

  TempDir dir;
  FixedClock clock;
  auto& fs = pi_fusion::PosixFileSystem();
  REQUIRE(fs.CreateDir(dir.path() + "/.pi", 0700).ok());
  REQUIRE(fs.CreateDir(dir.path() + "/.pi/fusion", 0700).ok());
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir.path() + "/.pi/fusion/.gitignore", "mine\n").ok());
  REQUIRE(RunStore::Create(fs, clock, SampleSpec(dir.path())).ok());
  CHECK(ReadAll(dir.path() + "/.pi/fusion/.gitignore") == "mine\n");
}

TEST_CASE("RunStore: a symlinked .pi, .pi/fusion or session directory creates nothing", "[store]") {
  FixedClock clock;
  auto& fs = pi_fusion::PosixFileSystem();
  const std::string session = "fusion/session___n__code_id-4242";
  for (const std::string& link :
       {std::string(".pi"), std::string(".pi/fusion"), ".pi/" + session}) {
    INFO(link);
    TempDir project;
    TempDir target;
    REQUIRE(fs.CreateDirsBeneath(project.path(), {".pi", "fusion"}, 0700).ok());
    std::filesystem::remove_all(project.path() + "/" + link);
    std::filesystem::create_directory_symlink(target.path(), project.path() + "/" + link);
    auto store = RunStore::Create(fs, clock, SampleSpec(project.path()));
    CHECK(store.status().code() == pi_fusion::kArtifactError);
    CHECK_THAT(store.status().message(),
               Catch::Contains(project.path() + "/" + link + " is a symbolic link"));
    CHECK(std::filesystem::is_empty(target.path()));
  }
}

TEST_CASE("RunStore: Create refuses bad specs and an existing run directory", "[store]") {
  TempDir dir;
  FixedClock clock;
  auto& fs = pi_fusion::PosixFileSystem();
  RunSpec bad_id = SampleSpec(dir.path());
  bad_id.run_id = "reason-123";
  RunSpec relative = SampleSpec("relative/cwd");
  RunSpec bad_policy = SampleSpec(dir.path());
  bad_policy.context = json::array();
  for (const RunSpec& spec : {bad_id, relative, bad_policy}) {
    CHECK(RunStore::Create(fs, clock, spec).status().code() == pi_fusion::kArtifactError);
  }
  REQUIRE(RunStore::Create(fs, clock, SampleSpec(dir.path())).ok());
  CHECK(RunStore::Create(fs, clock, SampleSpec(dir.path())).status().code() ==
        pi_fusion::kArtifactError);
}

TEST_CASE("RunStore: WriteArtifact writes 0600, returns the ref and records it durably",
          "[store]") {
  StoreFixture f;
  auto ref = f.store->WriteArtifact("canonical-input.json", "{\"x\":1}");
  REQUIRE(ref.ok());
  CHECK(ref->path == "canonical-input.json");
  CHECK(ref->byte_length == 7);
  CHECK(ref->sha256 == pi_fusion::Sha256Ref("{\"x\":1}"));
  CHECK(ModeOf(f.Path("canonical-input.json")) == 0600);
  CHECK(DiskManifest(f).artifacts.at("canonical-input.json") == ref.value());
  auto again = f.store->WriteJsonArtifact("canonical-input.json", json{{"y", 2}, {"x", 1}});
  REQUIRE(again.ok());
  CHECK(ReadAll(f.Path("canonical-input.json")) == "{\"x\":1,\"y\":2}");
  CHECK(DiskManifest(f).artifacts.at("canonical-input.json") == again.value());
}

TEST_CASE("RunStore: a batch writes its files, attempt and transitions in one manifest write",
          "[store]") {
  StoreFixture f;
  REQUIRE(f.store->Transition(RunState::kCandidatesRunning).ok());
  const std::vector<std::string> before = f.fs.published();
  StoreBatch batch;
  batch.files = {{"blind-candidates.json", "{}"}, {"evaluation.attempt-1.prompt.txt", "p"}};
  AttemptUpdate begin;
  begin.key = {Stage::kEvaluation, std::nullopt, 1};
  begin.artifacts = {"evaluation.attempt-1.prompt.txt"};
  batch.attempt = begin;
  batch.transitions = {RunState::kCandidatesComplete, RunState::kEvaluating};
  REQUIRE(f.store->Apply(batch).ok());
  // Both files, then ONE manifest: the old way published a manifest after every change.
  std::vector<std::string> published = f.fs.published();
  published.erase(published.begin(), published.begin() + static_cast<long>(before.size()));
  CHECK(published == std::vector<std::string>{"blind-candidates.json",
                                              "evaluation.attempt-1.prompt.txt", "manifest.json"});
  const Manifest disk = DiskManifest(f);
  CHECK(disk.state == RunState::kEvaluating);
  CHECK(disk.artifacts.at("blind-candidates.json").sha256 == pi_fusion::Sha256Ref("{}"));
  REQUIRE(disk.attempts.size() == 1);
  CHECK(disk.attempts[0].artifacts == std::vector<std::string>{"evaluation.attempt-1.prompt.txt"});
  CheckDiskMatchesMemory(f);
}

TEST_CASE("RunStore: a batch is all or nothing in the manifest", "[store]") {
  StoreFixture f;
  StoreBatch skips;  // initializing -> evaluating is not a transition
  skips.files = {{"blind-candidates.json", "{}"}};
  skips.transitions = {RunState::kEvaluating};
  CHECK(f.store->Apply(skips).code() == pi_fusion::kStateTransitionInvalid);
  CHECK(DiskManifest(f).artifacts.empty());
  StoreBatch ends;
  ends.transitions = {RunState::kCompleted};
  CHECK_FALSE(f.store->Apply(ends).ok());
  StoreBatch reserved;
  reserved.files = {{"a.json", "{}"}, {"merged.md", "x"}};
  CHECK(f.store->Apply(reserved).code() == pi_fusion::kArtifactError);
  CHECK_FALSE(Exists(f.Path("a.json")));
  f.fs.FailOn(FsOp::kSync, EIO, "b.json");
  StoreBatch failing;
  failing.files = {{"a.json", "{}"}, {"b.json", "{}"}};
  CHECK(f.store->Apply(failing).code() == pi_fusion::kArtifactError);
  CHECK_FALSE(Exists(f.Path("a.json")));  // no file of a failed batch is renamed into place
  CHECK(DiskManifest(f).artifacts.empty());
  CheckDiskMatchesMemory(f);
}

TEST_CASE("RunStore: reserved and unsafe artifact names are refused", "[store]") {
  StoreFixture f;
  for (const char* name :
       {"manifest.json", "merged.md", "result.json", "error.json", "failure-summary.json",
        "usage-claim.json", "../escape", "/abs", ".hidden", ""}) {
    INFO(name);
    CHECK(f.store->WriteArtifact(name, "x").status().code() == pi_fusion::kArtifactError);
  }
  CHECK(DiskManifest(f).artifacts.empty());
  CHECK_FALSE(Exists(f.dir.path() + "/.pi/fusion/escape"));
}

TEST_CASE("RunStore: a failed manifest write leaves memory and disk on the previous state",
          "[store]") {
  StoreFixture f;
  f.fs.FailOn(FsOp::kRename, ENOSPC, "manifest.json");
  CHECK(f.store->WriteArtifact("budget-plan.json", "{}").status().code() ==
        pi_fusion::kArtifactError);
  CHECK(f.store->Snapshot().artifacts.empty());
  CheckDiskMatchesMemory(f);
  f.fs.FailOn(FsOp::kAppend, ENOSPC, "manifest.json");
  CHECK_FALSE(f.store->Transition(RunState::kCandidatesRunning).ok());
  CHECK(f.store->Snapshot().state == RunState::kInitializing);
  CheckDiskMatchesMemory(f);
  CHECK(f.store->Transition(RunState::kCandidatesRunning).ok());
}

TEST_CASE("RunStore: attempts get timestamps, usage sums, and finished states are final",
          "[store]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  const AttemptKey key{Stage::kCandidate, 2, 1};
  REQUIRE(f.store->RecordAttempt({key, AttemptState::kRunning}).ok());
  f.clock.Advance(std::chrono::milliseconds(1500));
  REQUIRE(f.store->WriteArtifact("candidate-2.attempt-1.stderr.txt", "").ok());
  REQUIRE(f.store
              ->RecordAttempt({key,
                               AttemptState::kFailed,
                               SampleUsage(5),
                               AttemptError{"child_exit_failed", "exit \xff 1 \xf0\x9f\x98"},
                               {"candidate-2.attempt-1.stderr.txt"}})
              .ok());
  const Manifest m = DiskManifest(f);
  REQUIRE(m.attempts.size() == 1);
  const AttemptRecord& a = m.attempts[0];
  CHECK(a.started_at == "2025-01-02T03:04:05.006Z");
  CHECK(a.ended_at == "2025-01-02T03:04:06.506Z");
  // Sanitized, still serializable: one U+FFFD per maximal ill-formed subpart, as TextDecoder does,
  // so the cut-off four-byte sequence at the end is one replacement, not three.
  CHECK(a.error->message == "exit \xef\xbf\xbd 1 \xef\xbf\xbd");
  CHECK(a.artifacts == std::vector<std::string>{"candidate-2.attempt-1.stderr.txt"});
  CHECK(m.usage == SampleUsage(5));
  CHECK(f.store->RecordAttempt({key, AttemptState::kCompleted}).code() ==
        pi_fusion::kStateTransitionInvalid);
  CHECK(f.store->RecordAttempt({key, AttemptState::kFailed}).ok());  // same state: idempotent
  CHECK(
      f.store->RecordAttempt({{Stage::kCandidate, 1, 1}, AttemptState::kRunning, {}, {}, {"nope"}})
          .code() == pi_fusion::kArtifactError);
  CHECK(f.store->RecordAttempt({{Stage::kEvaluation, 1, 1}}).code() == pi_fusion::kArtifactError);
  CHECK(f.store->RecordAttempt({{Stage::kCandidate, 4, 1}}).code() == pi_fusion::kArtifactError);
  CHECK(f.store->RecordAttempt({{Stage::kMerge, std::nullopt, 0}}).code() ==
        pi_fusion::kArtifactError);
}

TEST_CASE("RunStore: AddAttemptUsage folds a second provider turn into the attempt", "[store]") {
  StoreFixture f;
  const AttemptKey key{Stage::kCandidate, 1, 1};
  CHECK(f.store->AddAttemptUsage(key, SampleUsage(1)).code() == pi_fusion::kArtifactError);
  REQUIRE(f.store->RecordAttempt({key, AttemptState::kRunning, SampleUsage(1)}).ok());
  Usage second = SampleUsage(2);
  second.reasoning = 3;
  REQUIRE(f.store->AddAttemptUsage(key, second).ok());
  const Manifest m = DiskManifest(f);
  CHECK(m.attempts[0].usage == SumUsage({SampleUsage(1), second}));
  CHECK(m.usage == SumUsage({SampleUsage(1), second}));
  CHECK(m.usage.reasoning == 3);
}

TEST_CASE("RunStore: the anonymous map is recorded once", "[store]") {
  StoreFixture f;
  const json map = {{"A", 2}, {"B", 3}, {"C", 1}};
  REQUIRE(f.store->SetAnonymousMap(map).ok());
  CHECK(DiskManifest(f).anonymous_map == map);
  CHECK(f.store->SetAnonymousMap(map).code() == pi_fusion::kStateTransitionInvalid);
  CHECK(f.store->SetAnonymousMap(json::array()).code() == pi_fusion::kArtifactError);
}

TEST_CASE("RunStore: warm children that never became attempts are listed, and only then",
          "[store]") {
  StoreFixture f;
  // No warm child listed: the key is absent, so older readers see the manifest they know.
  CHECK_FALSE(ManifestToJson(DiskManifest(f)).contains("warm_children"));
  const std::string started = "2026-01-02T03:04:05.006Z";
  REQUIRE(f.store
              ->RecordWarmChild(Stage::kEvaluation, WarmChildOutcome::kReplaced, started,
                                "exited with code 3 before its input")
              .ok());
  REQUIRE(
      f.store->RecordWarmChild(Stage::kMerge, WarmChildOutcome::kUnused, started, "stopped").ok());
  const Manifest m = DiskManifest(f);
  REQUIRE(m.warm_children.size() == 2);
  CHECK(m.warm_children[0].stage == Stage::kEvaluation);
  CHECK(m.warm_children[0].outcome == WarmChildOutcome::kReplaced);
  CHECK(m.warm_children[0].started_at == started);
  CHECK(IsTimestamp(m.warm_children[0].ended_at));
  CHECK(m.warm_children[1].outcome == WarmChildOutcome::kUnused);
  CheckDiskMatchesMemory(f);
  CHECK(ManifestToJson(m)["warm_children"][1]["outcome"] == "unused");
  // Candidates are never warm, and the start must be a timestamp.
  CHECK_FALSE(
      f.store->RecordWarmChild(Stage::kCandidate, WarmChildOutcome::kUnused, started, "x").ok());
  CHECK_FALSE(
      f.store->RecordWarmChild(Stage::kMerge, WarmChildOutcome::kUnused, "yesterday", "x").ok());
  // The strict reader refuses a malformed entry.
  json bad = ManifestToJson(m);
  bad["warm_children"][0]["outcome"] = "used";
  CHECK(ManifestFromJson(bad).status().code() == pi_fusion::kArtifactError);
  bad = ManifestToJson(m);
  bad["warm_children"][0]["extra"] = 1;
  CHECK_FALSE(ManifestFromJson(bad).ok());
}

TEST_CASE("RunStore: a child's exit is recorded on its attempt, also after it completed",
          "[store]") {
  StoreFixture f;
  const AttemptKey key{Stage::kCandidate, 2, 1};
  REQUIRE(f.store->RecordAttempt({key}).ok());
  REQUIRE(f.store->RecordAttempt({key, AttemptState::kCompleted, SampleUsage(1)}).ok());
  // No exit yet: the key is absent, so older readers see the manifest they know.
  CHECK_FALSE(ManifestToJson(DiskManifest(f))["attempts"][0].contains("exit"));
  AttemptUpdate exited{key, AttemptState::kCompleted};
  exited.exit = ChildExitRecord{0, std::nullopt, "none", true};
  REQUIRE(f.store->RecordAttempt(exited).ok());
  const Manifest m = DiskManifest(f);
  REQUIRE(m.attempts[0].exit.has_value());
  CHECK(*m.attempts[0].exit == ChildExitRecord{0, std::nullopt, "none", true});
  CHECK(m.attempts[0].state == AttemptState::kCompleted);
  CHECK(m.attempts[0].usage == SampleUsage(1));  // an exit-only update keeps the usage
  CheckDiskMatchesMemory(f);
  CHECK(ManifestToJson(m)["attempts"][0]["exit"] ==
        json{{"code", 0}, {"signal", nullptr}, {"stop_reason", "none"}, {"after_answer", true}});
  // The strict reader refuses a malformed exit.
  json bad = ManifestToJson(m);
  bad["attempts"][0]["exit"]["signal"] = 9;  // both a code and a signal
  CHECK(ManifestFromJson(bad).status().code() == pi_fusion::kArtifactError);
  bad = ManifestToJson(m);
  bad["attempts"][0]["exit"].erase("after_answer");
  CHECK_FALSE(ManifestFromJson(bad).ok());
}

TEST_CASE("RunStore: an attempt's first output and its child's exit time, both optional",
          "[store]") {
  StoreFixture f;
  const AttemptKey key{Stage::kCandidate, 1, 1};
  REQUIRE(f.store->RecordAttempt({key}).ok());
  AttemptUpdate answered{key, AttemptState::kCompleted, SampleUsage(1)};
  answered.first_output_at = "2026-01-01T00:00:01.500Z";
  REQUIRE(f.store->RecordAttempt(answered).ok());
  // The exit, recorded later, may name the first output again: the first one stays.
  AttemptUpdate exited{key, AttemptState::kCompleted};
  exited.first_output_at = "2026-01-01T00:00:09.000Z";
  exited.exit = ChildExitRecord{0, std::nullopt, "none", true, "2026-01-01T00:00:03.250Z"};
  REQUIRE(f.store->RecordAttempt(exited).ok());
  const Manifest m = DiskManifest(f);
  CHECK(m.attempts[0].first_output_at == "2026-01-01T00:00:01.500Z");
  REQUIRE(m.attempts[0].exit.has_value());
  CHECK(m.attempts[0].exit->exited_at == "2026-01-01T00:00:03.250Z");
  CheckDiskMatchesMemory(f);
  const json attempt = ManifestToJson(m)["attempts"][0];
  CHECK(attempt["first_output_at"] == "2026-01-01T00:00:01.500Z");
  CHECK(attempt["exit"]["exited_at"] == "2026-01-01T00:00:03.250Z");
  // A manifest written before the fields reads back without them.
  json older = ManifestToJson(m);
  older["attempts"][0].erase("first_output_at");
  older["attempts"][0]["exit"].erase("exited_at");
  pi_fusion::Result<Manifest> reread = ManifestFromJson(older);
  REQUIRE(reread.ok());
  CHECK_FALSE(reread->attempts[0].first_output_at);
  CHECK_FALSE(reread->attempts[0].exit->exited_at);
  // When present, each is exactly the manifest's timestamp form.
  json bad = ManifestToJson(m);
  bad["attempts"][0]["first_output_at"] = "soon";
  CHECK(ManifestFromJson(bad).status().code() == pi_fusion::kArtifactError);
  bad = ManifestToJson(m);
  bad["attempts"][0]["exit"]["exited_at"] = 3;
  CHECK(ManifestFromJson(bad).status().code() == pi_fusion::kArtifactError);
}

// Regression: a validate reviewer dropped under the minority rule was named only in the report's
// Limitations prose; the run's own record did not say that one of three reviewers was left out.
TEST_CASE("RunStore: a dropped reviewer is recorded in the manifest, and only then", "[store]") {
  StoreFixture f;
  CHECK_FALSE(ManifestToJson(DiskManifest(f)).contains("dropped_reviewers"));
  REQUIRE(f.store->RecordDroppedReviewer(2, "child_timeout", "no output for 35 min").ok());
  const Manifest m = DiskManifest(f);
  REQUIRE(m.dropped_reviewers.size() == 1);
  CHECK(m.dropped_reviewers[0] ==
        DroppedReviewerRecord{2, "child_timeout", "no output for 35 min"});
  CheckDiskMatchesMemory(f);
  CHECK(ManifestToJson(m)["dropped_reviewers"] ==
        json::parse(R"([{"code":"child_timeout","message":"no output for 35 min","slot":2}])"));
  CHECK_FALSE(f.store->RecordDroppedReviewer(4, "child_timeout", "x").ok());
  CHECK_FALSE(f.store->RecordDroppedReviewer(1, "", "x").ok());
  // The strict reader refuses a malformed entry.
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, json>>{{"slot", 0}, {"code", ""}, {"extra", 1}}) {
    INFO(key);
    json bad = ManifestToJson(m);
    bad["dropped_reviewers"][0][key] = value;
    CHECK(ManifestFromJson(bad).status().code() == pi_fusion::kArtifactError);
  }
}

// An adaptive run's decision is its own optional record: absent in every other manifest.
TEST_CASE("RunStore: the adaptive record is written once, checked, and read back strictly",
          "[store]") {
  StoreFixture f;
  CHECK_FALSE(ManifestToJson(DiskManifest(f)).contains("adaptive"));
  const AdaptiveRecord agreed{true, "check", {}, 0.0125, false};
  REQUIRE(f.store->RecordAdaptive(agreed).ok());
  const Manifest m = DiskManifest(f);
  REQUIRE(m.adaptive);
  CHECK(*m.adaptive == agreed);
  CheckDiskMatchesMemory(f);
  CHECK(ManifestToJson(m)["adaptive"] ==
        json::parse(R"({"agree":true,"check_cost_usd":0.0125,"decided_by":"check",)"
                    R"("differences":[],"reused":false})"));
  CHECK_FALSE(f.store->RecordAdaptive(agreed).ok());  // once
  StoreFixture g;
  CHECK_FALSE(g.store->RecordAdaptive({true, "check", {"a difference"}, 0.0, false}).ok());
  CHECK_FALSE(g.store->RecordAdaptive({false, "check", {}, 0.0, false}).ok());
  CHECK_FALSE(g.store->RecordAdaptive({true, "guess", {}, std::nullopt, false}).ok());
  CHECK_FALSE(g.store->RecordAdaptive({true, "identical", {}, -1.0, false}).ok());
  REQUIRE(
      g.store->RecordAdaptive({false, "check", {"A says 1, B says 2"}, std::nullopt, true}).ok());
  CHECK(DiskManifest(g).adaptive->differences == std::vector<std::string>{"A says 1, B says 2"});
  for (const auto& [key, value] : std::vector<std::pair<std::string, json>>{{"agree", "yes"},
                                                                            {"decided_by", nullptr},
                                                                            {"differences", 1},
                                                                            {"reused", 0},
                                                                            {"extra", 1}}) {
    INFO(key);
    json bad = ManifestToJson(m);
    bad["adaptive"][key] = value;
    CHECK(ManifestFromJson(bad).status().code() == pi_fusion::kArtifactError);
  }
}

// A quorum-2 run that left a candidate out says so in its own record, before the evaluation.
TEST_CASE("RunStore: the degraded record is written once, checked, and read back strictly",
          "[store]") {
  StoreFixture f;
  CHECK_FALSE(ManifestToJson(DiskManifest(f)).contains("degraded"));
  const DegradedRecord failed{3, "prov/m", "failed", "child_exit_failed", std::nullopt};
  REQUIRE(f.store->RecordDegraded(failed).ok());
  const Manifest m = DiskManifest(f);
  REQUIRE(m.degraded);
  CHECK(*m.degraded == failed);
  CheckDiskMatchesMemory(f);
  CHECK(ManifestToJson(m)["degraded"] ==
        json::parse(R"({"code":"child_exit_failed","grace_seconds":null,"model":"prov/m",)"
                    R"("reason":"failed","slot":3})"));
  CHECK_FALSE(f.store->RecordDegraded(failed).ok());  // once
  StoreFixture g;
  CHECK_FALSE(g.store->RecordDegraded({4, "p/m", "failed", "child_timeout", std::nullopt}).ok());
  CHECK_FALSE(g.store->RecordDegraded({1, "p/m", "failed", std::nullopt, std::nullopt}).ok());
  CHECK_FALSE(
      g.store->RecordDegraded({1, "p/m", "cut_after_grace", std::nullopt, std::nullopt}).ok());
  CHECK_FALSE(g.store->RecordDegraded({1, "p/m", "late", std::nullopt, 1}).ok());
  CHECK_FALSE(g.store->RecordDegraded({1, "", "cut_after_grace", std::nullopt, 1}).ok());
  REQUIRE(g.store->RecordDegraded({1, "p/m", "cut_after_grace", std::nullopt, 0.5}).ok());
  CHECK(DiskManifest(g).degraded->grace_seconds == 0.5);
  for (const auto& [key, value] : std::vector<std::pair<std::string, json>>{
           {"slot", 0}, {"code", nullptr}, {"grace_seconds", 1}, {"extra", 1}, {"reason", "x"}}) {
    INFO(key);
    json bad = ManifestToJson(m);
    bad["degraded"][key] = value;
    CHECK(ManifestFromJson(bad).status().code() == pi_fusion::kArtifactError);
  }
}

TEST_CASE("RunStore: Transition follows the machine; failed/cancelled only through Fail",
          "[store]") {
  StoreFixture f;
  CHECK(f.store->Transition(RunState::kEvaluating).code() == pi_fusion::kStateTransitionInvalid);
  CHECK(f.store->Transition(RunState::kFailed).code() == pi_fusion::kStateTransitionInvalid);
  CHECK(f.store->Transition(RunState::kCancelled).code() == pi_fusion::kStateTransitionInvalid);
  CHECK(f.store->Transition(RunState::kInitializing).code() == pi_fusion::kStateTransitionInvalid);
  f.WalkTo(RunState::kMerging);
  CHECK(DiskManifest(f).state == RunState::kMerging);
  CHECK(f.store->Transition(RunState::kEvaluating).code() == pi_fusion::kStateTransitionInvalid);
}

TEST_CASE("RunStore: completed is refused until merged.md and result.json are bound", "[store]") {
  StoreFixture f;
  f.WalkTo(RunState::kMerging);
  const pi_fusion::Status s = f.store->Transition(RunState::kCompleted);
  CHECK(s.code() == pi_fusion::kStateTransitionInvalid);
  CHECK(s.message().find("merged.md and result.json") != std::string::npos);
  CHECK(DiskManifest(f).state == RunState::kMerging);
  // A result.json that cannot be read back and checked also keeps the run from completing.
  f.fs.FailOn(FsOp::kReadFile, EIO, "result.json");
  CHECK(f.store->CommitResult("answer", json::object()).status().code() ==
        pi_fusion::kArtifactError);
  CHECK(DiskManifest(f).state == RunState::kMerging);
  CHECK(f.store->CommitResult("answer", json::object()).ok());
  CHECK(DiskManifest(f).state == RunState::kCompleted);
}

TEST_CASE("RunStore: a terminal run refuses every further change", "[store]") {
  StoreFixture f;
  f.WalkTo(RunState::kMerging);
  REQUIRE(f.store->CommitResult("answer", json::object()).ok());
  CHECK(f.store->WriteArtifact("late.txt", "x").status().code() ==
        pi_fusion::kStateTransitionInvalid);
  CHECK(f.store->RecordAttempt({{Stage::kMerge, std::nullopt, 1}}).code() ==
        pi_fusion::kStateTransitionInvalid);
  CHECK(f.store->SetAnonymousMap(json::object()).code() == pi_fusion::kStateTransitionInvalid);
  CHECK(f.store->Transition(RunState::kCompleted).code() == pi_fusion::kStateTransitionInvalid);
  CHECK(f.store->Fail(RunState::kFailed, {"orchestration_failed", "late"}).terminal.code() ==
        pi_fusion::kStateTransitionInvalid);
  CHECK_FALSE(Exists(f.Path("late.txt")));
  CHECK_FALSE(Exists(f.Path("error.json")));
}

TEST_CASE("RunStore: concurrent attempts on three threads all land in the manifest", "[store]") {
  StoreFixture f;
  f.WalkTo(RunState::kCandidatesRunning);
  constexpr int kRounds = 20;
  std::vector<std::thread> threads;
  for (int slot = 1; slot <= 3; ++slot) {
    threads.emplace_back([&f, slot] {
      for (int n = 1; n <= kRounds; ++n) {
        const AttemptKey key{Stage::kCandidate, slot, n};
        const std::string name = AttemptPrefix(key) + ".response.md";
        bool ok = f.store->RecordAttempt({key, AttemptState::kRunning}).ok();
        ok = ok && f.store->WriteArtifact(name, std::string(1000 * n, 'a' + slot)).ok();
        ok = ok && f.store
                       ->RecordAttempt(
                           {key, AttemptState::kCompleted, SampleUsage(1), std::nullopt, {name}})
                       .ok();
        if (!ok) std::abort();
      }
    });
  }
  for (auto& t : threads) t.join();
  const Manifest m = DiskManifest(f);
  CHECK(m.attempts.size() == 3 * kRounds);
  CHECK(m.artifacts.size() == 3 * kRounds);
  CHECK(m.usage.input == 3 * kRounds * SampleUsage(1).input);
  CheckDiskMatchesMemory(f);
  const auto names = pi_fusion::PosixFileSystem().ListDir(f.store->run_dir());
  REQUIRE(names.ok());
  for (const auto& name : names.value()) {
    CHECK_FALSE(pi_fusion::IsDurableTempName(name));
  }
}
