// Output contracts on JSON-rendered bytes (src/workflow/output_contract.h).
#include "workflow/output_contract.h"

#include <catch2/catch.hpp>

#include "pi_fusion/canonical_json.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

// A text of exactly `rendered` JSON-rendered bytes made of `unit` (rendered size `unit_bytes`),
// padded with ASCII letters; it always opens with one letter, so it is never white space only.
std::string TextOf(size_t rendered, const std::string& unit, size_t unit_bytes) {
  std::string text = "a";
  size_t size = 1;
  while (size + unit_bytes <= rendered) {
    text += unit;
    size += unit_bytes;
  }
  return text + std::string(rendered - size, 'a');
}

}  // namespace

TEST_CASE("OutputContract: exactly at the limit passes, one byte over fails",
          "[workflow][output]") {
  struct Unit {
    const char* name;
    std::string text;
    size_t rendered;
  };
  const std::vector<Unit> units = {
      {"ASCII", "a", 1},
      {"two-byte UTF-8", "\xc3\xa9", 2},
      {"three-byte UTF-8", "\xe2\x9c\x93", 3},
      {"four-byte UTF-8", "\xf0\x9f\x98\x80", 4},
      {"quote", "\"", 2},
      {"backslash", "\\", 2},
      {"newline", "\n", 2},
      {"control character", "\x01", 6},
  };
  struct Limit {
    OutputKind kind;
    size_t limit;
    const char* name;
  };
  const std::vector<Limit> limits = {
      {OutputKind::kCandidate, kCandidateOutputMaxBytes, "candidate"},
      {OutputKind::kEvaluator, kEvaluatorOutputMaxBytes, "evaluator"},
      {OutputKind::kMerger, kMergerOutputMaxBytes, "merger"},
      {OutputKind::kDiagnostics, kDiagnosticsMaxBytes, "diagnostics"}};
  for (const Limit& l : limits) {
    CHECK(OutputLimit(l.kind) == l.limit);
    for (const Unit& u : units) {
      INFO(l.name << " / " << u.name);
      const std::string at = TextOf(l.limit, u.text, u.rendered);
      REQUIRE(JsonRenderedBytes(at) == l.limit);
      CHECK(CheckOutputContract(l.kind, at).ok());
      // One more unit goes over by at least one byte; the smallest excess is one letter.
      const Status over = CheckOutputContract(l.kind, at + "a");
      CHECK(over.code() == "child_output_cap");
      CHECK(over.message() == std::string(l.name) + " output is " + GroupDigits(l.limit + 1) +
                                  " JSON-rendered UTF-8 bytes; the limit is " +
                                  GroupDigits(l.limit));
      CHECK_FALSE(CheckOutputContract(l.kind, at + u.text).ok());
    }
  }
}

TEST_CASE("OutputContract: the measured message", "[workflow][output]") {
  CHECK(CheckOutputContract(OutputKind::kCandidate, std::string(49153, 'x')).message() ==
        "candidate output is 49,153 JSON-rendered UTF-8 bytes; the limit is 49,152");
  // 24,577 quotes render as 49,154 bytes although the text has only 24,577.
  CHECK(CheckOutputContract(OutputKind::kCandidate, std::string(24577, '"')).message() ==
        "candidate output is 49,154 JSON-rendered UTF-8 bytes; the limit is 49,152");
  CHECK(GroupDigits(0) == "0");
  CHECK(GroupDigits(999) == "999");
  CHECK(GroupDigits(1000) == "1,000");
  CHECK(GroupDigits(1234567) == "1,234,567");
}

TEST_CASE("OutputContract: an empty or white-space-only answer is a typed failure",
          "[workflow][output]") {
  for (const std::string& text : {std::string(), std::string(" "), std::string("\n\t \r\n"),
                                  std::string("\xe3\x80\x80")}) {  // U+3000 ideographic space
    for (OutputKind kind : {OutputKind::kCandidate, OutputKind::kEvaluator, OutputKind::kMerger}) {
      const Status s = CheckOutputContract(kind, text);
      CHECK(s.code() == "child_event_invalid");
      CHECK(s.message() == std::string(OutputKindName(kind)) + " answer is empty");
    }
  }
  CHECK(CheckOutputContract(OutputKind::kMerger, " x ").ok());
}

}  // namespace pi_fusion::workflow
