// The report's timeline and cost rows, from the manifest's own records (docs/cli/report.md,
// "Timeline"): each attempt's started_at and ended_at, the warm children's spawn and end, the
// quorum's degraded record and its grace window. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>

#include "report/report_model.h"
#include "store/manifest.h"

namespace pi_fusion::report {

// An attempt's started_at to its ended_at in milliseconds; none while it runs or when a time
// cannot be read.
std::optional<int64_t> AttemptDurationMs(const store::AttemptRecord& attempt);

// Fills model.lanes, grace, span_ms and costs from `manifest` (and the tool-call counts of
// model.candidates, which must be filled first).
void AddTimeline(const store::Manifest& manifest, ReportModel& model);

}  // namespace pi_fusion::report
