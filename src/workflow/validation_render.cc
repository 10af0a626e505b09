#include "workflow/validation_render.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <set>
#include <tuple>

#include "core/limits.h"
#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"
#include "workflow/markdown_sanitize.h"
#include "workflow/validation_report.h"

namespace pi_fusion::workflow {
namespace {

// Longest a host limitation quotes a child's error message, in bytes.
constexpr size_t kQuotedMessageMax = 400;

int SeverityRank(const std::string& severity) {
  if (severity == kSeverityCritical) return 0;
  if (severity == kSeverityHigh) return 1;
  return 2;
}

// "B-F012" -> ("B", 12): ids compare by candidate, then number, whatever the digit count.
std::pair<std::string, long> IdKey(const std::string& id) {
  const size_t cut = id.find("-F");
  if (cut == std::string::npos) return {id, 0};
  return {id.substr(0, cut), std::strtol(id.c_str() + cut + 2, nullptr, 10)};
}

bool IdLess(const std::string& a, const std::string& b) { return IdKey(a) < IdKey(b); }

std::string SmallestId(const AccountingGroup& group) {
  return *std::min_element(group.source_ids.begin(), group.source_ids.end(), IdLess);
}

std::vector<const AccountingGroup*> OrderedGroups(const ValidationAccounting& accounting) {
  std::vector<const AccountingGroup*> groups;
  for (const AccountingGroup& g : accounting.groups) groups.push_back(&g);
  std::stable_sort(groups.begin(), groups.end(), [](const auto* a, const auto* b) {
    const int ra = SeverityRank(a->severity), rb = SeverityRank(b->severity);
    if (ra != rb) return ra < rb;
    if (a->location != b->location) return a->location < b->location;
    return IdLess(SmallestId(*a), SmallestId(*b));
  });
  return groups;
}

// `items` sanitized, blanks dropped, each distinct text once in first-seen order.
void AppendDistinct(const std::vector<std::string>& items, std::set<std::string>* seen,
                    std::vector<std::string>* out) {
  for (const std::string& item : items) {
    std::string line = SanitizeInlineMarkdown(item);
    if (!line.empty() && seen->insert(line).second) out->push_back(std::move(line));
  }
}

// One section of the report: its entries (a bullet, a finding block, a line of the summary), and
// how many of them a cut left out. An entry ends in "\n".
struct Section {
  std::string heading;     // "Findings"
  std::string separator;   // between entries: "\n" for finding blocks, "" otherwise
  std::string empty_text;  // "None.\n" when there is no entry at all
  std::string noun;        // "findings", in the omission line
  std::vector<std::string> entries;
  size_t protected_tail = 0;  // entries at the end a cut never removes (the host's limitations)
  size_t omitted = 0;
};

std::string OmissionLine(const Section& section) {
  return "_" + std::to_string(section.omitted) + " more " + section.noun +
         " omitted to keep this report within its " + std::to_string(kMergerOutputMaxBytes) +
         "-byte limit; the whole report is in " + std::string(kFullValidationReportArtifact) +
         "._\n";
}

std::string Body(const Section& section) {
  std::string out;
  for (const std::string& entry : section.entries) {
    if (!out.empty()) out += section.separator;
    out += entry;
  }
  if (section.omitted > 0) return out + (out.empty() ? "" : "\n") + OmissionLine(section);
  return out.empty() ? section.empty_text : out;
}

std::string Compose(const std::vector<Section>& sections) {
  std::string out = "# Validation report\n";
  for (const Section& section : sections) out += "\n## " + section.heading + "\n\n" + Body(section);
  return out;
}

std::vector<std::string> Bullets(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  for (const std::string& line : lines) out.push_back("- " + line + "\n");
  return out;
}

std::vector<std::string> Findings(const ValidationAccounting& accounting) {
  std::vector<std::string> out;
  for (const AccountingGroup* g : OrderedGroups(accounting)) {
    out.push_back("### " + g->severity + ": " + SanitizeInlineMarkdown(g->summary) + "\n\n" +
                  "- Location: " + SanitizeInlineMarkdown(g->location) + "\n" +
                  "- Evidence: " + SanitizeInlineMarkdown(g->evidence) + "\n" +
                  "- Impact: " + SanitizeInlineMarkdown(g->impact) + "\n" +
                  "- Inclusion rationale: " + SanitizeInlineMarkdown(g->rationale) + "\n");
  }
  return out;
}

std::vector<std::string> Excluded(const std::vector<SourceFinding>& sources,
                                  const ValidationAccounting& accounting) {
  std::map<std::string, const AccountingDecision*> excluded;
  for (const AccountingDecision& d : accounting.decisions) {
    if (!d.include) excluded[d.source_id] = &d;
  }
  std::vector<std::string> lines;
  for (const SourceFinding& s : sources) {
    const auto it = excluded.find(s.source_id);
    if (it == excluded.end()) continue;
    const ValidationFinding& f = s.finding;
    lines.push_back(s.source_id + " (" + f.severity + ", " + SanitizeInlineMarkdown(f.location) +
                    "): " + SanitizeInlineMarkdown(f.summary) + " — " +
                    SanitizeInlineMarkdown(it->second->rationale));
  }
  return Bullets(lines);
}

// The summary line by line, so a cut keeps its beginning.
std::vector<std::string> SummaryLines(const std::string& summary) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= summary.size()) {
    const size_t end = std::min(summary.find('\n', start), summary.size());
    lines.push_back(summary.substr(start, end - start) + "\n");
    start = end + 1;
  }
  return lines;
}

std::vector<Section> Sections(const ValidationRenderInput& input) {
  std::vector<AnonymousReport> reports = input.reports;
  std::sort(reports.begin(), reports.end(),
            [](const auto& a, const auto& b) { return a.candidate_id < b.candidate_id; });
  std::set<std::string> seen_verified, seen_limitations;
  std::vector<std::string> verified, limitations;
  for (const AnonymousReport& r : reports) {
    AppendDistinct(r.report.verified, &seen_verified, &verified);
    AppendDistinct(r.report.limitations, &seen_limitations, &limitations);
  }
  const size_t reviewer_limitations = limitations.size();
  AppendDistinct(input.host_limitations, &seen_limitations, &limitations);

  std::string summary = SanitizeBlockMarkdown(input.summary);
  if (summary.empty()) summary = "No summary.";
  std::vector<Section> sections = {
      {"Summary", "", "", "summary lines", SummaryLines(summary)},
      {"Findings", "\n", "No findings.\n", "findings", Findings(input.accounting)},
      {"Excluded source findings", "", "None.\n", "excluded source findings",
       Excluded(input.sources, input.accounting)},
      {"Verified", "", "None.\n", "verified items", Bullets(verified)},
      {"Limitations", "", "None.\n", "limitations", Bullets(limitations)}};
  // The host's own limitations (a dropped reviewer, a recovered fence) survive any cut.
  sections.back().protected_tail = limitations.size() - reviewer_limitations;
  return sections;
}

std::string Cut(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  return TruncateUtf8(text, max) + "…";
}

}  // namespace

std::string RenderValidationReport(const ValidationRenderInput& input) {
  return Compose(Sections(input));
}

CappedValidationReport CapValidationReport(const ValidationRenderInput& input,
                                           size_t max_json_bytes) {
  std::vector<Section> sections = Sections(input);
  CappedValidationReport out;
  out.full = Compose(sections);
  out.text = out.full;
  // Cut whole entries from the end of the largest section until the report fits. The skeleton
  // (headings and omission lines) is far below any cap this is called with, so this ends.
  while (JsonRenderedBytes(out.text) > max_json_bytes) {
    Section* largest = nullptr;
    size_t largest_bytes = 0;
    for (Section& section : sections) {
      if (section.entries.size() <= section.protected_tail) continue;
      const size_t bytes = Body(section).size();
      if (largest == nullptr || bytes > largest_bytes) largest = &section, largest_bytes = bytes;
    }
    if (largest == nullptr) break;
    largest->entries.erase(largest->entries.end() - 1 -
                           static_cast<std::ptrdiff_t>(largest->protected_tail));
    ++largest->omitted;
    out.text = Compose(sections);
  }
  out.cut = out.text != out.full;
  return out;
}

std::string DroppedReviewerLimitation(int slot, const std::string& code,
                                      const std::string& message) {
  return "The reviewer in candidate slot " + std::to_string(slot) +
         " produced no usable report and was dropped; this report rests on the other two "
         "reviewers (" +
         code + ": " + Cut(message, kQuotedMessageMax) + ").";
}

std::string RecoveredFenceLimitation(const std::string& candidate_id, int slot, int attempt) {
  return "Reviewer " + candidate_id +
         " wrapped its report in a ```json fence instead of returning bare JSON; the host "
         "removed the fence and recorded the recovery in " +
         ContractEventArtifact(slot, attempt) + ".";
}

std::string RenderReviewerReport(const ValidationReport& report) {
  std::string out;
  if (report.findings.empty()) {
    out = "No findings.\n";
  } else {
    std::map<int, size_t> by_rank;
    for (const ValidationFinding& f : report.findings) ++by_rank[SeverityRank(f.severity)];
    std::string counts;
    for (const auto& [rank, n] : by_rank) {
      const std::string_view name = rank == 0   ? kSeverityCritical
                                    : rank == 1 ? kSeverityHigh
                                                : kSeverityMinor;
      counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + std::string(name);
    }
    const size_t total = report.findings.size();
    out = std::to_string(total) + (total == 1 ? " finding: " : " findings: ") + counts + ".\n";
  }
  for (const ValidationFinding& f : report.findings) {
    out += "\n### " + f.severity + ": " + SanitizeInlineMarkdown(f.summary) + "\n\n" +
           "- Location: " + SanitizeInlineMarkdown(f.location) + "\n" +
           "- Evidence: " + SanitizeInlineMarkdown(f.evidence) + "\n" +
           "- Impact: " + SanitizeInlineMarkdown(f.impact) + "\n";
  }
  for (const auto& [title, items] :
       {std::pair{"Verified", &report.verified}, std::pair{"Limitations", &report.limitations}}) {
    if (items->empty()) continue;
    out += "\n**" + std::string(title) + "**\n\n";
    for (const std::string& item : *items) out += "- " + SanitizeInlineMarkdown(item) + "\n";
  }
  return out;
}

}  // namespace pi_fusion::workflow
