// The run report as one self-contained HTML page (docs/cli/report.md): no script, and nothing
// fetched: the page's Content-Security-Policy is `default-src 'none'` with only its own inline
// stylesheet allowed (by its SHA-256), so even markup that slipped through could load or run
// nothing. Light and dark schemes follow the reader's system setting.
//
// Pure; thread-safe.
#pragma once

#include <string>

#include "report/report_model.h"

namespace pi_fusion::report {

// The Content-Security-Policy the page carries in its <meta http-equiv>.
std::string ReportCsp();

std::string RenderReportHtml(const ReportModel& model);

}  // namespace pi_fusion::report
