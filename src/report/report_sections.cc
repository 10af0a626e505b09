#include "report/report_sections.h"

#include <string_view>

#include "report/html_text.h"
#include "report/markdown_html.h"

namespace pi_fusion::report {
namespace {

using nlohmann::json;

// `object[key]`, or null when `object` is not an object or has no such key: a verified artifact
// is still only data, and an unexpected shape shows as an empty field rather than an error.
const json& Get(const json& object, std::string_view key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string StringOf(const json& value) {
  if (value.is_null()) return "";
  return value.is_string() ? value.get<std::string>()
                           : value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A list of strings as <ul>; "None." when empty.
std::string ListOf(const json& items) {
  if (!items.is_array() || items.empty()) return "<p class=\"none\">None.</p>\n";
  std::string out = "<ul>\n";
  for (const json& item : items) out += "<li>" + HtmlText(StringOf(item)) + "</li>\n";
  return out + "</ul>\n";
}

std::string Conflict(const ReportModel& model, const json& conflict) {
  std::string out = "<div class=\"conflict\">\n<h4>" + HtmlText(StringOf(Get(conflict, "topic"))) +
                    "</h4>\n<ul class=\"positions\">\n";
  for (const json& p : Get(conflict, "positions")) {
    const std::string letter = StringOf(Get(p, "candidate_id"));
    out += "<li data-candidate=\"" + HtmlText(letter) + "\"><strong>" +
           HtmlText(LetterLabel(model, letter)) +
           "</strong>: " + HtmlText(StringOf(Get(p, "position"))) + "</li>\n";
  }
  return out + "</ul>\n<p class=\"resolution\"><strong>Resolution:</strong> " +
         HtmlText(StringOf(Get(conflict, "resolution"))) + "</p>\n</div>\n";
}

std::string SynthesisPlan(const ReportModel& model, const json& plan) {
  std::string out = "<h3>Synthesis plan</h3>\n<h4>Must include</h4>\n";
  const json include = Get(plan, "must_include");
  if (include.empty())
    out += "<p class=\"none\">None.</p>\n";
  else {
    out += "<ul>\n";
    for (const json& row : include) {
      out += "<li><strong>" + HtmlText(LetterLabel(model, StringOf(Get(row, "candidate_id")))) +
             "</strong>: " + HtmlText(StringOf(Get(row, "contribution"))) + "</li>\n";
    }
    out += "</ul>\n";
  }
  return out + "<h4>Must resolve</h4>\n" + ListOf(Get(plan, "must_resolve")) +
         "<h4>Must avoid</h4>\n" + ListOf(Get(plan, "must_avoid"));
}

std::string Assessments(const ReportModel& model, const json& rows) {
  if (!rows.is_array() || rows.empty()) return "";
  std::string out = "<h3>Assessments</h3>\n<div class=\"assessments\">\n";
  for (const json& row : rows) {
    const std::string letter = StringOf(Get(row, "candidate_id"));
    out += "<div class=\"assessment\"><h4>" + HtmlText(LetterLabel(model, letter)) + "</h4>\n<p>" +
           HtmlText(StringOf(Get(row, "summary"))) + "</p>\n";
    for (const char* key : {"strengths", "limitations", "useful_contributions", "risks"}) {
      const json items = Get(row, key);
      if (items.empty()) continue;
      out += "<p class=\"label\">" + EscapeHtml(key) + "</p>\n" + ListOf(items);
    }
    out += "</div>\n";
  }
  return out + "</div>\n";
}

// validate: every source finding, its disposition and the groups they became.
std::string Accounting(const json& accounting) {
  if (!accounting.is_object()) return "";
  const json findings = Get(accounting, "findings");
  const json decisions = Get(accounting, "decisions");
  const json groups = Get(accounting, "groups");
  std::string out = "<h3>Findings accounting</h3>\n<p>" + GroupedNumber(findings.size()) +
                    " source findings, " + GroupedNumber(groups.size()) + " reported groups.</p>\n";
  out +=
      "<table class=\"accounting\"><thead><tr><th>Finding</th><th>Disposition</th><th>Group</th>"
      "<th>Rationale</th></tr></thead><tbody>\n";
  for (const json& d : decisions) {
    out += "<tr><td>" + HtmlText(StringOf(Get(d, "source_id"))) + "</td><td>" +
           HtmlText(StringOf(Get(d, "disposition"))) + "</td><td>" +
           HtmlText(d.contains("group_id") ? StringOf(d["group_id"]) : "") + "</td><td>" +
           HtmlText(StringOf(Get(d, "rationale"))) + "</td></tr>\n";
  }
  out += "</tbody></table>\n";
  for (const json& g : groups) {
    out += "<div class=\"finding\"><h4>" + HtmlText(StringOf(Get(g, "severity"))) + ": " +
           HtmlText(StringOf(Get(g, "summary"))) +
           "</h4>\n<ul><li>Location: " + HtmlText(StringOf(Get(g, "location"))) +
           "</li><li>Evidence: " + HtmlText(StringOf(Get(g, "evidence"))) +
           "</li><li>Impact: " + HtmlText(StringOf(Get(g, "impact"))) +
           "</li><li>Sources: " + HtmlText(StringOf(Get(g, "source_ids"))) + "</li></ul></div>\n";
  }
  return out;
}

}  // namespace

std::string LetterLabel(const ReportModel& model, const std::string& letter) {
  for (const CandidateReport& c : model.candidates) {
    if (!letter.empty() && c.letter == letter) {
      return letter + " (candidate " + std::to_string(c.slot) + ")";
    }
  }
  return letter;
}

std::string QuestionSection(const ReportModel& model) {
  std::string out = "<section id=\"question\">\n<h2>Question</h2>\n";
  const json& request = model.request;
  if (!request.is_object()) {
    return out +
           "<p class=\"none\">The request (canonical-input.json) did not verify.</p>\n</section>\n";
  }
  if (request.contains("prompt") && request["prompt"].is_string()) {
    return out + "<div class=\"markdown\">" + MarkdownHtml(request["prompt"].get<std::string>()) +
           "</div>\n</section>\n";
  }
  out += "<dl class=\"request\">\n";
  for (const auto& [key, value] : request.items()) {
    out += "<dt>" + HtmlText(key) + "</dt><dd>";
    if (value.is_string())
      out += "<div class=\"markdown\">" + MarkdownHtml(value.get<std::string>()) + "</div>";
    else
      out += "<pre>" +
             HtmlText(value.dump(2, ' ', false, json::error_handler_t::replace),
                      TextShape::kMultiLine) +
             "</pre>";
    out += "</dd>\n";
  }
  return out + "</dl>\n</section>\n";
}

std::string EvaluationSection(const ReportModel& model) {
  std::string out = "<section id=\"evaluation\">\n<h2>Evaluation</h2>\n";
  const json& e = model.evaluation;
  if (!e.is_object()) {
    return out + "<p class=\"none\">No verified evaluation (evaluation.json).</p>\n</section>\n";
  }
  out += "<h3>Agreements</h3>\n" + ListOf(Get(e, "agreements"));
  const json conflicts = Get(e, "conflicts");
  out += "<h3>Conflicts</h3>\n";
  if (conflicts.empty()) out += "<p class=\"none\">None.</p>\n";
  for (const json& conflict : conflicts) out += Conflict(model, conflict);
  out += SynthesisPlan(model, Get(e, "synthesis_plan"));
  out += Assessments(model, Get(e, "candidate_assessments"));
  out += Accounting(Get(e, "validation_accounting"));
  return out + "</section>\n";
}

std::string CitationsSection(const ReportModel& model) {
  const json& c = model.citations;
  if (!c.is_object()) return "";
  std::string out = "<section id=\"citations\">\n<h2>Citations checked</h2>\n<p>" +
                    HtmlText(StringOf(Get(c, "checked"))) + " checked, " +
                    GroupedNumber(Get(c, "broken").size()) + " broken.</p>\n";
  const json broken = Get(c, "broken");
  if (!broken.empty()) {
    out +=
        "<table><thead><tr><th>Reference</th><th>Reason</th><th>Detail</th></tr></thead><tbody>\n";
    for (const json& b : broken) {
      out += "<tr><td>" + HtmlText(StringOf(Get(b, "ref"))) + "</td><td>" +
             HtmlText(StringOf(Get(b, "reason"))) + "</td><td>" +
             HtmlText(StringOf(Get(b, "detail"))) + "</td></tr>\n";
    }
    out += "</tbody></table>\n";
  }
  return out + "</section>\n";
}

}  // namespace pi_fusion::report
