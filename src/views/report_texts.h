// What people read about the HTML run report (docs/commands/fusion-report.md,
// docs/cli/report.md): the /fusion-report command's description and answers, and the one line
// the completed views add to say how to get a run's report. Pure; thread-safe.
#pragma once

#include <string>

namespace pi_fusion::views {

inline constexpr char kFusionReportCommandDescription[] =
    "Write a Fusion run's self-contained HTML report and show its path: /fusion-report <run id "
    "or prefix>, or no argument for this project's newest run";

// "Report: /fusion-report 1a2b3c4d (an HTML page of the run: answers, evaluation, timeline)."
std::string ReportHintText(const std::string& run_id);

// The answer to /fusion-report once the file is written: its path; in the TUI also how to open
// it; with `unverified`, that the run failed verification and the page says what.
std::string ReportWrittenText(const std::string& path, bool tui, bool unverified);

// `pi-fusion report` did not write the report: its own error, or why it could not run.
std::string ReportFailedText(const std::string& why);

// /fusion-report without an id in a project that has no run.
std::string NoRunToReportText(const std::string& cwd);

}  // namespace pi_fusion::views
