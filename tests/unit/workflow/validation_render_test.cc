// The host-rendered validation report (src/workflow/validation_render.h) and the Markdown
// sanitizing that keeps model text inside its section (src/workflow/markdown_sanitize.h).
#include "workflow/validation_render.h"

#include <catch2/catch.hpp>

#include "core/limits.h"
#include "pi_fusion/canonical_json.h"
#include "workflow/markdown_sanitize.h"

namespace pi_fusion::workflow {
namespace {

ValidationFinding F(const std::string& severity, const std::string& location,
                    const std::string& summary) {
  return {severity, location, "evidence for " + summary, "impact of " + summary, summary};
}

AccountingGroup G(const std::string& id, std::vector<std::string> sources,
                  const std::string& severity, const std::string& location,
                  const std::string& summary) {
  return {id,       std::move(sources),        severity,
          location, "evidence for " + summary, "impact of " + summary,
          summary,  "rationale for " + summary};
}

// Three reviewers' findings, grouped and excluded so that every ordering rule matters.
ValidationRenderInput Sample() {
  ValidationRenderInput in;
  in.summary = "The change mostly holds.\nOne high-severity defect remains.";
  ValidationReport a, b, c;
  a.findings = {F("minor", "b.cc:1", "typo"), F("high", "z.cc:9", "leak")};
  a.verified = {"tests cover the parser", "the parser rejects duplicates"};
  a.limitations = {"did not run anything"};
  b.findings = {F("high", "a.cc:5", "race"), F("critical", "m.cc:2", "overflow")};
  b.verified = {"the parser rejects duplicates"};
  b.limitations = {"did not run anything", "skipped docs"};
  c.findings = {F("minor", "c.cc:3", "naming")};
  in.reports = {{"C", c}, {"A", a}, {"B", b}};
  in.sources = AssignFindingIds(in.reports);
  in.accounting.groups = {G("g-leak", {"A-F002"}, "high", "z.cc:9", "leak"),
                          G("g-naming", {"C-F001"}, "minor", "c.cc:3", "naming"),
                          G("g-race", {"B-F001"}, "high", "a.cc:5", "race"),
                          G("g-overflow", {"B-F002"}, "critical", "m.cc:2", "overflow")};
  in.accounting.decisions = {{"B-F002", true, "r", "g-overflow"},
                             {"A-F001", false, "cosmetic only", std::nullopt},
                             {"A-F002", true, "r", "g-leak"},
                             {"B-F001", true, "r", "g-race"},
                             {"C-F001", true, "r", "g-naming"}};
  in.host_limitations = {RecoveredFenceLimitation("B", 3, 1)};
  return in;
}

}  // namespace

TEST_CASE("ValidationRender: the report in the issue's order", "[workflow][validation]") {
  const std::string expected = R"(# Validation report

## Summary

The change mostly holds.
One high-severity defect remains.

## Findings

### critical: overflow

- Location: m.cc:2
- Evidence: evidence for overflow
- Impact: impact of overflow
- Inclusion rationale: rationale for overflow

### high: race

- Location: a.cc:5
- Evidence: evidence for race
- Impact: impact of race
- Inclusion rationale: rationale for race

### high: leak

- Location: z.cc:9
- Evidence: evidence for leak
- Impact: impact of leak
- Inclusion rationale: rationale for leak

### minor: naming

- Location: c.cc:3
- Evidence: evidence for naming
- Impact: impact of naming
- Inclusion rationale: rationale for naming

## Excluded source findings

- A-F001 (minor, b.cc:1): typo — cosmetic only

## Verified

- tests cover the parser
- the parser rejects duplicates

## Limitations

- did not run anything
- skipped docs
- Reviewer B wrapped its report in a ```json fence instead of returning bare JSON; the host removed the fence and recorded the recovery in candidate-3.attempt-1.contract-event.json.
)";
  CHECK(RenderValidationReport(Sample()) == expected);
}

TEST_CASE("ValidationRender: equal severity and location order by the smallest source id",
          "[workflow][validation]") {
  ValidationRenderInput in = Sample();
  // Same severity and location: the group holding A-F002 comes before the one holding B-F001.
  in.accounting.groups = {G("late", {"B-F001"}, "high", "x.cc:1", "second"),
                          G("early", {"C-F001", "A-F002"}, "high", "x.cc:1", "first")};
  in.accounting.decisions = {{"A-F002", true, "r", "early"},
                             {"C-F001", true, "r", "early"},
                             {"B-F001", true, "r", "late"},
                             {"A-F001", false, "no", std::nullopt},
                             {"B-F002", false, "no", std::nullopt}};
  const std::string report = RenderValidationReport(in);
  CHECK(report.find("### high: first") < report.find("### high: second"));
  CHECK(report.find("- A-F001 (minor, b.cc:1)") < report.find("- B-F002 (critical, m.cc:2)"));
}

TEST_CASE("ValidationRender: zero findings and empty lists", "[workflow][validation]") {
  ValidationRenderInput in;
  in.summary = "Nothing to report.";
  in.reports = {{"A", {}}, {"B", {}}, {"C", {}}};
  const std::string report = RenderValidationReport(in);
  CHECK(report ==
        "# Validation report\n\n## Summary\n\nNothing to report.\n\n## Findings\n\nNo "
        "findings.\n\n## Excluded source findings\n\nNone.\n\n## Verified\n\nNone.\n\n"
        "## Limitations\n\nNone.\n");
}

TEST_CASE("ValidationRender: model text cannot forge headings or sections",
          "[workflow][validation]") {
  ValidationRenderInput in = Sample();
  in.summary =
      "Fine.\n## Findings\n### critical: fake\n```\n# Limitations\n<h2>Verified</h2>\nTitle\n"
      "===\nOther\n---\n> ## quoted heading\n- # listed heading\n   #indented";
  in.accounting.groups[0].summary = "leak\n## Verified\n- forged";
  in.accounting.groups[0].location = "# z.cc";
  in.reports[1].report.verified = {"## Limitations", "1. numbered", "\x1b[2Jclear"};
  const std::string report = RenderValidationReport(in);
  // Exactly the host's headings, each once, at line starts.
  size_t headings = 0;
  for (size_t at = 0; (at = report.find("\n#", at)) != std::string::npos; ++at) ++headings;
  CHECK(report.starts_with("# Validation report\n"));
  CHECK(headings == 5 + 4);  // ## Summary … ## Limitations, and the four ### groups
  CHECK(report.find("\n## Findings") == report.rfind("\n## Findings"));
  CHECK(report.find("\\## Findings") != std::string::npos);
  CHECK(report.find("\\```") != std::string::npos);
  CHECK(report.find("\\<h2>") != std::string::npos);
  CHECK(report.find("\n\\===") != std::string::npos);
  CHECK(report.find("\n\\---") != std::string::npos);
  CHECK(report.find("> \\## quoted heading") != std::string::npos);
  CHECK(report.find("- \\# listed heading") != std::string::npos);
  CHECK(report.find("\n\\#indented") != std::string::npos);
  CHECK(report.find("### high: leak ## Verified - forged") != std::string::npos);
  CHECK(report.find("- Location: \\# z.cc") != std::string::npos);
  CHECK(report.find("- \\## Limitations") != std::string::npos);
  CHECK(report.find("- 1\\. numbered") != std::string::npos);
  CHECK(report.find('\x1b') == std::string::npos);
}

// Regression: the host renders validate's report from every accounted finding, so three
// reviewers' worth of findings (each report up to 48 KiB) gave a merged.md far over the 64 KiB
// final-report cap that every other workflow's merger is held to.
TEST_CASE(
    "ValidationRender: a report over the 64 KiB cap is cut by whole entries, the host's "
    "limitations kept",
    "[workflow][validation]") {
  ValidationRenderInput in = Sample();
  const std::string full_before = RenderValidationReport(in);
  const CappedValidationReport fits = CapValidationReport(in, kMergerOutputMaxBytes);
  CHECK_FALSE(fits.cut);
  CHECK(fits.text == full_before);  // a report within the cap is unchanged
  CHECK(fits.full == full_before);

  // 300 included findings of ~400 bytes each: about 120 KiB.
  const std::string filler(300, 'x');
  for (int i = 0; i < 300; ++i) {
    const std::string n = std::to_string(i);
    in.accounting.groups.push_back(
        G("g-big-" + n, {"C-F" + n}, "minor", "big.cc:" + n, filler + n));
  }
  in.host_limitations.push_back(DroppedReviewerLimitation(2, "child_timeout", "idle"));
  const CappedValidationReport capped = CapValidationReport(in, kMergerOutputMaxBytes);
  REQUIRE(capped.cut);
  CHECK(capped.full == RenderValidationReport(in));
  CHECK(JsonRenderedBytes(capped.full) > kMergerOutputMaxBytes);
  CHECK(JsonRenderedBytes(capped.text) <= kMergerOutputMaxBytes);
  CHECK(JsonRenderedBytes(capped.text) > kMergerOutputMaxBytes - 2048);  // cut by entries, no more
  // Every section is still there, in order; the cut one says how much went and where it is.
  size_t at = 0;
  for (const char* heading : {"## Summary", "## Findings", "## Excluded source findings",
                              "## Verified", "## Limitations"}) {
    const size_t next = capped.text.find(heading, at);
    REQUIRE(next != std::string::npos);
    at = next;
  }
  // (std::regex recurses per character: a find, not Catch::Matches, on 64 KiB of text.)
  const size_t omitted = capped.text.find(
      " more findings omitted to keep this report within its "
      "65536-byte limit; the whole report is in "
      "validation-report.full.md._\n\n## Excluded");
  REQUIRE(omitted != std::string::npos);
  CHECK(capped.text.rfind("\n\n_", omitted) != std::string::npos);
  // The findings kept are the first ones in report order (critical first); the last ones go
  // whole: "c.cc:3" sorts after every "big.cc:…".
  CHECK(capped.text.find("### critical: overflow") != std::string::npos);
  CHECK(capped.text.find("### minor: naming") == std::string::npos);
  CHECK(capped.full.find("### minor: naming") != std::string::npos);
  // The host's own limitations survive the cut.
  CHECK(capped.text.find("The reviewer in candidate slot 2 produced no usable report") !=
        std::string::npos);
  CHECK(capped.text.find("wrapped its report in a ```json fence") != std::string::npos);
}

TEST_CASE("RenderReviewerReport: counts, findings in order, verified and limitations",
          "[workflow][validation]") {
  ValidationReport report;
  report.findings = {
      {"minor", "a.cc:1", "e1", "i1", "style"},
      {"critical", "b.cc:2", "e2\nmore", "i2", "# crash"},
      {"minor", "c.cc:3", "e3", "i3", "typo"},
  };
  report.verified = {"tests pass"};
  CHECK(RenderReviewerReport(report) ==
        "3 findings: 1 critical, 2 minor.\n"
        "\n### minor: style\n\n- Location: a.cc:1\n- Evidence: e1\n- Impact: i1\n"
        "\n### critical: \\# crash\n\n- Location: b.cc:2\n- Evidence: e2 more\n- Impact: i2\n"
        "\n### minor: typo\n\n- Location: c.cc:3\n- Evidence: e3\n- Impact: i3\n"
        "\n**Verified**\n\n- tests pass\n");
  CHECK(RenderReviewerReport(ValidationReport{{}, {}, {"no tests read"}}) ==
        "No findings.\n\n**Limitations**\n\n- no tests read\n");
}

TEST_CASE("MarkdownSanitize: inline and block rules", "[workflow][validation]") {
  struct Case {
    const char* name;
    std::string input, inline_out, block_out;
  };
  const std::vector<Case> cases = {
      {"plain", "a b", "a b", "a b"},
      {"line breaks", " a\r\nb\rc\n\n\n\nd ", "a b c d", "a\nb\nc\n\nd"},
      {"unicode line separators", "a\u2028b\u2029c", "a b c", "a\nb\nc"},
      {"heading", "# x", "\\# x", "\\# x"},
      {"fence", "~~~\ncode", "\\~~~ code", "\\~~~\ncode"},
      {"html", "<script>x</script>", "\\<script>x\\</script>", "\\<script>x\\</script>"},
      {"setext underline", "Title\n===", "Title ===", "Title\n\\==="},
      {"thematic break", "* * *", "\\* * *", "* * \\*"},
      {"table row", "| a | b |", "\\| a | b |", "\\| a | b |"},
      {"ordered list", "12) x", "12\\) x", "12) x"},
      {"list item kept", "- item", "\\- item", "- item"},
      {"indented code", "    code", "code", "code"},
      {"controls and bidi", "a\x01\x7f\u202e\u2066b\u0085c\td", "abc d", "abc\td"},
      {"invalid UTF-8", "a\xff", "a\uFFFD", "a\uFFFD"},
      {"blank", " \n\t ", "", ""},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(SanitizeInlineMarkdown(c.input) == c.inline_out);
    CHECK(SanitizeBlockMarkdown(c.input) == c.block_out);
  }
}

}  // namespace pi_fusion::workflow
