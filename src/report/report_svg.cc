#include "report/report_svg.h"

#include <algorithm>
#include <cstdio>

#include "report/html_text.h"

namespace pi_fusion::report {
namespace {

std::string Num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f", value);
  return buffer;
}

std::string Attr(const char* name, double value) {
  return std::string(" ") + name + "=\"" + Num(value) + "\"";
}

std::string Text(double x, double y, const std::string& cls, const std::string& escaped,
                 const char* anchor = "start") {
  return "<text" + Attr("x", x) + Attr("y", y) + " class=\"" + cls + "\" text-anchor=\"" + anchor +
         "\">" + escaped + "</text>";
}

std::string Axis(int64_t span_ms, double height) {
  std::string out = "<g class=\"axis\">";
  constexpr int kTicks = 5;
  for (int i = 0; i <= kTicks; ++i) {
    const int64_t ms = span_ms * i / kTicks;
    const double x = TimelineX(ms, span_ms);
    out += "<line" + Attr("x1", x) + Attr("y1", kTimelineAxisHeight - 6) + Attr("x2", x) +
           Attr("y2", height) + " class=\"tick\"/>";
    out += Text(x, kTimelineAxisHeight - 10, "tick-label", EscapeHtml(DurationText(ms)), "middle");
  }
  return out + "</g>";
}

// A lane's end mark: a diamond where its answer verified, a cross where it failed or was stopped.
std::string EndMark(const TimelineLane& lane, double x, double mid) {
  if (lane.end_state == "completed") {
    return "<path class=\"mark answer\" d=\"M" + Num(x) + " " + Num(mid - 7) +
           " l7 7 l-7 7 l-7 -7z\">"
           "<title>answer verified, attempt ended</title></path>";
  }
  return "<path class=\"mark exit\" d=\"M" + Num(x - 6) + " " + Num(mid - 6) + " l12 12 m0 -12 " +
         "l-12 12\"><title>" + EscapeHtml(lane.end_state) + "</title></path>";
}

// One path for the lane's ok calls or its refused ones: a rectangle per stretch, refused ones
// taller so they read without colour too.
std::string Ticks(const TimelineLane& lane, bool refused, double top, int64_t span_ms) {
  const std::vector<TickSpan> spans = CallTicks(lane.calls, refused, span_ms);
  if (spans.empty()) return "";
  size_t calls = 0;
  const double y = refused ? top + 5 : top + 9;
  const double height = refused ? kTimelineLaneHeight - 10 : kTimelineLaneHeight - 18;
  std::string d;
  for (const TickSpan& span : spans) {
    calls += span.calls;
    d += "M" + Num(span.x0) + " " + Num(y) + "H" + Num(span.x1) + "v" + Num(height) + "H" +
         Num(span.x0) + "z";
  }
  const std::string what = refused ? " refused or failed" : " ok";
  return "<path class=\"call-ticks " + std::string(refused ? "refused" : "ok") +
         "\" data-calls=\"" + std::to_string(calls) + "\" d=\"" + d + "\"><title>" +
         EscapeHtml(GroupedNumber(calls) + " tool calls" + what + ", each from its start") +
         "</title></path>";
}

// Where the parent first read the child's output: a line across the lane under a small flag.
std::string FirstOutputMark(const TimelineLane& lane, double top, int64_t span_ms) {
  const double x = TimelineX(*lane.first_output_ms, span_ms);
  return "<path class=\"mark first-output\" d=\"M" + Num(x) + " " + Num(top + 4) + "v" +
         Num(kTimelineLaneHeight - 8) + "M" + Num(x) + " " + Num(top + 2) + "h6l-6 5z\"><title>" +
         EscapeHtml("first output, " + DurationText(*lane.first_output_ms - lane.start_ms) +
                    " after the start") +
         "</title></path>";
}

// Where the child's process ended: an I-beam; a dashed tail from the attempt's end when the
// process outlived its answer.
std::string ExitMark(const TimelineLane& lane, double end_x, double top, int64_t span_ms) {
  const double x = TimelineX(*lane.exit_ms, span_ms);
  const double mid = top + kTimelineLaneHeight / 2.0;
  std::string out;
  if (x > end_x + 1) {
    out += "<line class=\"after-answer\"" + Attr("x1", end_x) + Attr("y1", mid) + Attr("x2", x) +
           Attr("y2", mid) + "><title>running after the attempt ended</title></line>";
  }
  return out + "<path class=\"mark process-exit\" d=\"M" + Num(x - 4) + " " + Num(top + 4) + "h8M" +
         Num(x) + " " + Num(top + 4) + "v" + Num(kTimelineLaneHeight - 8) + "M" + Num(x - 4) + " " +
         Num(top + kTimelineLaneHeight - 4) + "h8\"><title>" +
         EscapeHtml("process exited: " + lane.exit_note) + "</title></path>";
}

std::string Lane(const TimelineLane& lane, int index, int64_t span_ms) {
  const double top = kTimelineAxisHeight + index * kTimelineLaneHeight;
  const double mid = top + kTimelineLaneHeight / 2.0;
  const double x0 = TimelineX(lane.start_ms, span_ms);
  const double x1 = TimelineX(lane.end_ms.value_or(span_ms), span_ms);
  std::string out = "<g class=\"lane role-" + EscapeHtml(lane.role) + "\" data-lane=\"" +
                    HtmlText(lane.label) + "\" data-state=\"" + EscapeHtml(lane.end_state) + "\">";
  out += Text(8, mid + 4, "lane-label", HtmlText(lane.label));
  out += "<rect class=\"bar" + std::string(lane.end_ms ? "" : " open") + "\"" + Attr("x", x0) +
         Attr("y", top + 8) + Attr("width", std::max(2.0, x1 - x0)) +
         Attr("height", kTimelineLaneHeight - 16) + " rx=\"3\"/>";
  out += Ticks(lane, /*refused=*/false, top, span_ms);
  out += Ticks(lane, /*refused=*/true, top, span_ms);
  out += "<circle class=\"mark start\"" + Attr("cx", x0) + Attr("cy", mid) +
         " r=\"4\"><title>started</title></circle>";
  if (lane.first_output_ms) out += FirstOutputMark(lane, top, span_ms);
  if (lane.end_ms) out += EndMark(lane, x1, mid);
  if (lane.exit_ms) out += ExitMark(lane, lane.end_ms ? x1 : x0, top, span_ms);
  if (lane.tool_calls > 0) {
    out += Text(
        kSvgWidth - kTimelineRightMargin + 12, mid + 4, "lane-note",
        EscapeHtml(GroupedNumber(lane.tool_calls) + " tool calls, " + DurationText(lane.tool_ms)));
  }
  return out + "</g>";
}

std::string Grace(const GraceWindow& grace, int64_t span_ms, double height) {
  const double x0 = TimelineX(grace.start_ms, span_ms);
  const double x1 = TimelineX(grace.end_ms, span_ms);
  std::string out = "<g class=\"grace\">";
  out += "<rect class=\"grace-window\"" + Attr("x", x0) + Attr("y", kTimelineAxisHeight) +
         Attr("width", std::max(1.0, x1 - x0)) + Attr("height", height - kTimelineAxisHeight) +
         "><title>grace window after the second answer</title></rect>";
  out += "<line class=\"cut\"" + Attr("x1", x1) + Attr("y1", kTimelineAxisHeight) + Attr("x2", x1) +
         Attr("y2", height) + "/>";
  out += Text(x1 + 4, height - 4, "cut-label",
              EscapeHtml("cut: candidate " + std::to_string(grace.cut_slot)));
  return out + "</g>";
}

}  // namespace

double TimelineX(int64_t ms, int64_t span_ms) {
  const double plot = kSvgWidth - kTimelineLabelWidth - kTimelineRightMargin;
  const double clamped =
      std::clamp<double>(static_cast<double>(ms), 0.0, static_cast<double>(span_ms));
  return kTimelineLabelWidth + plot * clamped / static_cast<double>(span_ms);
}

std::vector<TickSpan> CallTicks(const std::vector<TimelineCall>& calls, bool refused,
                                int64_t span_ms) {
  std::vector<TickSpan> ticks;
  for (const TimelineCall& call : calls) {
    if (call.refused != refused) continue;
    const double x0 = TimelineX(call.start_ms, span_ms);
    const double x1 = TimelineX(call.start_ms + call.duration_ms, span_ms);
    ticks.push_back({x0, std::max(x1, x0 + kMinTickWidth), 1});
  }
  // Calls of one batch run concurrently and finish in any order: sort by start, then merge.
  std::sort(ticks.begin(), ticks.end(),
            [](const TickSpan& a, const TickSpan& b) { return a.x0 < b.x0; });
  std::vector<TickSpan> merged;
  for (const TickSpan& tick : ticks) {
    if (!merged.empty() && tick.x0 <= merged.back().x1) {
      merged.back().x1 = std::max(merged.back().x1, tick.x1);
      merged.back().calls += tick.calls;
    } else {
      merged.push_back(tick);
    }
  }
  return merged;
}

std::string TimelineSvg(const std::vector<TimelineLane>& lanes,
                        const std::optional<GraceWindow>& grace, int64_t span_ms) {
  const double height =
      kTimelineAxisHeight + static_cast<double>(lanes.size()) * kTimelineLaneHeight + 8;
  std::string out =
      "<svg class=\"timeline\" role=\"img\" aria-label=\"Run timeline\" viewBox=\"0 0 " +
      std::to_string(kSvgWidth) + " " + Num(height) + "\" xmlns=\"http://www.w3.org/2000/svg\">";
  out += Axis(span_ms, height);
  if (grace) out += Grace(*grace, span_ms, height);
  for (size_t i = 0; i < lanes.size(); ++i) out += Lane(lanes[i], static_cast<int>(i), span_ms);
  return out + "</svg>";
}

std::string CostBarsSvg(const std::vector<RoleCost>& costs) {
  uint64_t max_tokens = 1;
  double max_cost = 0;
  for (const RoleCost& row : costs) {
    max_tokens = std::max(max_tokens, row.tokens);
    max_cost = std::max(max_cost, row.cost_usd);
  }
  constexpr int kRow = 40;
  constexpr double kLeft = kTimelineLabelWidth;
  constexpr double kPlot = (kSvgWidth - kTimelineLabelWidth - kTimelineRightMargin) / 2.0 - 10;
  const int height = static_cast<int>(costs.size()) * kRow + 30;
  std::string out =
      "<svg class=\"costs\" role=\"img\" aria-label=\"Tokens and cost per role\" "
      "viewBox=\"0 0 " +
      std::to_string(kSvgWidth) + " " + std::to_string(height) +
      "\" xmlns=\"http://www.w3.org/2000/svg\">";
  out +=
      Text(kLeft, 16, "tick-label", "tokens") + Text(kLeft + kPlot + 20, 16, "tick-label", "cost");
  for (size_t i = 0; i < costs.size(); ++i) {
    const RoleCost& row = costs[i];
    const double top = 26 + static_cast<double>(i) * kRow;
    const double tokens_w =
        kPlot * static_cast<double>(row.tokens) / static_cast<double>(max_tokens);
    const double cost_w = max_cost > 0 ? kPlot * row.cost_usd / max_cost : 0;
    out += "<g class=\"cost-row role-" + EscapeHtml(row.role) + "\" data-role=\"" +
           HtmlText(row.label) + "\">";
    out += Text(8, top + 18, "lane-label", HtmlText(row.label));
    out += "<rect class=\"bar tokens\"" + Attr("x", kLeft) + Attr("y", top + 4) +
           Attr("width", std::max(1.0, tokens_w)) + " height=\"20\" rx=\"3\"/>";
    out += Text(kLeft + tokens_w + 4, top + 18, "lane-note", EscapeHtml(GroupedNumber(row.tokens)));
    const double cost_x = kLeft + kPlot + 20;
    out += "<rect class=\"bar cost\"" + Attr("x", cost_x) + Attr("y", top + 4) +
           Attr("width", std::max(1.0, cost_w)) + " height=\"20\" rx=\"3\"/>";
    out += Text(cost_x + cost_w + 4, top + 18, "lane-note", EscapeHtml(DollarText(row.cost_usd)));
    out += "</g>";
  }
  return out + "</svg>";
}

}  // namespace pi_fusion::report
