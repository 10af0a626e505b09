// Usage, cost and model requests per role, from the manifest's attempts: candidates by slot with
// their routes, the evaluator, the repair (evaluation attempt 2) and the merger; counts unknown
// for attempts recorded before requests were counted.
#include "store/role_usage.h"

#include <catch2/catch.hpp>

#include "test_support.h"

using nlohmann::json;
using namespace pi_fusion::store;
using pi_fusion::Stage;
using pi_fusion::store::testing::SampleUsage;

namespace {

Manifest WithModels() {
  Manifest m;
  m.models.candidates = {ModelSelection{"local", "m1"}, ModelSelection{"local", "m2"},
                         ModelSelection{"local", "m3"}};
  m.models.evaluator = {"local", "e"};
  m.models.merger = {"local", "g"};
  return m;
}

AttemptRecord Attempt(Stage stage, std::optional<int> slot, int attempt, std::optional<Usage> usage,
                      std::optional<uint64_t> requests) {
  AttemptRecord a;
  a.key = {stage, slot, attempt};
  a.state = AttemptState::kCompleted;
  a.usage = usage;
  a.requests = requests;
  return a;
}

}  // namespace

TEST_CASE("RoleUsage: one row per role that ran, in role order, with its route and requests") {
  Manifest m = WithModels();
  m.attempts = {Attempt(Stage::kCandidate, 2, 1, SampleUsage(20), 2),
                Attempt(Stage::kCandidate, 1, 1, SampleUsage(10), 2),
                Attempt(Stage::kCandidate, 3, 1, SampleUsage(30), 3),
                Attempt(Stage::kEvaluation, std::nullopt, 1, SampleUsage(40), 1),
                Attempt(Stage::kEvaluation, std::nullopt, 2, SampleUsage(50), 1),
                Attempt(Stage::kMerge, std::nullopt, 1, SampleUsage(60), 1)};
  const std::vector<RoleUsage> rows = UsageByRole(m);
  REQUIRE(rows.size() == 6);
  CHECK(RoleName(rows[0].role) == "candidate");
  CHECK(rows[0].slot == 1);
  CHECK(rows[0].model == "local/m1");
  CHECK(rows[0].usage == SampleUsage(10));
  CHECK(rows[1].usage == SampleUsage(20));
  CHECK(rows[2].requests == 3u);
  CHECK(RoleName(rows[3].role) == "evaluator");
  CHECK(rows[3].usage == SampleUsage(40));
  CHECK(RoleName(rows[4].role) == "repair");  // evaluation attempt 2
  CHECK(rows[4].model == "local/e");
  CHECK(rows[4].usage == SampleUsage(50));
  CHECK(RoleName(rows[5].role) == "merger");
  CHECK(rows[5].model == "local/g");
  CHECK(ModelRequests(m) == 10u);

  // The rows add up to the run's usage.
  std::vector<Usage> parts;
  for (const RoleUsage& row : rows) parts.push_back(row.usage);
  std::vector<Usage> all;
  for (const AttemptRecord& a : m.attempts) all.push_back(*a.usage);
  CHECK(SumUsage(parts) == SumUsage(all));

  const json rows_json = UsageByRoleJson(rows);
  CHECK(rows_json[0] == json{{"role", "candidate"},
                             {"slot", 1},
                             {"model", "local/m1"},
                             {"attempts", 1},
                             {"requests", 2},
                             {"usage", UsageToJson(SampleUsage(10))}});
  CHECK_FALSE(rows_json[3].contains("slot"));
}

TEST_CASE("RoleUsage: roles that never started are left out; a role sums its attempts") {
  Manifest m = WithModels();
  m.attempts = {Attempt(Stage::kCandidate, 1, 1, SampleUsage(10), 1),
                Attempt(Stage::kCandidate, 1, 2, SampleUsage(11), 2),
                // A child that never ran: no usage, no count, adds nothing.
                Attempt(Stage::kCandidate, 2, 1, std::nullopt, std::nullopt)};
  const std::vector<RoleUsage> rows = UsageByRole(m);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].attempts == 2);
  CHECK(rows[0].requests == 3u);
  CHECK(rows[0].usage == SumUsage({SampleUsage(10), SampleUsage(11)}));
  CHECK(rows[1].slot == 2);
  CHECK(rows[1].requests == 0u);
  CHECK(rows[1].usage == Usage{});
  CHECK(ModelRequests(m) == 3u);
}

TEST_CASE("RoleUsage: an attempt with usage but no count makes its role's and the run's unknown") {
  Manifest m = WithModels();
  m.attempts = {Attempt(Stage::kCandidate, 1, 1, SampleUsage(10), std::nullopt),
                Attempt(Stage::kCandidate, 2, 1, SampleUsage(20), 1)};
  const std::vector<RoleUsage> rows = UsageByRole(m);
  CHECK_FALSE(rows[0].requests);
  CHECK(rows[1].requests == 1u);
  CHECK_FALSE(ModelRequests(m));
  CHECK(UsageByRoleJson(rows)[0]["requests"].is_null());
}

TEST_CASE("RoleUsage: a role whose every attempt was reused names the run it came from") {
  Manifest m = WithModels();
  constexpr char kOld[] = "reason-ffffffffffffffffffffffffffffffff";
  AttemptRecord reused = Attempt(Stage::kCandidate, 1, 1, std::nullopt, std::nullopt);
  reused.reused_from = kOld;
  AttemptRecord evaluator =
      Attempt(Stage::kEvaluation, std::nullopt, 1, std::nullopt, std::nullopt);
  evaluator.reused_from = kOld;
  m.attempts = {reused, Attempt(Stage::kCandidate, 2, 1, SampleUsage(20), 1), evaluator,
                Attempt(Stage::kEvaluation, std::nullopt, 2, SampleUsage(30), 1)};
  const std::vector<RoleUsage> rows = UsageByRole(m);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].reused_from == kOld);
  CHECK(rows[0].requests == 0u);
  CHECK_FALSE(rows[1].reused_from.has_value());
  CHECK(rows[2].reused_from == kOld);            // the evaluator
  CHECK_FALSE(rows[3].reused_from.has_value());  // the repair ran in this run
  const json rows_json = UsageByRoleJson(rows);
  CHECK(rows_json[0]["reused_from"] == kOld);
  CHECK_FALSE(rows_json[1].contains("reused_from"));
}
