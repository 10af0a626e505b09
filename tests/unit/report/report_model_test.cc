// The report model and page of a run directory written by the run store: built from verified
// artifacts only (a tampered answer is listed as failed and never rendered), every section there.
#include <catch2/catch.hpp>

#include "report/report_html.h"
#include "report/report_model.h"
#include "test_support.h"

namespace pi_fusion::report {
namespace {

using store::testing::CompletedRunFixture;

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST_CASE("report model: a completed run, every artifact verified") {
  CompletedRunFixture f("# Merged\n\n<script>x</script>");
  const ReportModel model = ReadReportModel(f.fs, f.run_dir);
  CHECK(model.problems.empty());
  CHECK(model.run_id == store::testing::kRunId);
  CHECK(model.state == "completed");
  REQUIRE(model.merged);
  REQUIRE(model.candidates.size() == 3);
  for (const CandidateReport& c : model.candidates) {
    REQUIRE(c.answer);
    CHECK(*c.answer == "candidate answer " + std::to_string(c.slot));
  }
  CHECK_FALSE(model.artifacts.empty());
  for (const ArtifactRow& a : model.artifacts) CHECK(a.verified);
  CHECK(model.lanes.size() == 3);

  const std::string html = RenderReportHtml(model);
  CHECK(Count(html, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'") ==
        1);
  CHECK(Count(html, "<article class=\"candidate\"") == 3);
  CHECK(Count(html, "<svg class=\"timeline\"") == 1);
  CHECK(Count(html, "<script") == 0);
  CHECK(Count(html, "candidate answer 2") == 1);
  CHECK(Count(html, "data-verified=\"no\"") == 0);
}

TEST_CASE("report model: what does not verify is listed as failed and never rendered") {
  CompletedRunFixture tampered("merged");
  store::testing::WriteAll(tampered.run_dir + "/candidate-2.attempt-1.response.md",
                           "candidate answer X");
  const ReportModel model = ReadReportModel(tampered.fs, tampered.run_dir);
  CHECK_FALSE(model.problems.empty());
  REQUIRE(model.candidates.size() == 3);
  CHECK_FALSE(model.candidates[1].answer);
  CHECK(model.candidates[0].answer);
  std::string html = RenderReportHtml(model);
  CHECK(Count(html, "candidate answer X") == 0);
  CHECK(Count(html, "failed verification, so it is not shown") == 1);
  CHECK(Count(html, "data-verified=\"no\"") == 1);

  // A directory whose manifest cannot be read still gets a page that says so.
  CompletedRunFixture broken("merged");
  store::testing::WriteAll(broken.run_dir + "/manifest.json", "{not json");
  const ReportModel unreadable = ReadReportModel(broken.fs, broken.run_dir);
  CHECK(unreadable.state == "unreadable");
  CHECK(unreadable.candidates.empty());
  html = RenderReportHtml(unreadable);
  CHECK(Count(html, "Failed verification") == 1);
  CHECK(Count(html, "<article") == 0);
}

}  // namespace
}  // namespace pi_fusion::report
