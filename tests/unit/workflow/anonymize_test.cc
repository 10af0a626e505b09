// Anonymization of candidate slots (src/workflow/anonymize.h).
#include "workflow/anonymize.h"

#include <map>
#include <random>

#include <catch2/catch.hpp>

#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

class SeededSource : public RandomSource {
 public:
  explicit SeededSource(uint64_t seed) : engine_(seed) {}
  Status Fill(std::span<uint8_t> out) override {
    for (uint8_t& b : out) b = static_cast<uint8_t>(engine_() & 0xff);
    return Status::Ok();
  }

 private:
  std::mt19937_64 engine_;
};

// Replays fixed bytes, then fails.
class ScriptedSource : public RandomSource {
 public:
  explicit ScriptedSource(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  Status Fill(std::span<uint8_t> out) override {
    for (uint8_t& b : out) {
      if (next_ == bytes_.size()) return Status::Error("orchestration_failed", "exhausted");
      b = bytes_[next_++];
    }
    return Status::Ok();
  }

 private:
  std::vector<uint8_t> bytes_;
  size_t next_ = 0;
};

std::string Key(const AnonymousMap& map) {
  return map.candidate_for_slot[0] + map.candidate_for_slot[1] + map.candidate_for_slot[2];
}

}  // namespace

TEST_CASE("Anonymize: all six permutations occur, uniformly", "[workflow][anonymize]") {
  SeededSource source(20250501);
  constexpr int kDraws = 60000;
  std::map<std::string, int> counts;
  std::array<std::map<std::string, int>, 3> per_slot;
  for (int i = 0; i < kDraws; ++i) {
    auto map = DrawAnonymousMap(source);
    REQUIRE(map.ok());
    ++counts[Key(*map)];
    for (int s = 0; s < 3; ++s) ++per_slot[s][map->candidate_for_slot[s]];
  }
  CHECK(counts.size() == 6);
  // Chi-square with 5 degrees of freedom; 20.52 is the 0.999 quantile. The seed is fixed, so the
  // test is deterministic; the bound says the generator is not visibly biased.
  double chi2 = 0;
  for (const auto& [key, n] : counts)
    chi2 += (n - kDraws / 6.0) * (n - kDraws / 6.0) / (kDraws / 6.0);
  CHECK(chi2 < 20.52);
  for (const auto& slot : per_slot) {
    for (const auto& [id, n] : slot) CHECK(std::abs(n - kDraws / 3.0) < kDraws * 0.01);
  }
}

TEST_CASE("Anonymize: rejection sampling skips biased bytes", "[workflow][anonymize]") {
  // 252..255 would favour the first four permutations under a plain modulo; they are redrawn.
  ScriptedSource source({255, 252, 7});
  auto map = DrawAnonymousMap(source);
  REQUIRE(map.ok());
  CHECK(Key(*map) == "ACB");  // 7 % 6 == 1: the second permutation in lexicographic order
  ScriptedSource only_biased({253, 254});
  CHECK(DrawAnonymousMap(only_biased).status().code() == "orchestration_failed");
}

TEST_CASE("Anonymize: recorded form round-trips and is checked", "[workflow][anonymize]") {
  AnonymousMap map;
  map.candidate_for_slot = {"B", "C", "A"};
  CHECK(map.ToJson() == nlohmann::json{{"A", 3}, {"B", 1}, {"C", 2}});
  CHECK(map.SlotOf("A") == 3);
  CHECK(map.SlotOf("D") == 0);
  auto back = AnonymousMapFromJson(map.ToJson());
  REQUIRE(back.ok());
  CHECK(*back == map);
  for (const char* bad : {R"({"A":1,"B":1,"C":2})", R"({"A":1,"B":2})", R"({"A":1,"B":2,"D":3})",
                          R"({"A":0,"B":1,"C":2})", R"({"A":"1","B":2,"C":3})", "[1,2,3]"}) {
    INFO(bad);
    CHECK(AnonymousMapFromJson(nlohmann::json::parse(bad)).status().code() == kOrchestrationFailed);
  }
}

// The run's one random source (core's) fails with random_unavailable; the draw still reports the
// anonymization's own code, as it did when the workflow layer had a source of its own.
TEST_CASE("Anonymize: a failing source is an orchestration failure naming the cause",
          "[workflow][anonymize]") {
  class Failing : public RandomSource {
   public:
    Status Fill(std::span<uint8_t>) override {
      return Status::Error(kRandomUnavailable, "getrandom: no entropy");
    }
  } failing;
  const auto map = DrawAnonymousMap(failing);
  REQUIRE_FALSE(map.ok());
  CHECK(map.status().code() == kOrchestrationFailed);
  CHECK(map.status().message() == "getrandom: no entropy");
}

TEST_CASE("Anonymize: the system source draws", "[workflow][anonymize]") {
  auto map = DrawAnonymousMap(SystemRandom());
  REQUIRE(map.ok());
  CHECK(AnonymousMapFromJson(map->ToJson()).ok());
}

}  // namespace pi_fusion::workflow
