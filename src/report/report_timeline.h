// The report's timeline and cost rows, from the manifest's own records (docs/cli/report.md,
// "Timeline"): each attempt's started_at, first_output_at, ended_at and its exit's exited_at, the
// warm children's spawn and end, the quorum's degraded record and its grace window; and, from
// each attempt's verified audit journal, every tool call's started_at and duration. Pure;
// thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_model.h"
#include "store/manifest.h"

namespace pi_fusion::report {

// An attempt's started_at to its ended_at in milliseconds; none while it runs or when a time
// cannot be read.
std::optional<int64_t> AttemptDurationMs(const store::AttemptRecord& attempt);

// The bytes of every artifact that verified, by name.
using VerifiedBytes = std::map<std::string, std::string, std::less<>>;

// The calls of one audit journal that carry a started_at, in journal order, placed `origin_ms`
// (the run's created_at) from the start. Lines that are not records are skipped.
std::vector<TimelineCall> TimelineCallsOf(std::string_view journal, int64_t origin_ms);

// Fills model.lanes, grace, span_ms and costs from `manifest` (and the tool-call counts of
// model.candidates, which must be filled first); each lane's calls from its attempt's journal in
// `verified` (a journal that did not verify is not drawn).
void AddTimeline(const store::Manifest& manifest, ReportModel& model,
                 const VerifiedBytes& verified = {});

}  // namespace pi_fusion::report
