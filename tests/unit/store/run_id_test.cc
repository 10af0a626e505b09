// Run ids: format, validator, randomness from the RandomSource seam.
#include <cstring>
#include <unordered_set>

#include <catch2/catch.hpp>

#include "core/random_id.h"
#include "store/run_id.h"

namespace {

// Returns the same byte sequence 0x00, 0x01, ... every time.
class CountingRandom : public pi_fusion::RandomSource {
 public:
  pi_fusion::Status Fill(std::span<unsigned char> out) override {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(i * 17);
    return pi_fusion::Status::Ok();
  }
};

class BrokenRandom : public pi_fusion::RandomSource {
 public:
  pi_fusion::Status Fill(std::span<unsigned char>) override {
    return pi_fusion::Status::Error(pi_fusion::kRandomUnavailable, "getrandom: ENOSYS");
  }
};

}  // namespace

TEST_CASE("RunId: <workflow>-<32 lowercase hex> from the given source", "[store]") {
  CountingRandom fixed;
  auto id = pi_fusion::store::NewRunId(pi_fusion::Workflow::kResearch, fixed);
  REQUIRE(id.ok());
  CHECK(id.value() == "research-00112233445566778899aabbccddeeff");
  CHECK(pi_fusion::store::IsValidRunId(id.value()));
  CHECK(pi_fusion::store::RunIdWorkflow(id.value()) == "research");
}

TEST_CASE("RunId: a failing source is an error", "[store]") {
  BrokenRandom broken;
  CHECK(pi_fusion::store::NewRunId(pi_fusion::Workflow::kReason, broken).status().code() ==
        pi_fusion::kRandomUnavailable);
}

TEST_CASE("RunId: the validator matches ^(reason|investigate|research|validate)-[0-9a-f]{32}$",
          "[store]") {
  const std::string hex = "0123456789abcdef0123456789abcdef";
  struct Case {
    std::string id;
    bool valid;
  };
  const Case cases[] = {
      {"reason-" + hex, true},
      {"investigate-" + hex, true},
      {"research-" + hex, true},
      {"validate-" + hex, true},
      {"brainstorm-" + hex, false},
      {"Reason-" + hex, false},
      {"reason-" + hex.substr(1), false},
      {"reason-" + hex + "0", false},
      {"reason-0123456789ABCDEF0123456789abcdef", false},
      {"reason-0123456789abcdeg0123456789abcdef", false},
      {"reason_" + hex, false},
      {"reason--" + hex.substr(1), false},
      {"-" + hex, false},
      {"reason-", false},
      {"", false},
      {"reason-" + hex + "\n", false},
      {std::string("reason-") + hex.substr(0, 16) + std::string(1, '\0') + hex.substr(17), false},
  };
  for (const Case& c : cases) {
    INFO(c.id);
    CHECK(pi_fusion::store::IsValidRunId(c.id) == c.valid);
  }
}

TEST_CASE("RunId: 10,000 ids from the system source never repeat", "[store]") {
  std::unordered_set<std::string> seen;
  for (int i = 0; i < 10000; ++i) {
    auto id = pi_fusion::store::NewRunId(pi_fusion::Workflow::kValidate, pi_fusion::SystemRandom());
    REQUIRE(id.ok());
    REQUIRE(pi_fusion::store::IsValidRunId(id.value()));
    REQUIRE(seen.insert(id.value()).second);
  }
  CHECK(seen.size() == 10000);
}

TEST_CASE("RunId: the short id the views show, and what names a run", "[store]") {
  using pi_fusion::store::RunIdMatches;
  const std::string id = "reason-ac1705e2d3b44f0f9a7e1c2b3d4e5f60";
  CHECK(pi_fusion::store::ShortRunId(id) == "ac1705e2");
  CHECK(RunIdMatches(id, id));
  CHECK(RunIdMatches(id, "reason-ac17"));
  CHECK(RunIdMatches(id, "reason"));
  CHECK(RunIdMatches(id, "ac1705e2"));
  CHECK(RunIdMatches(id, "ac1"));
  CHECK_FALSE(RunIdMatches(id, ""));
  CHECK_FALSE(RunIdMatches(id, "1705e2"));  // inside the hex, not at its start
  CHECK_FALSE(RunIdMatches(id, "research-ac17"));
  CHECK_FALSE(RunIdMatches(id, "ac1705e2-"));
}
