#include "views/report_texts.h"

#include "core/terminal_text.h"
#include "store/run_id.h"

namespace pi_fusion::views {

std::string ReportHintText(const std::string& run_id) {
  return "Report: /fusion-report " + std::string(store::ShortRunId(run_id)) +
         " (an HTML page of the run: answers, evaluation, timeline).";
}

std::string ReportWrittenText(const std::string& path, bool tui, bool unverified) {
  // The path is the project's own, but a directory name may hold anything: one visible line.
  const std::string shown = NeutralizeControls(path, TextShape::kSingleLine);
  std::string text = "Fusion report written: " + shown;
  if (unverified) {
    text +=
        "\nThe run does not verify: the report shows what failed and leaves out the content "
        "of every artifact that did not verify.";
  }
  if (tui) text += "\nOpen it in a browser, e.g. xdg-open '" + shown + "'";
  return text;
}

std::string ReportFailedText(const std::string& why) {
  return "/fusion-report: " + NeutralizeControls(why, TextShape::kSingleLine);
}

std::string NoRunToReportText(const std::string& cwd) {
  return "/fusion-report: no Fusion run under " + NeutralizeControls(cwd, TextShape::kSingleLine) +
         "/.pi/fusion";
}

}  // namespace pi_fusion::views
