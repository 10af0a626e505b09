// The report's pure renderers: escaping, Markdown with hostile text, and the SVG geometry.
#include <catch2/catch.hpp>

#include <string>

#include "report/html_text.h"
#include "report/markdown_html.h"
#include "report/report_svg.h"

namespace pi_fusion::report {
namespace {

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST_CASE("HtmlText escapes HTML's characters and shows controls") {
  CHECK(HtmlText("<a href=\"x\" onclick='y'>&</a>") ==
        "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  CHECK(HtmlText("clear\x1b[2J") == "clear\xe2\x90\x9b[2J");  // ESC as U+241B
  CHECK(HtmlText("a\nb") ==
        "a\xe2\x90\x8a"
        "b");  // one line: the line end shown
  CHECK(HtmlText("a\nb", TextShape::kMultiLine) == "a\nb");
  CHECK(HtmlText("\xff") == "\\xff");  // not UTF-8: shown as its byte
}

TEST_CASE("numbers, costs and durations as the report writes them") {
  CHECK(GroupedNumber(0) == "0");
  CHECK(GroupedNumber(1234567) == "1,234,567");
  CHECK(DollarText(0.0025) == "$0.0025");
  CHECK(DollarText(12.5) == "$12.50");
  CHECK(DurationText(950) == "950 ms");
  CHECK(DurationText(1250) == "1.25 s");
  CHECK(DurationText(125000) == "2 min 5 s");
}

TEST_CASE("Markdown renders, with raw HTML and dangerous links disabled") {
  const std::string html = MarkdownHtml(
      "# Title\n\n| a | b |\n|---|---|\n| 1 | **2** |\n\n"
      "<script>document.title='owned'</script>\n\n"
      "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">\n\n"
      "<style>body{display:none}</style>\n\n"
      "[click](javascript:alert(1)) [data](data:text/html,hi) [vb](VBScript:x) "
      "[rel](../../etc/passwd)\n\n"
      "[fine](https://example.com/a?b=1&c=2) <https://auto.example> "
      "![pic](http://e.example/x.png)\n\n"
      "Escape: \x1b]52;c;AAAA\x07 done\n");
  CHECK(Count(html, "<h1>Title</h1>") == 1);
  CHECK(Count(html, "<table>") == 1);
  CHECK(Count(html, "<strong>2</strong>") == 1);
  CHECK(Count(html, "<script") == 0);
  CHECK(Count(html, "<img") == 0);
  CHECK(Count(html, "<style") == 0);
  CHECK(Count(html, "onerror") == 0);
  CHECK(Count(html, "javascript:") == 0);
  CHECK(Count(html, "data:text") == 0);
  CHECK(Count(html, "VBScript") == 0);
  CHECK(Count(html, "etc/passwd") == 0);
  CHECK(Count(html, "<a href=\"\">click</a>") == 1);
  CHECK(Count(html, "<a href=\"https://example.com/a?b=1&amp;c=2\">fine</a>") == 1);
  CHECK(Count(html, "<a href=\"https://auto.example\">") == 1);
  CHECK(Count(html, "<a href=\"http://e.example/x.png\">image: pic</a>") == 1);
  CHECK(Count(html, "\x1b") == 0);
  CHECK(Count(html, "\x07") == 0);
  CHECK(Count(html, "\xe2\x90\x9b]52") == 1);  // the OSC 52 shown as text
}

TEST_CASE("Markdown past the cap is cut, with a note") {
  const std::string long_text(kMarkdownMaxBytes + 100, 'x');
  const std::string html = MarkdownHtml(long_text);
  CHECK(Count(html, "Cut: ") == 1);
  CHECK(html.size() < kMarkdownMaxBytes + 200);
}

TEST_CASE("IsLinkableUrl takes http, https and mailto only") {
  CHECK(IsLinkableUrl("https://a"));
  CHECK(IsLinkableUrl("HTTP://a"));
  CHECK(IsLinkableUrl("mailto:x@y"));
  CHECK_FALSE(IsLinkableUrl("javascript:x"));
  CHECK_FALSE(IsLinkableUrl("file:///etc/passwd"));
  CHECK_FALSE(IsLinkableUrl("/etc/passwd"));
  CHECK_FALSE(IsLinkableUrl("http:/x"));
}

TEST_CASE("timeline geometry: the plot spans the label column to the note column") {
  CHECK(TimelineX(0, 1000) == Approx(kTimelineLabelWidth));
  CHECK(TimelineX(1000, 1000) == Approx(kSvgWidth - kTimelineRightMargin));
  CHECK(
      TimelineX(500, 1000) ==
      Approx(kTimelineLabelWidth + (kSvgWidth - kTimelineLabelWidth - kTimelineRightMargin) / 2.0));
  CHECK(TimelineX(-5, 1000) == Approx(kTimelineLabelWidth));                 // clamped
  CHECK(TimelineX(5000, 1000) == Approx(kSvgWidth - kTimelineRightMargin));  // clamped
}

TEST_CASE("timeline SVG: one lane per child, its marks, the grace window and hostile labels") {
  const std::vector<TimelineLane> lanes = {
      {"candidate 1", "candidate", 0, 4000, "completed", 3, 1200},
      {"candidate 2", "candidate", 0, std::nullopt, "running", 0, 0},
      {"<b>x</b>", "merger", 5000, 6000, "failed", 0, 0},
  };
  const std::string svg = TimelineSvg(lanes, GraceWindow{4000, 9000, 2}, 10000);
  CHECK(Count(svg, "<g class=\"lane ") == 3);
  CHECK(Count(svg, "class=\"mark answer\"") == 1);
  CHECK(Count(svg, "class=\"mark exit\"") == 1);
  CHECK(Count(svg, "class=\"bar open\"") == 1);  // still running: drawn to the end, faded
  CHECK(Count(svg, "3 tool calls, 1.20 s") == 1);
  CHECK(Count(svg, "<b>") == 0);
  CHECK(Count(svg, "&lt;b&gt;x&lt;/b&gt;") == 2);  // its label and its data-lane
  // The grace window starts at the second answer's x and is cut at its end.
  const std::string x0 = "x=\"" + std::to_string(static_cast<int>(TimelineX(4000, 10000))) + ".";
  CHECK(Count(svg, "<rect class=\"grace-window\" " + x0) == 1);
  CHECK(Count(svg, "cut: candidate 2") == 1);
  CHECK(Count(svg, "<script") == 0);
}

TEST_CASE("call ticks: each from its start, as wide as its duration, overlapping ones merged") {
  const double unit = (kSvgWidth - kTimelineLabelWidth - kTimelineRightMargin) / 10000.0;  // 1 ms
  const std::vector<TimelineCall> calls = {
      {5000, 1000, false},  // 5.0-6.0 s
      {1000, 0, false},     // a 0 ms call: the minimum width
      {5500, 100, false},   // inside the first: merged into it
      {2000, 500, true},    // refused: drawn apart
      {8000, 10, false},
  };
  const std::vector<TickSpan> ok = CallTicks(calls, false, 10000);
  REQUIRE(ok.size() == 3);
  CHECK(ok[0].x0 == Approx(TimelineX(1000, 10000)));
  CHECK(ok[0].x1 == Approx(ok[0].x0 + kMinTickWidth));
  CHECK(ok[0].calls == 1);
  CHECK(ok[1].x0 == Approx(TimelineX(5000, 10000)));
  CHECK(ok[1].x1 - ok[1].x0 == Approx(1000 * unit));
  CHECK(ok[1].calls == 2);
  CHECK(ok[2].x1 - ok[2].x0 == Approx(kMinTickWidth));  // 10 ms is under one unit here
  const std::vector<TickSpan> refused = CallTicks(calls, true, 10000);
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].x1 - refused[0].x0 == Approx(500 * unit));
}

TEST_CASE("call ticks: 600 calls stay a bounded path however the run is spread") {
  std::vector<TimelineCall> calls;
  for (int i = 0; i < 600; ++i) calls.push_back({i * 100, 5 + i % 17, i % 5 == 4});
  TimelineLane lane{"candidate 1", "candidate", 0, 60000, "completed", 600, 6000};
  lane.calls = calls;
  const std::string svg = TimelineSvg({lane}, std::nullopt, 60000);
  // Every call is drawn and counted, in one path for the ok calls and one for the refused ones.
  CHECK(Count(svg, "class=\"call-ticks ok\" data-calls=\"480\"") == 1);
  CHECK(Count(svg, "class=\"call-ticks refused\" data-calls=\"120\"") == 1);
  // Nothing like one element per call: at most one rectangle per unit of the plot's width.
  const size_t rects = Count(svg, "z\"") + Count(svg, "zM");
  CHECK(rects <= static_cast<size_t>(kSvgWidth - kTimelineLabelWidth - kTimelineRightMargin) * 2);
  CHECK(svg.size() < 64 * 1024);
  // All 600 at the same moment: one stretch each.
  for (TimelineCall& call : lane.calls) call.start_ms = 30000;
  CHECK(CallTicks(lane.calls, false, 60000).size() == 1);
  CHECK(CallTicks(lane.calls, false, 60000)[0].calls == 480);
  CHECK(CallTicks(lane.calls, true, 60000).size() == 1);
}

TEST_CASE("timeline SVG: the first output, refused ticks and the exit after the answer") {
  TimelineLane lane{"candidate 1", "candidate", 1000, 5000, "completed", 2, 300};
  lane.first_output_ms = 2000;
  lane.exit_ms = 7000;
  lane.exit_note = "exit code 0";
  lane.calls = {{3000, 200, false}, {3500, 100, true}};
  TimelineLane old{"merger", "merger", 5000, 6000, "completed", 0, 0};  // no recorded moments
  const std::string svg = TimelineSvg({lane, old}, std::nullopt, 10000);
  CHECK(Count(svg, "class=\"mark first-output\"") == 1);
  CHECK(Count(svg, "first output, 1.00 s after the start") == 1);
  CHECK(Count(svg, "class=\"call-ticks ok\" data-calls=\"1\"") == 1);
  CHECK(Count(svg, "class=\"call-ticks refused\" data-calls=\"1\"") == 1);
  CHECK(Count(svg, "class=\"mark process-exit\"") == 1);
  CHECK(Count(svg, "process exited: exit code 0") == 1);
  // The process outlived its answer: a tail from the attempt's end to the exit.
  const std::string tail = "<line class=\"after-answer\" x1=\"" +
                           std::to_string(static_cast<int>(TimelineX(5000, 10000))) + ".";
  CHECK(Count(svg, tail) == 1);
  // The first output's line and the exit's I-beam stand at their times.
  const std::string fx = "M" + std::to_string(static_cast<int>(TimelineX(2000, 10000))) + ".";
  CHECK(Count(svg, "class=\"mark first-output\" d=\"" + fx) == 1);
}

TEST_CASE("cost bars: one row per role, scaled to the largest") {
  const std::string svg =
      CostBarsSvg({{"candidate 1", "candidate", 1000, 0.5}, {"merger", "merger", 4000, 0.25}});
  CHECK(Count(svg, "<g class=\"cost-row ") == 2);
  CHECK(Count(svg, "1,000") == 1);
  CHECK(Count(svg, "$0.5000") == 1);
  // The merger has the most tokens: its token bar is the full plot width.
  const double plot = (kSvgWidth - kTimelineLabelWidth - kTimelineRightMargin) / 2.0 - 10;
  char full[64];
  std::snprintf(full, sizeof(full), "class=\"bar tokens\" x=\"%d.0\" y=\"70.0\" width=\"%.1f\"",
                kTimelineLabelWidth, plot);
  CHECK(Count(svg, full) == 1);
}

}  // namespace
}  // namespace pi_fusion::report
