#include "report/report_html.h"

#include "pi_fusion/sha256.h"
#include "report/html_text.h"
#include "report/markdown_html.h"
#include "report/report_sections.h"
#include "report/report_style.h"
#include "report/report_svg.h"

namespace pi_fusion::report {
namespace {

// Standard base64 of the bytes a hex string spells (a CSP hash source is base64, not hex).
std::string HexToBase64(const std::string& hex) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) chunk |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[chunk & 63] : '=';
  }
  return out;
}

std::string UsageText(const std::optional<store::Usage>& usage) {
  if (!usage) return "–";
  return GroupedNumber(usage->total_tokens) + " tokens, " + DollarText(usage->cost.total);
}

std::string Header(const ReportModel& model) {
  std::string out = "<header>\n<h1>Fusion run " + HtmlText(model.run_id) +
                    "</h1>\n<p class=\"meta\">" +
                    HtmlText(model.workflow.empty() ? "unknown workflow" : model.workflow) + " · " +
                    "<span id=\"run-state\">" + HtmlText(model.state) + "</span> · created " +
                    HtmlText(model.created_at) + " · updated " + HtmlText(model.updated_at) +
                    " · " + HtmlText(UsageText(model.total_usage)) + "</p>\n";
  for (const std::string& notice : model.notices) {
    out += "<p class=\"notice\">" + HtmlText(notice) + "</p>\n";
  }
  if (!model.problems.empty()) {
    out +=
        "<div class=\"problem\"><p>Failed verification: the content of an artifact that did "
        "not verify is not shown.</p><ul>\n";
    for (const std::string& p : model.problems) out += "<li>" + HtmlText(p) + "</li>\n";
    out += "</ul></div>\n";
  }
  return out + "</header>\n";
}

std::string AnswerSection(const ReportModel& model) {
  std::string out = "<section id=\"answer\">\n<h2>Merged answer</h2>\n";
  if (!model.merged) {
    return out + "<p class=\"none\">No verified merged answer (the run " +
           (model.state == "completed" ? std::string("did not verify") : "has not committed one") +
           ").</p>\n</section>\n";
  }
  return out + "<div class=\"markdown\">" + MarkdownHtml(*model.merged) + "</div>\n</section>\n";
}

std::string PicturesSection(const ReportModel& model) {
  std::string out = "<section id=\"timeline\">\n<h2>Timeline</h2>\n";
  if (model.lanes.empty())
    out += "<p class=\"none\">No child has started.</p>\n";
  else
    out += TimelineSvg(model.lanes, model.grace, model.span_ms) + "\n";
  out +=
      "<p class=\"meta\">Each lane runs from a child's start (circle) to the end of its attempt: "
      "a diamond where its verified answer ended it, a cross where it failed or was stopped. "
      "A flag marks its first output, a tick each tool call from its start (red and taller when "
      "refused or failed), an I-beam its process exit (a dashed tail when that came after the "
      "attempt ended). Runs recorded before these times show none of them. Tool-call counts and "
      "their summed time are on the right.</p>\n</section>\n";
  out += "<section id=\"costs\">\n<h2>Tokens and cost by role</h2>\n";
  if (model.costs.empty())
    out += "<p class=\"none\">No usage recorded.</p>\n";
  else
    out += CostBarsSvg(model.costs) + "\n";
  return out + "</section>\n";
}

std::string Calls(const CandidateReport& c) {
  if (c.calls_total == 0) return "";
  std::string out = "<details class=\"calls\"><summary>" + GroupedNumber(c.calls_total) +
                    " tool calls, " + GroupedNumber(c.refusals) +
                    " refused or failed</summary>\n<ol>\n";
  for (const run::ShownToolCall& call : c.calls) {
    out += "<li class=\"" + EscapeHtml(call.outcome) + "\">" + HtmlText(run::ShownCallText(call)) +
           "</li>\n";
  }
  out += "</ol>\n";
  if (c.calls_total > c.calls.size()) {
    out += "<p class=\"meta\">" + GroupedNumber(c.calls_total - c.calls.size()) +
           " more not listed.</p>\n";
  }
  return out + "</details>\n";
}

std::string Sources(const CandidateReport& c) {
  if (c.sources_total == 0) return "";
  std::string out = "<p class=\"label\">Sources fetched</p><ul class=\"sources\">\n";
  for (const FetchedSource& s : c.sources) {
    out += "<li>" + HtmlText(s.url) + " · " + HtmlText(s.outcome) + " · " + GroupedNumber(s.bytes) +
           " bytes</li>\n";
  }
  if (c.sources_total > c.sources.size()) {
    out +=
        "<li class=\"meta\">" + GroupedNumber(c.sources_total - c.sources.size()) + " more</li>\n";
  }
  return out + "</ul>\n";
}

std::string Fact(const std::string& name, const std::string& value) {
  return "<dt>" + EscapeHtml(name) + "</dt><dd>" + HtmlText(value) + "</dd>";
}

std::string Candidate(const CandidateReport& c) {
  std::string out = "<article class=\"candidate\" data-slot=\"" + std::to_string(c.slot) +
                    "\">\n<h3>Candidate " + std::to_string(c.slot) +
                    (c.letter.empty() ? "" : " · " + HtmlText(c.letter)) +
                    "</h3>\n<dl class=\"facts\">";
  out += Fact("letter", c.letter.empty() ? "not drawn" : c.letter + " (as the evaluator saw it)");
  out += Fact("model", c.model) + Fact("thinking", c.thinking) + Fact("state", c.state);
  out += Fact("attempts", std::to_string(c.attempts));
  out += Fact("time", c.duration_ms ? DurationText(*c.duration_ms) : "–");
  out += Fact("tokens", c.usage ? GroupedNumber(c.usage->total_tokens) : "–");
  out += Fact("cost", c.usage ? DollarText(c.usage->cost.total) : "–");
  out += Fact("tool calls", GroupedNumber(c.calls_total) + " (" + GroupedNumber(c.refusals) +
                                " refused or failed)");
  if (!c.reused_from.empty()) out += Fact("reused from", c.reused_from);
  out += "</dl>\n" + Calls(c) + Sources(c);
  if (c.answer)
    out += "<div class=\"markdown answer\">" + MarkdownHtml(*c.answer) + "</div>\n";
  else
    out += "<p class=\"none\">" + HtmlText(c.answer_note) + "</p>\n";
  return out + "</article>\n";
}

std::string CandidatesSection(const ReportModel& model) {
  std::string out =
      "<section id=\"candidates\">\n<h2>Candidates</h2>\n<div class=\"candidates\">\n";
  for (const CandidateReport& c : model.candidates) out += Candidate(c);
  return out + "</div>\n</section>\n";
}

std::string WarningsSection(const ReportModel& model) {
  if (!model.warnings.is_array()) return "";
  std::string out = "<section id=\"warnings\">\n<h2>Warnings</h2>\n<ul>\n";
  for (const nlohmann::json& w : model.warnings) {
    const nlohmann::json message = w.is_object() && w.contains("message") ? w["message"] : w;
    out += "<li>" + HtmlText(message.is_string() ? message.get<std::string>() : message.dump()) +
           "</li>\n";
  }
  return out + "</ul>\n</section>\n";
}

std::string ArtifactsSection(const ReportModel& model) {
  std::string out = "<section id=\"artifacts\">\n<h2>Artifacts</h2>\n";
  if (model.artifacts.empty())
    return out + "<p class=\"none\">No artifact is bound.</p>\n</section>\n";
  out +=
      "<table class=\"artifacts\"><thead><tr><th>Artifact</th><th>Bytes</th><th>SHA-256</th>"
      "<th>Verified now</th></tr></thead><tbody>\n";
  for (const ArtifactRow& a : model.artifacts) {
    out += "<tr data-verified=\"" + std::string(a.verified ? "yes" : "no") + "\"><td>" +
           HtmlText(a.name) + "</td><td>" + GroupedNumber(a.byte_length) +
           "</td><td class=\"hash\">" + HtmlText(a.sha256) + "</td>" +
           (a.verified ? "<td class=\"ok\">verified"
                       : "<td class=\"bad\">FAILED: " + HtmlText(a.problem)) +
           "</td></tr>\n";
  }
  return out + "</tbody></table>\n</section>\n";
}

}  // namespace

std::string ReportCsp() {
  return "default-src 'none'; style-src 'sha256-" + HexToBase64(Sha256Hex(kReportCss)) +
         "'; img-src 'none'; base-uri 'none'; form-action 'none'";
}

std::string RenderReportHtml(const ReportModel& model) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"" +
      ReportCsp() +
      "\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"color-scheme\" content=\"light dark\">\n<meta name=\"referrer\" "
      "content=\"no-referrer\">\n"
      "<title>Fusion run " +
      HtmlText(model.run_id) + "</title>\n<style>" + kReportCss +
      "</style>\n</head>\n<body>\n<main>\n";
  out += Header(model) + QuestionSection(model) + AnswerSection(model) + PicturesSection(model) +
         CandidatesSection(model) + EvaluationSection(model) + CitationsSection(model) +
         WarningsSection(model) + ArtifactsSection(model);
  return out + "</main>\n</body>\n</html>\n";
}

}  // namespace pi_fusion::report
