// What people read about the report (views/report_texts.h): the path on one visible line, the
// TUI's hint how to open it, and the line the completed views carry.
#include <catch2/catch.hpp>

#include "views/report_texts.h"

namespace pi_fusion::views {
namespace {

TEST_CASE("report texts: the path, the TUI's hint, a run that does not verify") {
  const std::string path = "/p/.pi/fusion-reports/reason-0123.html";
  CHECK(ReportWrittenText(path, false, false) == "Fusion report written: " + path);
  CHECK(ReportWrittenText(path, true, false) ==
        "Fusion report written: " + path + "\nOpen it in a browser, e.g. xdg-open '" + path + "'");
  CHECK(ReportWrittenText(path, false, true).find("\nThe run does not verify") !=
        std::string::npos);
  // A directory name is data: its controls are shown, and it stays on its line.
  CHECK(ReportWrittenText("/p/a\nb\x1b[2J.html", false, false) ==
        "Fusion report written: /p/a\xe2\x90\x8a"
        "b\xe2\x90\x9b[2J.html");
  CHECK(
      ReportHintText("reason-0123456789abcdef0123456789abcdef") ==
      "Report: /fusion-report 01234567 (an HTML page of the run: answers, evaluation, timeline).");
  CHECK(NoRunToReportText("/p") == "/fusion-report: no Fusion run under /p/.pi/fusion");
}

}  // namespace
}  // namespace pi_fusion::views
