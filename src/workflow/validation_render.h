// The validation report `merged.md`, rendered by the host from the validated accounting after
// the merger (the merger contributes only the summary's prose):
//
//   # Validation report
//   ## Summary                     the merger's text (SanitizeBlockMarkdown)
//   ## Findings                    one `### <severity>: <summary>` per group with the bullets
//                                  Location, Evidence, Impact, Inclusion rationale; ordered by
//                                  severity (critical, high, minor), then location (bytewise),
//                                  then the group's smallest source id; "No findings." if none
//   ## Excluded source findings    `- <id> (<severity>, <location>): <summary> — <rationale>`
//                                  in source id order; "None." if none
//   ## Verified                    the reviewers' items, de-duplicated; "None." if none
//   ## Limitations                 the reviewers' items, de-duplicated, then the host's own
//                                  (dropped reviewers, recovered fences); "None." if none
//
// The committed report holds to the final report's 64 KiB cap (CapValidationReport); when it is
// cut, the whole text is kept in the run artifact validation-report.full.md.
//
// Every model-written value passes SanitizeInlineMarkdown (one line) and the summary
// SanitizeBlockMarkdown, so no model text can open a heading or a section of its own.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "workflow/validation_accounting.h"
#include "workflow/validation_findings.h"
#include "workflow/validation_report.h"

namespace pi_fusion::workflow {

struct ValidationRenderInput {
  std::string summary;                   // the merger's stdout
  std::vector<AnonymousReport> reports;  // the usable reports (verified and limitations)
  std::vector<SourceFinding> sources;    // AssignFindingIds(reports)
  ValidationAccounting accounting;       // validated against `sources`
  std::vector<std::string> host_limitations;
};

// REQUIRES: `accounting` passed CheckValidationAccounting against SourceFindingIds(sources).
std::string RenderValidationReport(const ValidationRenderInput& input);

// One reviewer's report as the person reads it in the run's expanded view: a count line
// ("2 findings: 1 critical, 1 minor." or "No findings."), one `### <severity>: <summary>` block
// per finding in the reviewer's order with the bullets Location, Evidence and Impact, then
// `**Verified**` and `**Limitations**` lists when not empty. Every value passes
// SanitizeInlineMarkdown, as in the report.
std::string RenderReviewerReport(const ValidationReport& report);

// The run artifact that keeps the whole report when the committed one had to be cut.
inline constexpr std::string_view kFullValidationReportArtifact = "validation-report.full.md";

struct CappedValidationReport {
  std::string text;  // at most the cap in JSON-rendered bytes: what merged.md holds
  std::string full;  // RenderValidationReport(input)
  bool cut = false;  // text != full
};

// The report within `max_json_bytes` JSON-rendered bytes (the final report's 64 KiB cap, the
// merger's output contract): while it is over, the last entry (a finding block, a bullet, a line of
// the summary) of the largest section is left out, and each cut section ends with one line
// "_N more <findings|…> omitted to keep this report within its 65536-byte limit; the whole
// report is in validation-report.full.md._". The host's own limitations are never cut.
// REQUIRES: as RenderValidationReport.
CappedValidationReport CapValidationReport(const ValidationRenderInput& input,
                                           size_t max_json_bytes);

// The host's limitation for a reviewer dropped under the minority rule, e.g. "The reviewer in
// candidate slot 2 produced no usable report and was dropped; … (child_timeout: …)."
std::string DroppedReviewerLimitation(int slot, const std::string& code,
                                      const std::string& message);

// The host's limitation for a report recovered from its ```json fence.
std::string RecoveredFenceLimitation(const std::string& candidate_id, int slot, int attempt);

}  // namespace pi_fusion::workflow
