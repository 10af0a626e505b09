// The report's one stylesheet (report_style.cc): a constant, so the page's Content-Security-Policy
// can allow exactly it by hash. Light by default, dark under prefers-color-scheme: dark.
#pragma once

namespace pi_fusion::report {

extern const char kReportCss[];

}  // namespace pi_fusion::report
