// The report's pictures as inline SVG (no script, no external reference; colours come from the
// page's stylesheet classes, so light and dark schemes both read):
//   - the timeline: one lane per child (candidates, evaluator, repair, merger, warm children)
//     from its start to its end, a mark where its first output arrived, a tick per tool call from
//     its start as wide as its duration (refused or failed calls taller and red), a mark where its
//     verified answer ended the attempt (or a cross where it failed), a mark where its process
//     exited (a dashed tail when that was after the answer), its tool-call count and summed tool
//     time, and the quorum's grace window with the cut;
//   - the cost bars: tokens and cost per role, each scaled to the largest row.
// Every label is HtmlText-escaped. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/report_model.h"

namespace pi_fusion::report {

// The timeline's geometry, in SVG user units (the picture scales to the page's width).
inline constexpr int kSvgWidth = 960;
inline constexpr int kTimelineLabelWidth = 170;   // the lane labels' column
inline constexpr int kTimelineRightMargin = 150;  // room for a lane's tool-call note
inline constexpr int kTimelineAxisHeight = 28;
inline constexpr int kTimelineLaneHeight = 30;

// The x of `ms` on a timeline `span_ms` long. REQUIRES: span_ms > 0.
double TimelineX(int64_t ms, int64_t span_ms);

// A call's tick is at least this wide, so a 1 ms call stays visible.
inline constexpr double kMinTickWidth = 1.0;

// One drawn stretch of tool-call ticks in SVG x units. Ticks that overlap at the picture's
// resolution are drawn as one stretch, so a lane's path stays bounded by the plot's width however
// many calls it has (600 calls in a minute are a few dozen stretches).
struct TickSpan {
  double x0 = 0;
  double x1 = 0;
  size_t calls = 0;  // how many calls it draws

  bool operator==(const TickSpan&) const = default;
};

// The ticks of the calls in `calls` whose `refused` equals `refused`, in x order: each from its
// start, as wide as its duration but at least kMinTickWidth. REQUIRES: span_ms > 0.
std::vector<TickSpan> CallTicks(const std::vector<TimelineCall>& calls, bool refused,
                                int64_t span_ms);

std::string TimelineSvg(const std::vector<TimelineLane>& lanes,
                        const std::optional<GraceWindow>& grace, int64_t span_ms);

std::string CostBarsSvg(const std::vector<RoleCost>& costs);

}  // namespace pi_fusion::report
