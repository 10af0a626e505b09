// CommitResult and VerifyCompletedRun: the committed bytes, and every kind of tampering that
// bg_result must refuse with artifact_error naming the file.
#include <unistd.h>

#include <functional>

#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "store/constants.h"
#include "store/verify.h"
#include "test_support.h"

using nlohmann::json;
using namespace pi_fusion::store;
using namespace pi_fusion::store::testing;

namespace {

const char kAnswer[] = "# Answer\n\nMerged text with \xc3\xa9.\n";

json Details() { return {{"run_id", kRunId}, {"workflow", "reason"}, {"answer_bytes", 33}}; }

// A completed run with three candidates and an evaluation artifact.
struct CompletedRun : StoreFixture {
  CompletedRun() {
    WalkTo(RunState::kCandidatesRunning);
    RecordCandidates();
    WalkTo(RunState::kMerging);
    REQUIRE(store->WriteArtifact("evaluation.json", "{\"ok\":true}").ok());
    auto refs = store->CommitResult(kAnswer, Details());
    REQUIRE(refs.ok());
  }

  json ReadJson(const std::string& name) const { return json::parse(ReadAll(Path(name))); }
  void WriteJson(const std::string& name, const json& v) const {
    WriteAll(Path(name), pi_fusion::CanonicalJson(v));
  }
  // Re-binds `name`'s current bytes in the manifest (and merged.md's in result.json), so only
  // the check under test can fail.
  void Reseal(const std::string& name) const {
    const std::string bytes = ReadAll(Path(name));
    const json ref = {
        {"path", name}, {"byte_length", bytes.size()}, {"sha256", pi_fusion::Sha256Ref(bytes)}};
    if (name == kMergedFile) {
      json result = ReadJson(kResultFile);
      result["merged"] = ref;
      WriteJson(kResultFile, result);
      Reseal(kResultFile);
    }
    json manifest = ReadJson(kManifestFile);
    manifest["artifacts"][name] = ref;
    WriteJson(kManifestFile, manifest);
  }
  void EditJson(const std::string& name, const std::function<void(json&)>& edit) const {
    json v = ReadJson(name);
    edit(v);
    WriteJson(name, v);
  }
};

}  // namespace

TEST_CASE("CommitResult: merged.md, then result.json, then the completed manifest", "[store]") {
  CompletedRun run;
  const auto published = run.fs.published();
  REQUIRE(published.size() >= 3);
  CHECK(std::vector<std::string>(published.end() - 3, published.end()) ==
        std::vector<std::string>{"merged.md", "result.json", "manifest.json"});
  CHECK(ReadAll(run.Path("merged.md")) == kAnswer);
  const ArtifactRef merged = MakeRef("merged.md", kAnswer);
  json details = Details();
  details["schema_version"] = kResultDetailsSchema;
  const json expected = {{"schema_version", kCommittedResultSchema},
                         {"run_id", kRunId},
                         {"merged", RefToJson(merged)},
                         {"details", details}};
  CHECK(ReadAll(run.Path("result.json")) == pi_fusion::CanonicalJson(expected));
  CHECK(ModeOf(run.Path("merged.md")) == 0600);
  CHECK(ModeOf(run.Path("result.json")) == 0600);
}

TEST_CASE("CommitResult: refuses bad input and the wrong state without writing", "[store]") {
  StoreFixture f;
  CHECK(f.store->CommitResult("text", json::object()).status().code() ==
        pi_fusion::kStateTransitionInvalid);
  f.WalkTo(RunState::kMerging);
  CHECK(f.store->CommitResult("bad \xc3\x28", json::object()).status().code() ==
        pi_fusion::kArtifactError);
  CHECK(f.store->CommitResult("text", json::array()).status().code() == pi_fusion::kArtifactError);
  CHECK(f.store->CommitResult("text", json{{"schema_version", "other"}}).status().code() ==
        pi_fusion::kArtifactError);
  CHECK(f.store->CommitResult("text", json{{"run_id", "reason-" + std::string(32, 'f')}})
            .status()
            .code() == pi_fusion::kArtifactError);
  CHECK_FALSE(f.store->Snapshot().artifacts.count("merged.md"));
  CHECK(f.store->Snapshot().state == RunState::kMerging);
}

TEST_CASE("VerifyCompletedRun: returns the verified answer, details, usage and manifest",
          "[store]") {
  CompletedRun run;
  auto verified = VerifyCompletedRun(pi_fusion::PosixFileSystem(), run.store->run_dir(), kRunId);
  REQUIRE(verified.ok());
  CHECK(verified->merged == kAnswer);
  CHECK(verified->merged_path == run.Path("merged.md"));
  CHECK(verified->details["answer_bytes"] == 33);
  CHECK(verified->details["schema_version"] == kResultDetailsSchema);
  CHECK(verified->usage == SumUsage({SampleUsage(10), SampleUsage(20), SampleUsage(30)}));
  CHECK(verified->manifest.state == RunState::kCompleted);
}

TEST_CASE(
    "VerifyCompletedRun: a run written with the previous ids (manifest v4, result v5) verifies",
    "[store]") {
  CompletedRun run;
  CHECK(run.ReadJson(kManifestFile)["schema_version"] == "pi-background-tasks.fusion-manifest.v5");
  CHECK(run.ReadJson(kResultFile)["details"]["schema_version"] ==
        "pi-background-tasks.fusion-result.v6");
  run.EditJson(kResultFile,
               [](json& r) { r["details"]["schema_version"] = kResultDetailsSchemaV5; });
  run.Reseal(kResultFile);
  run.EditJson(kManifestFile, [](json& m) { m["schema_version"] = kManifestSchemaV4; });
  auto verified = VerifyCompletedRun(pi_fusion::PosixFileSystem(), run.store->run_dir(), kRunId);
  REQUIRE(verified.ok());
  CHECK(verified->merged == kAnswer);
  CHECK(verified->details["schema_version"] == kResultDetailsSchemaV5);
  // Any other id is still refused.
  run.EditJson(kManifestFile,
               [](json& m) { m["schema_version"] = "pi-background-tasks.fusion-manifest.v3"; });
  CHECK(VerifyCompletedRun(pi_fusion::PosixFileSystem(), run.store->run_dir(), kRunId)
            .status()
            .code() == pi_fusion::kArtifactError);
}

TEST_CASE("VerifyCompletedRun: every tampering is an artifact_error naming what differed",
          "[store]") {
  const std::string other_id = "reason-ffffffffffffffffffffffffffffffff";
  struct Case {
    const char* what;
    std::function<void(const CompletedRun&)> tamper;
    const char* fragment;
    std::string expected_id = kRunId;
  };
  const Case cases[] = {
      {"flipped byte in merged.md",
       [](const CompletedRun& r) {
         std::string b = ReadAll(r.Path("merged.md"));
         b[3] ^= 0x20;
         WriteAll(r.Path("merged.md"), b);
       },
       "merged.md: sha256"},
      {"truncated merged.md", [](const CompletedRun& r) { WriteAll(r.Path("merged.md"), "# Ans"); },
       "merged.md: byte_length 5 != recorded"},
      {"wrong length recorded",
       [](const CompletedRun& r) {
         r.EditJson(kManifestFile, [](json& m) { m["artifacts"]["merged.md"]["byte_length"] = 1; });
       },
       "merged.md: byte_length"},
      {"non-UTF-8 merged.md with consistent refs",
       [](const CompletedRun& r) {
         WriteAll(r.Path("merged.md"), "bad \xff bytes");
         r.Reseal(kMergedFile);
       },
       "merged.md is not valid UTF-8"},
      {"flipped byte in result.json",
       [](const CompletedRun& r) {
         std::string b = ReadAll(r.Path("result.json"));
         b[b.size() - 3] ^= 0x01;
         WriteAll(r.Path("result.json"), b);
       },
       "result.json: sha256"},
      {"result.json for another run",
       [other_id](const CompletedRun& r) {
         r.EditJson(kResultFile, [&](json& v) { v["run_id"] = other_id; });
         r.Reseal(kResultFile);
       },
       "result.json run_id"},
      {"result.json not binding merged.md",
       [](const CompletedRun& r) {
         r.EditJson(kResultFile, [](json& v) { v["merged"]["byte_length"] = 2; });
         r.Reseal(kResultFile);
       },
       "result.json merged does not bind"},
      {"result.json not canonical",
       [](const CompletedRun& r) {
         WriteAll(r.Path("result.json"), r.ReadJson(kResultFile).dump(2));
         r.Reseal(kResultFile);
       },
       "result.json is not canonical JSON"},
      {"result.json extra key",
       [](const CompletedRun& r) {
         r.EditJson(kResultFile, [](json& v) { v["extra"] = 1; });
         r.Reseal(kResultFile);
       },
       "result.json has an unknown key"},
      {"details without the v5 schema id",
       [](const CompletedRun& r) {
         r.EditJson(kResultFile, [](json& v) { v["details"].erase("schema_version"); });
         r.Reseal(kResultFile);
       },
       "details.schema_version"},
      {"manifest for another run id",
       [other_id](const CompletedRun& r) {
         r.EditJson(kManifestFile, [&](json& m) { m["run_id"] = other_id; });
       },
       "manifest.json run_id"},
      {"asked for another run", [](const CompletedRun&) {}, "manifest.json run_id", other_id},
      {"manifest workflow differs from the id",
       [](const CompletedRun& r) {
         r.EditJson(kManifestFile, [](json& m) { m["workflow"] = "research"; });
       },
       "workflow does not match run_id"},
      {"manifest of another workflow",
       [](const CompletedRun& r) {
         r.EditJson(kManifestFile, [](json& m) {
           m["run_id"] = "research-0123456789abcdef0123456789abcdef";
           m["workflow"] = "research";
         });
       },
       "manifest.json run_id"},
      {"manifest not completed",
       [](const CompletedRun& r) {
         r.EditJson(kManifestFile, [](json& m) { m["state"] = "merging"; });
       },
       "state is merging, not completed"},
      {"manifest schema id",
       [](const CompletedRun& r) {
         r.EditJson(kManifestFile, [](json& m) {
           m["schema_version"] = "pi-background-tasks.fusion-manifest.v3";
         });
       },
       "schema_version is not"},
      {"manifest unknown key",
       [](const CompletedRun& r) { r.EditJson(kManifestFile, [](json& m) { m["x"] = 1; }); },
       "unknown key \"x\""},
      {"manifest usage not the attempts' sum",
       [](const CompletedRun& r) {
         r.EditJson(kManifestFile, [](json& m) { m["usage"]["input"] = 0; });
       },
       "usage is not the sum"},
      {"manifest missing", [](const CompletedRun& r) { ::unlink(r.Path("manifest.json").c_str()); },
       "manifest.json cannot be read"},
      {"manifest not JSON", [](const CompletedRun& r) { WriteAll(r.Path("manifest.json"), "{"); },
       "manifest.json is not valid JSON"},
      // nlohmann keeps the last of two equal keys: before the strict reader this manifest read
      // as completed, while its first "state" says failed.
      {"manifest with a key twice",
       [](const CompletedRun& r) {
         const std::string bytes = ReadAll(r.Path("manifest.json"));
         WriteAll(r.Path("manifest.json"), "{\"state\":\"failed\"," + bytes.substr(1));
       },
       "manifest.json repeats the key \"state\" in one object"},
      {"evidence artifact altered",
       [](const CompletedRun& r) { WriteAll(r.Path("evaluation.json"), "{\"ok\":false}"); },
       "evaluation.json: byte_length"},
      {"merged.md replaced by a symlink",
       [](const CompletedRun& r) {
         WriteAll(r.Path("elsewhere.md"), kAnswer);
         ::unlink(r.Path("merged.md").c_str());
         REQUIRE(::symlink(r.Path("elsewhere.md").c_str(), r.Path("merged.md").c_str()) == 0);
       },
       "merged.md: is not a regular file"},
      {"merged.md ref removed",
       [](const CompletedRun& r) {
         r.EditJson(kManifestFile, [](json& m) { m["artifacts"].erase("merged.md"); });
       },
       "manifest.json has no ref for merged.md"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    CompletedRun run;
    c.tamper(run);
    auto verified =
        VerifyCompletedRun(pi_fusion::PosixFileSystem(), run.store->run_dir(), c.expected_id);
    REQUIRE_FALSE(verified.ok());
    CHECK(verified.status().code() == pi_fusion::kArtifactError);
    INFO(verified.status().message());
    CHECK(verified.status().message().find(c.fragment) != std::string::npos);
  }
}
