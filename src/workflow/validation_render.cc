#include "workflow/validation_render.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/utf8.h"
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

std::string BulletList(const std::vector<std::string>& lines) {
  if (lines.empty()) return "None.\n";
  std::string out;
  for (const std::string& line : lines) out += "- " + line + "\n";
  return out;
}

std::string Findings(const ValidationAccounting& accounting) {
  if (accounting.groups.empty()) return "No findings.\n";
  std::string out;
  for (const AccountingGroup* g : OrderedGroups(accounting)) {
    if (!out.empty()) out += "\n";
    out += "### " + g->severity + ": " + SanitizeInlineMarkdown(g->summary) + "\n\n";
    out += "- Location: " + SanitizeInlineMarkdown(g->location) + "\n";
    out += "- Evidence: " + SanitizeInlineMarkdown(g->evidence) + "\n";
    out += "- Impact: " + SanitizeInlineMarkdown(g->impact) + "\n";
    out += "- Inclusion rationale: " + SanitizeInlineMarkdown(g->rationale) + "\n";
  }
  return out;
}

std::string Excluded(const std::vector<SourceFinding>& sources,
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
  return BulletList(lines);
}

std::string Cut(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  return TruncateUtf8(text, max) + "…";
}

}  // namespace

std::string RenderValidationReport(const ValidationRenderInput& input) {
  std::vector<AnonymousReport> reports = input.reports;
  std::sort(reports.begin(), reports.end(),
            [](const auto& a, const auto& b) { return a.candidate_id < b.candidate_id; });
  std::set<std::string> seen_verified, seen_limitations;
  std::vector<std::string> verified, limitations;
  for (const AnonymousReport& r : reports) {
    AppendDistinct(r.report.verified, &seen_verified, &verified);
    AppendDistinct(r.report.limitations, &seen_limitations, &limitations);
  }
  AppendDistinct(input.host_limitations, &seen_limitations, &limitations);

  std::string summary = SanitizeBlockMarkdown(input.summary);
  if (summary.empty()) summary = "No summary.";
  return "# Validation report\n\n## Summary\n\n" + summary + "\n\n## Findings\n\n" +
         Findings(input.accounting) + "\n## Excluded source findings\n\n" +
         Excluded(input.sources, input.accounting) + "\n## Verified\n\n" + BulletList(verified) +
         "\n## Limitations\n\n" + BulletList(limitations);
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

}  // namespace pi_fusion::workflow
