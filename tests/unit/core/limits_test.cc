// The shared caps carry the spec's numbers (spec/CONTRACTS.md "Budget"; seed-fusion_research.md
// "Fetch hygiene"), so a change to one is a deliberate contract change, not a slip.
#include "core/limits.h"

#include <catch2/catch.hpp>

namespace pi_fusion {
namespace {

TEST_CASE("output contract caps match the spec", "[limits]") {
  CHECK(kCandidateOutputMaxBytes == 49152);
  CHECK(kEvaluatorOutputMaxBytes == 65536);
  CHECK(kMergerOutputMaxBytes == 65536);
  CHECK(kDiagnosticsMaxBytes == 8192);
}

TEST_CASE("extracted text cap matches the spec", "[limits]") {
  CHECK(kMaxExtractedTextBytes == 32768);
}

}  // namespace
}  // namespace pi_fusion
