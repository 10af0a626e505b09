#include "report/report_model.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "protocol/tool_audit.h"
#include "report/report_timeline.h"
#include "run/adaptive_text.h"
#include "store/attempt_files.h"
#include "store/constants.h"
#include "store/resumability.h"
#include "store/verify.h"
#include "tasks/run_catalog.h"

namespace pi_fusion::report {
namespace {

using nlohmann::json;

void VerifyArtifacts(FileSystem& fs, const std::string& run_dir, const store::Manifest& manifest,
                     ReportModel& model, VerifiedBytes& verified) {
  for (const auto& [name, ref] : manifest.artifacts) {
    ArtifactRow row{name, ref.byte_length, ref.sha256, false, ""};
    Result<std::string> bytes = store::VerifyArtifact(fs, run_dir, ref);
    if (bytes.ok()) {
      row.verified = true;
      verified.emplace(name, std::move(bytes).value());
    } else {
      row.problem = bytes.status().message();
    }
    model.artifacts.push_back(std::move(row));
  }
}

const std::string* Verified(const VerifiedBytes& verified, std::string_view name) {
  const auto it = verified.find(name);
  return it == verified.end() ? nullptr : &it->second;
}

json ParsedJson(const VerifiedBytes& verified, std::string_view name) {
  const std::string* bytes = Verified(verified, name);
  if (!bytes) return nullptr;
  json value = json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? json(nullptr) : value;
}

// The fetched pages of one journal (fusion_web_fetch records carry a URL).
void ReadSources(std::string_view journal, CandidateReport& candidate) {
  size_t start = 0;
  while (start < journal.size()) {
    size_t end = journal.find('\n', start);
    if (end == std::string_view::npos) end = journal.size();
    const json line = json::parse(journal.substr(start, end - start), nullptr, false);
    start = end + 1;
    if (line.is_discarded()) continue;
    Result<protocol::ToolCallRecord> record = protocol::ParseToolCallRecord(line);
    if (!record.ok()) continue;
    candidate.tool_ms += record->duration_ms;
    const protocol::ToolCallProvenance& p = record->provenance;
    if (!p.url && !p.final_url && !p.rejected_url_sha256) continue;
    ++candidate.sources_total;
    if (candidate.sources.size() >= kReportSourcesMax) continue;
    FetchedSource source;
    source.url = p.final_url.value_or(p.url.value_or("(a refused URL, kept only as its hash)"));
    source.outcome = p.error_code            ? *p.error_code
                     : p.http_status         ? std::to_string(*p.http_status)
                     : p.rejected_url_sha256 ? std::string("refused")
                                             : record->status;
    source.bytes = p.response_bytes.value_or(0);
    candidate.sources.push_back(std::move(source));
  }
}

void ReadToolCalls(const VerifiedBytes& verified, const store::AttemptKey& key,
                   CandidateReport& candidate) {
  const std::string* journal =
      Verified(verified, store::AttemptFileName(key, store::AttemptFile::kToolCalls));
  if (!journal) return;
  const std::string* events =
      Verified(verified, store::AttemptFileName(key, store::AttemptFile::kEvents));
  std::vector<run::ShownToolCall> calls = run::ShownToolCalls(*journal, events ? *events : "");
  candidate.calls_total += calls.size();
  for (run::ShownToolCall& call : calls) {
    if (call.outcome != "ok") ++candidate.refusals;
    if (candidate.calls.size() < kReportCallsMax) candidate.calls.push_back(std::move(call));
  }
  ReadSources(*journal, candidate);
}

std::string LetterOf(const json& anonymous_map, int slot) {
  if (!anonymous_map.is_object()) return "";
  for (const auto& [letter, mapped] : anonymous_map.items()) {
    if (mapped.is_number_integer() && mapped.get<int>() == slot) return letter;
  }
  return "";
}

CandidateReport CandidateOf(const store::Manifest& m, const VerifiedBytes& verified, int slot) {
  CandidateReport c;
  c.slot = slot;
  c.letter = LetterOf(m.anonymous_map, slot);
  c.model = m.models.candidates[slot - 1].QualifiedId();
  c.thinking = m.models.ThinkingOf(Role::kCandidate);
  c.state = "not started";
  for (const store::AttemptRecord& a : m.attempts) {
    if (a.key.stage != Stage::kCandidate || a.key.slot != slot) continue;
    ++c.attempts;
    c.state = std::string(store::AttemptStateName(a.state));
    c.reused_from = a.reused_from.value_or("");
    c.duration_ms = AttemptDurationMs(a);
    if (a.usage) c.usage = c.usage ? store::SumUsage({*c.usage, *a.usage}) : *a.usage;
    ReadToolCalls(verified, a.key, c);
  }
  const std::vector<int> slots = store::VerifiedCandidateSlots(m);
  const std::string name = store::CandidateResponseName(slot);
  if (std::find(slots.begin(), slots.end(), slot) == slots.end()) {
    c.answer_note = "No verified answer.";
  } else if (const std::string* bytes = Verified(verified, name)) {
    c.answer = *bytes;
  } else {
    c.answer_note = "Its answer (" + name + ") failed verification, so it is not shown.";
  }
  return c;
}

bool OneModel(const store::RunModels& models) {
  const store::ModelSelection& first = models.candidates[0];
  return std::all_of(models.candidates.begin(), models.candidates.end(),
                     [&](const store::ModelSelection& s) { return s == first; }) &&
         models.evaluator == first && models.merger == first;
}

// What a reader must know before anything else on the page.
void AddNotices(const tasks::RunListing& run, const store::Manifest& m, ReportModel& model) {
  const std::string state = model.state;
  if (state == "failed" && m.error) {
    model.notices.push_back("Failed: " + m.error->code + ": " + m.error->message +
                            ". This report shows what exists.");
  } else if (state == "cancelled") {
    const std::string by = run.CancelCause();
    model.notices.push_back("Cancelled" + (by.empty() ? std::string() : " by " + by) +
                            ". This report shows what exists.");
  } else if (state == tasks::kInterruptedState) {
    model.notices.push_back(
        "Interrupted: its Pi ended before the run did. This report shows what exists.");
  } else if (!run.terminal()) {
    model.notices.push_back("Still running (" + state +
                            "): this report shows what exists now; write it again later.");
  }
  if (m.degraded) {
    const store::DegradedRecord& d = *m.degraded;
    model.notices.push_back(
        "Degraded: answered from two candidates; candidate " + std::to_string(d.slot) + " (" +
        d.model + ") " +
        (d.reason == "cut_after_grace" ? "was cut after the grace window" : "failed") + ".");
  }
  if (m.adaptive)
    model.notices.push_back(run::AdaptiveSentence(store::AdaptiveToJson(*m.adaptive)));
  if (m.resumed_from) model.notices.push_back("Resumed from run " + *m.resumed_from + ".");
  if (OneModel(m.models)) {
    model.notices.push_back("One model: all five slots ran " +
                            m.models.candidates[0].QualifiedId() + " (no diversity).");
  }
  for (const store::DroppedReviewerRecord& d : m.dropped_reviewers) {
    model.notices.push_back("Reviewer " + std::to_string(d.slot) + " was dropped (" + d.code +
                            "): " + d.message);
  }
}

void ReadResult(const VerifiedBytes& verified, ReportModel& model) {
  const json result = ParsedJson(verified, store::kResultFile);
  if (!result.is_object() || !result.contains("details")) return;
  const json& details = result["details"];
  if (details.contains("citations")) model.citations = details["citations"];
  if (details.contains("warnings") && !details["warnings"].empty()) {
    model.warnings = details["warnings"];
  }
}

}  // namespace

ReportModel ReadReportModel(FileSystem& fs, const std::string& run_dir) {
  const std::string id = run_dir.substr(run_dir.find_last_of('/') + 1);
  const tasks::RunListing run = tasks::ReadRunState(fs, run_dir, id);
  ReportModel model;
  model.run_id = run.run_id;
  model.state = run.State();
  model.problems = tasks::CheckRun(fs, run_dir).problems;
  if (!run.manifest) return model;
  const store::Manifest& m = *run.manifest;
  model.workflow = m.workflow;
  model.created_at = m.created_at;
  model.updated_at = m.updated_at;
  AddNotices(run, m, model);
  VerifiedBytes verified;
  VerifyArtifacts(fs, run_dir, m, model, verified);
  const json input = ParsedJson(verified, store::kCanonicalInputFile);
  if (input.is_object() && input.contains("request")) model.request = input["request"];
  if (m.state == store::RunState::kCompleted) {
    if (const std::string* merged = Verified(verified, store::kMergedFile)) model.merged = *merged;
  }
  for (int slot = 1; slot <= 3; ++slot) model.candidates.push_back(CandidateOf(m, verified, slot));
  model.evaluation = ParsedJson(verified, store::kEvaluationFile);
  ReadResult(verified, model);
  AddTimeline(m, model, verified);
  model.total_usage = m.usage;
  return model;
}

}  // namespace pi_fusion::report
