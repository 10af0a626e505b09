// What this project's earlier runs used per role and route (run/cost_history.h): the samples a
// completed manifest gives, the medians once there are enough, and the scan of the run store.
#include "run/cost_history.h"

#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>

#include "core/durable_file.h"
#include "core/file_system.h"
#include "store/manifest.h"
#include "store/usage.h"
#include "store/verify.h"

namespace pi_fusion::run {
namespace {

store::Usage UsageOf(uint64_t input, uint64_t output, uint64_t cache_read = 0) {
  store::Usage usage;
  usage.input = input;
  usage.output = output;
  usage.cache_read = cache_read;
  usage.total_tokens = input + output + cache_read;
  return usage;
}

store::AttemptRecord Attempt(pi_fusion::Stage stage, std::optional<int> slot, int attempt,
                             std::optional<store::Usage> usage) {
  store::AttemptRecord record;
  record.key = {stage, slot, attempt};
  record.state = store::AttemptState::kCompleted;
  record.started_at = "2026-01-01T00:00:00.000Z";
  record.usage = usage;
  return record;
}

store::Manifest Completed(uint64_t scale) {
  store::Manifest m;
  m.run_id = "reason-0123456789abcdef0123456789abcde" + std::to_string(scale % 10);
  m.workflow = "reason";
  m.state = store::RunState::kCompleted;
  m.models.candidates = {store::ModelSelection{"p", "a"}, {"p", "a"}, {"q", "b"}};
  m.models.evaluator = {"p", "e"};
  m.models.merger = {"p", "m"};
  m.attempts = {Attempt(pi_fusion::Stage::kCandidate, 1, 1, UsageOf(100 * scale, 10 * scale, 5)),
                Attempt(pi_fusion::Stage::kCandidate, 2, 1, UsageOf(200 * scale, 20 * scale)),
                Attempt(pi_fusion::Stage::kCandidate, 3, 1, UsageOf(300 * scale, 30 * scale)),
                Attempt(pi_fusion::Stage::kEvaluation, std::nullopt, 1, UsageOf(400, 40)),
                Attempt(pi_fusion::Stage::kEvaluation, std::nullopt, 2, UsageOf(9999, 999)),
                Attempt(pi_fusion::Stage::kMerge, std::nullopt, 1, UsageOf(500, 50))};
  return m;
}

TEST_CASE("CostHistory: a completed manifest gives one sample per role that ran a child") {
  store::Manifest m = Completed(1);
  m.attempts[2].reused_from = "reason-ffffffffffffffffffffffffffffffff";  // no child ran
  m.attempts[1].usage.reset();                                            // nothing reported
  const std::vector<RoleSample> samples = SamplesOf(m);
  REQUIRE(samples.size() == 3);  // candidate 1, the evaluator (attempt 1 only), the merger
  CHECK(samples[0].candidate);
  CHECK(samples[0].route == "p/a");
  CHECK(samples[0].input == 105);  // cache reads count as input
  CHECK(samples[0].output == 10);
  CHECK(samples[1].stage == pi_fusion::Stage::kEvaluation);
  CHECK(samples[1].input == 400);
  CHECK(samples[2].route == "p/m");
  m.state = store::RunState::kFailed;
  CHECK(SamplesOf(m).empty());
}

TEST_CASE("CostHistory: a role's median once its samples come from three runs") {
  const std::array<std::string, 5> routes = {"p/a", "p/a", "q/b", "p/e", "p/m"};
  std::vector<RoleSample> samples;
  for (const uint64_t scale : {1, 3}) {
    for (RoleSample& s : SamplesOf(Completed(scale))) samples.push_back(s);
  }
  // Two runs: p/a has four candidate samples (two per run), yet only two runs: nothing yet.
  budget::ObservedRoles observed = ObservedFrom(samples, routes);
  CHECK_FALSE(observed[0].has_value());
  CHECK_FALSE(observed[3].has_value());
  for (RoleSample& s : SamplesOf(Completed(5))) samples.push_back(s);
  observed = ObservedFrom(samples, routes);
  // Six samples of p/a from three runs: 105, 200, 305, 600, 505, 1000.
  REQUIRE(observed[0].has_value());
  CHECK(*observed[0] == budget::ObservedTokens{(305 + 505 + 1) / 2, (30 + 50) / 2, 3});
  CHECK(observed[1] == observed[0]);                          // the same route: the same samples
  CHECK(*observed[2] == budget::ObservedTokens{900, 90, 3});  // 300, 900, 1500
  CHECK(*observed[3] == budget::ObservedTokens{400, 40, 3});
  CHECK(*observed[4] == budget::ObservedTokens{500, 50, 3});
  // Another route for the merger: nothing learned.
  CHECK_FALSE(ObservedFrom(samples, {"p/a", "p/a", "q/b", "p/e", "x/y"})[4].has_value());
}

TEST_CASE("CostHistory: the scan reads completed runs of the workflow in this project only") {
  char tmpl[] = "/tmp/cost-history-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string root = tmpl;
  struct Cleanup {
    std::string path;
    ~Cleanup() { std::filesystem::remove_all(path); }
  } cleanup{root};
  FileSystem& fs = PosixFileSystem();
  const std::string session = root + "/.pi/fusion/s-1";
  auto write = [&](const std::string& id, store::RunState state, const char* workflow) {
    store::Manifest m = Completed(1);
    m.run_id = id;
    m.workflow = workflow;
    m.state = state;
    m.created_at = m.updated_at = "2026-01-01T00:00:00.000Z";
    m.cwd = root;
    std::vector<store::Usage> usages;
    for (store::AttemptRecord& a : m.attempts) {
      a.ended_at = "2026-01-01T00:00:01.000Z";
      if (a.usage) usages.push_back(*a.usage);
    }
    m.usage = store::SumUsage(usages);  // a readable manifest's usage is its attempts' sum
    std::filesystem::create_directories(session + "/" + id);
    REQUIRE(
        WriteFileDurably(fs, session + "/" + id + "/manifest.json", store::ManifestToJson(m).dump())
            .ok());
    REQUIRE(store::ReadManifest(fs, session + "/" + id).ok());
  };
  write("reason-00000000000000000000000000000001", store::RunState::kCompleted, "reason");
  write("reason-00000000000000000000000000000002", store::RunState::kFailed, "reason");
  write("investigate-00000000000000000000000000000003", store::RunState::kCompleted, "investigate");
  CHECK(ProjectSamples(fs, root, "reason").size() == 5);
  CHECK(ProjectSamples(fs, root, "investigate").size() == 5);
  CHECK(ProjectSamples(fs, root, "validate").empty());
  CHECK(ProjectSamples(fs, root + "/nowhere", "reason").empty());
}

}  // namespace
}  // namespace pi_fusion::run
