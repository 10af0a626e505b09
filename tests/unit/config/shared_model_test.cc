// Candidates on one model: which ones, and what the person is told.
#include "config/shared_model.h"

#include <catch2/catch.hpp>

namespace pi_fusion::config {
namespace {

TEST_CASE("SharedCandidateModel: three, two or none; unknown models never shared") {
  CHECK(SharedCandidateModel({"p/a", "p/a", "p/a"}) == SharedModel{"p/a", {1, 2, 3}});
  CHECK(SharedCandidateModel({"p/a", "q/b", "p/a"}) == SharedModel{"p/a", {1, 3}});
  CHECK(SharedCandidateModel({"q/b", "p/a", "p/a"}) == SharedModel{"p/a", {2, 3}});
  CHECK_FALSE(SharedCandidateModel({"p/a", "p/b", "q/a"}));
  CHECK_FALSE(SharedCandidateModel({"", "", "p/a"}));
}

TEST_CASE("SharedModelText: a warning for three, a softer note for two") {
  CHECK(SharedModelText({"p/a", {1, 2, 3}}) ==
        "All three candidates run on one model (p/a), so their agreement is weaker evidence than "
        "agreement between different models.");
  CHECK(SharedModelText({"p/a", {1, 3}}) ==
        "Candidates 1 and 3 run on one model (p/a), so their agreement counts for less.");
}

}  // namespace
}  // namespace pi_fusion::config
