// The report model and page of a run directory written by the run store: built from verified
// artifacts only (a tampered answer is listed as failed and never rendered), every section there.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "report/report_html.h"
#include "report/report_model.h"
#include "test_support.h"

namespace pi_fusion::report {
namespace {

using nlohmann::json;
using store::testing::kRunId;
using store::testing::StoreFixture;
using store::testing::WriteAll;

struct CompletedRun : StoreFixture {
  CompletedRun() {
    WalkTo(store::RunState::kCandidatesRunning);
    RecordCandidates();
    WalkTo(store::RunState::kMerging);
    REQUIRE(store
                ->CommitResult("# Merged\n\n<script>x</script>",
                               json{{"run_id", kRunId}, {"workflow", "reason"}})
                .ok());
    run_dir = store->run_dir();
    store.reset();
  }
  std::string run_dir;
};

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST_CASE("report model: a completed run, every artifact verified") {
  CompletedRun f;
  const ReportModel model = ReadReportModel(f.fs, f.run_dir);
  CHECK(model.problems.empty());
  CHECK(model.run_id == kRunId);
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

TEST_CASE("report model: a tampered answer is listed as failed and not rendered") {
  CompletedRun f;
  WriteAll(f.run_dir + "/candidate-2.attempt-1.response.md", "candidate answer X");
  const ReportModel model = ReadReportModel(f.fs, f.run_dir);
  CHECK_FALSE(model.problems.empty());
  REQUIRE(model.candidates.size() == 3);
  CHECK_FALSE(model.candidates[1].answer);
  CHECK(model.candidates[0].answer);
  const std::string html = RenderReportHtml(model);
  CHECK(Count(html, "candidate answer X") == 0);
  CHECK(Count(html, "failed verification, so it is not shown") == 1);
  CHECK(Count(html, "data-verified=\"no\"") == 1);
}

TEST_CASE("report model: a directory without a readable manifest still gets a page") {
  CompletedRun f;
  WriteAll(f.run_dir + "/manifest.json", "{not json");
  const ReportModel model = ReadReportModel(f.fs, f.run_dir);
  CHECK(model.state == "unreadable");
  CHECK_FALSE(model.problems.empty());
  const std::string html = RenderReportHtml(model);
  CHECK(Count(html, "Failed verification") == 1);
  CHECK(Count(html, "<script") == 0);
}

}  // namespace
}  // namespace pi_fusion::report
