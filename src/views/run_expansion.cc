#include "views/run_expansion.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/error_codes.h"
#include "core/json_text.h"
#include "core/role.h"
#include "core/terminal_text.h"
#include "pi_fusion/sha256.h"
#include "run/judgment_text.h"
#include "run/tool_call_list.h"
#include "store/artifact_ref.h"
#include "store/attempt_files.h"
#include "store/manifest.h"
#include "store/role_usage.h"
#include "store/run_id.h"
#include "store/verify.h"
#include "views/panel_texts.h"
#include "views/view_parts.h"
#include "workflow/validation_render.h"
#include "workflow/validation_report.h"
#include "workflow/workflow_constants.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::views {
namespace {

using nlohmann::json;

// A candidate as the evaluation names it (its letter) and as the status row does (its slot).
struct Lettered {
  int slot = 0;
  std::string id;    // "A"
  std::string name;  // "Candidate 2 (A)"
};

// The candidates of the run's anonymous map, in slot order.
std::vector<Lettered> CandidatesBySlot(const json& map) {
  std::vector<Lettered> out;
  for (std::string_view letter : workflow::kCandidateIds) {
    const std::string id(letter);
    if (!map.is_object() || !map.contains(id) || !map[id].is_number_integer()) continue;
    const int slot = map[id].get<int>();
    if (slot < 1 || slot > 3) continue;
    out.push_back({slot, id, std::string(SlotLabel(kAllSlots[slot - 1])) + " (" + id + ")"});
  }
  std::sort(out.begin(), out.end(), [](const Lettered& a, const Lettered& b) {
    return std::pair(a.slot, a.id) < std::pair(b.slot, b.id);
  });
  return out;
}

// What a person reads of a candidate's verified answer: a validation reviewer's JSON report as a
// review (severity, location, summary of each finding), every other answer as it is. A report
// that cannot be read as one is shown as it is.
std::string CandidateMarkdown(const std::string& workflow_name, const std::string& answer) {
  const std::optional<Workflow> workflow = ParseWorkflow(workflow_name);
  if (!workflow || workflow::SpecOf(*workflow).shape != workflow::StageShape::kValidation) {
    return answer;
  }
  const workflow::ReportReading reading = workflow::ReadValidationReport(answer);
  return reading.ok() ? workflow::RenderReviewerReport(*reading.report) : answer;
}

// The latest completed attempt of candidate `slot`; nullptr when none completed.
const store::AttemptRecord* LatestCompleted(const store::Manifest& manifest, int slot) {
  const store::AttemptRecord* latest = nullptr;
  for (const store::AttemptRecord& a : manifest.attempts) {
    if (a.key.stage == Stage::kCandidate && a.key.slot == slot &&
        a.state == store::AttemptState::kCompleted)
      latest = &a;
  }
  return latest;
}

// The candidates of a run that drew no anonymous map (it failed or was cancelled before its
// evaluation): each slot with a completed attempt, by its slot label alone.
std::vector<Lettered> CandidatesWithAnswers(const store::Manifest& manifest) {
  std::vector<Lettered> out;
  for (int slot = 1; slot <= 3; ++slot) {
    if (LatestCompleted(manifest, slot) == nullptr) continue;
    out.push_back({slot, "", std::string(SlotLabel(kAllSlots[slot - 1]))});
  }
  return out;
}

// The name of the complete answer an attempt recorded ("" when there is none).
std::string AnswerArtifact(const store::AttemptRecord* attempt) {
  std::string name;
  if (attempt == nullptr) return name;
  for (const std::string& artifact : attempt->artifacts) {
    const std::optional<store::AttemptFileId> file = store::ParseAttemptFileName(artifact);
    if (file && file->file == store::AttemptFile::kResponse) name = artifact;
  }
  return name;
}

// One candidate of the expansion: its model, its verified answer (or why it is not shown) and its
// tool calls. `missing` is set when its answer file is gone.
json CandidateView(FileSystem& fs, const std::string& run_dir, const store::Manifest& manifest,
                   const Lettered& candidate, bool* missing) {
  const store::ModelSelection& model = manifest.models.candidates[candidate.slot - 1];
  json view = {{"slot", candidate.slot}, {"name", candidate.name}, {"model", model.QualifiedId()}};
  if (!candidate.id.empty()) view["id"] = candidate.id;
  const store::AttemptRecord* latest = LatestCompleted(manifest, candidate.slot);
  if (latest == nullptr) {
    // A letter without an answer: the candidate an adaptive run did not ask, or the one a
    // quorum-2 run went on without. Nothing of it is gone.
    const bool skipped = candidate.slot == 3 && manifest.adaptive && manifest.adaptive->agree;
    view["note"] = skipped ? "(not asked: candidates 1 and 2 agreed)" : "(no verified answer)";
    return view;
  }
  auto ref = manifest.artifacts.find(AnswerArtifact(latest));
  Result<std::string> text =
      ref == manifest.artifacts.end()
          ? Result<std::string>(Status::Error(kArtifactError, "none"))
          : fs.ReadFile(run_dir + "/" + ref->second.path, store::ArtifactReadCap(ref->second.path));
  if (!text.ok()) {
    view["note"] = "(its answer file is gone)";
    *missing = true;
  } else if (Sha256Ref(*text) != ref->second.sha256) {
    view["note"] = "(its answer file changed after the run; not shown)";
  } else {
    view["markdown"] = CandidateMarkdown(manifest.workflow, *text);
  }
  if (latest->pooled && !view.contains("note")) {
    // policy.keep_warm_seconds: the process was kept ready between runs.
    view["note"] =
        "started warm: a pooled Pi process, its task " + std::to_string(latest->pooled->task);
  }
  // What it looked at (tool-using workflows): its verified journal and event log.
  json tools = run::ReadAttemptToolCalls(fs, run_dir, manifest, latest->key);
  if (!tools.is_null()) view["tools"] = std::move(tools);
  return view;
}

// The run's evaluation.json as it reads now: null when the run recorded none, or when it cannot
// be read as a JSON object. `verified` says whether its bytes are still those the manifest binds.
json ReadEvaluation(FileSystem& fs, const std::string& run_dir, const store::Manifest& manifest,
                    bool* verified) {
  *verified = false;
  auto ref = manifest.artifacts.find("evaluation.json");
  if (ref == manifest.artifacts.end()) return json();
  Result<std::string> bytes =
      fs.ReadFile(run_dir + "/" + ref->second.path, store::ArtifactReadCap(ref->second.path));
  // A file with a key twice shows no evaluation rather than one of its two values.
  Result<json> parsed = bytes.ok() ? ParseUniqueKeyJson(*bytes, "evaluation.json", kArtifactError)
                                   : Result<json>(bytes.status());
  if (!parsed.ok() || !parsed->is_object()) return json();
  *verified = Sha256Ref(*bytes) == ref->second.sha256;
  return *std::move(parsed);
}

// The evaluator's agreements and conflicts (`evaluation`, ReadEvaluation's), each position named
// as the status row names its candidate, added to `out`. False when the run recorded an
// evaluation that cannot be read.
bool AddEvaluation(const store::Manifest& manifest, const json& evaluation,
                   const std::vector<Lettered>& candidates, json& out) {
  if (!manifest.artifacts.contains("evaluation.json")) return true;
  if (!evaluation.is_object()) return false;
  std::map<std::string, std::string> names;  // letter -> "Candidate 2 (A)"
  for (const Lettered& c : candidates) names[c.id] = c.name;
  json agreements = json::array();
  for (const json& a : evaluation.value("agreements", json::array())) {
    if (a.is_string()) agreements.push_back(a);
  }
  json conflicts = json::array();
  for (const json& c : evaluation.value("conflicts", json::array())) {
    if (!c.is_object()) continue;
    json positions = json::array();
    for (const json& p : c.value("positions", json::array())) {
      const std::string letter = StringAt(p, "candidate_id");
      const auto name = names.find(letter);
      positions.push_back((name == names.end() ? letter : name->second) + ": " +
                          StringAt(p, "position"));
    }
    conflicts.push_back({{"topic", StringAt(c, "topic")},
                         {"positions", positions},
                         {"resolution", StringAt(c, "resolution")}});
  }
  if (!agreements.empty()) out["agreements"] = agreements;
  if (!conflicts.empty()) out["conflicts"] = conflicts;
  // A v2 evaluation's checked claims (policy.evaluator_tools), one line each.
  if (std::vector<std::string> claims =
          run::CheckedClaimLines(evaluation.value("checked_claims", json()));
      !claims.empty()) {
    out["checked_claims"] = claims;
  }
  return true;
}

// How a person names the candidate in `slot` (a manifest order check's favoured slot): as the
// status row and the conflicts' positions do ("Candidate 2 (A)"), "no candidate" for null.
std::string FavouredName(const json& slot, const std::vector<Lettered>& candidates) {
  if (!slot.is_number_integer()) return "no candidate";
  const int n = slot.get<int>();
  for (const Lettered& c : candidates) {
    if (c.slot == n) return c.name;
  }
  return std::string(SlotLabel(kAllSlots[n - 1]));
}

// The order check's outcome of each conflict (Manifest::order_check), one row each:
// {text: "<topic>: order-sensitive (pass 1 favoured Candidate 3 (C), pass 2 Candidate 2 (B))" or
// "<topic>: stable (both passes favoured Candidate 2 (B))", stable}. The topics are the
// evaluation's, taken only from an evaluation whose bytes the manifest still binds and that names
// as many conflicts as the record; otherwise each conflict is named by its number ("conflict 1").
// Empty when the run recorded no order check.
json OrderCheckRows(const store::Manifest& manifest, const json& evaluation, bool verified,
                    const std::vector<Lettered>& candidates) {
  json rows = json::array();
  const json& record = manifest.order_check;
  if (!store::IsOrderCheckRecord(record)) return rows;
  const json& conflicts = record["conflicts"];
  const json topics =
      verified && evaluation.is_object() ? evaluation.value("conflicts", json()) : json();
  const bool named = topics.is_array() && topics.size() == conflicts.size();
  for (size_t i = 0; i < conflicts.size(); ++i) {
    const json& conflict = conflicts[i];
    const json& favoured = conflict["favoured_slots"];
    const bool stable = conflict["stable"].get<bool>();
    const std::string topic =
        named ? NeutralizeControls(StringAt(topics[i], "topic"), TextShape::kSingleLine) : "";
    std::string text = topic.empty() ? "conflict " + std::to_string(i + 1) : topic;
    if (stable) {
      const std::string all = favoured.size() == 2 ? "both passes" : "every pass";
      text += favoured[0].is_null()
                  ? ": stable (no pass favoured a candidate)"
                  : ": stable (" + all + " favoured " + FavouredName(favoured[0], candidates) + ")";
    } else {
      text += ": order-sensitive (";
      for (size_t pass = 0; pass < favoured.size(); ++pass) {
        text += (pass == 0 ? "pass 1 favoured " : ", pass " + std::to_string(pass + 1) + " ") +
                FavouredName(favoured[pass], candidates);
      }
      text += ")";
    }
    rows.push_back({{"text", text}, {"stable", stable}});
  }
  return rows;
}

}  // namespace

json ExpandRun(FileSystem& fs, const std::string& run_dir) {
  json artifacts = {{"dir", run_dir}};
  Result<store::Manifest> manifest = store::ReadManifest(fs, run_dir);
  if (!manifest.ok()) {
    artifacts["gone"] = true;
    artifacts["note"] = "(the artifacts are gone; the candidates cannot be shown)";
    return {{"artifacts", artifacts}};
  }
  json out = json::object();
  bool missing = false;
  const std::vector<Lettered> lettered = CandidatesBySlot(manifest->anonymous_map);
  json candidates = json::array();
  for (const Lettered& candidate : lettered.empty() ? CandidatesWithAnswers(*manifest) : lettered) {
    candidates.push_back(CandidateView(fs, run_dir, *manifest, candidate, &missing));
  }
  if (!candidates.empty()) out["candidates"] = candidates;
  // The split of the run's usage by role, from the manifest's attempts (store/role_usage.h).
  const std::vector<std::string> roles =
      RoleUsageLines(store::UsageByRoleJson(store::UsageByRole(*manifest)));
  if (!roles.empty()) out["roles"] = roles;
  // The panel and its thinking per role (fusion-models.json v3), above the cost of each role.
  if (const std::string panel = PanelLine(manifest->panel, manifest->models); !panel.empty()) {
    out["panel"] = panel;
  }
  bool verified = false;
  const json evaluation = ReadEvaluation(fs, run_dir, *manifest, &verified);
  if (!AddEvaluation(*manifest, evaluation, lettered, out)) missing = true;
  // The order check's outcome per conflict (policy.order_check), below the conflicts.
  if (json rows = OrderCheckRows(*manifest, evaluation, verified, lettered); !rows.empty()) {
    out["order_check"] = std::move(rows);
  }
  // The citation check's broken citations, each with why and where it was made.
  if (std::vector<std::string> broken = run::BrokenCitationLines(manifest->citations);
      !broken.empty()) {
    out["citations"] = broken;
  }
  if (missing) {
    artifacts["gone"] = true;
    artifacts["note"] = "(some artifacts are gone)";
  }
  out["artifacts"] = artifacts;
  return out;
}

void KeepVerifiedCandidates(json& expansion) {
  if (!expansion.contains("candidates") || !expansion["candidates"].is_array()) return;
  json kept = json::array();
  for (json& candidate : expansion["candidates"]) {
    if (candidate.contains("markdown")) kept.push_back(std::move(candidate));
  }
  if (kept.empty()) {
    expansion.erase("candidates");
  } else {
    expansion["candidates"] = std::move(kept);
  }
}

json ReadBackExpansion(json expansion, const std::string& run_id) {
  json kept = {{"artifacts", expansion.value("artifacts", json::object())}};
  const bool shown = expansion.contains("candidates") || expansion.contains("agreements") ||
                     expansion.contains("order_check") || expansion.contains("checked_claims") ||
                     expansion.contains("roles");
  if (shown) {
    kept["notes"] = json::array(
        {"The candidates, the evaluation and the cost by role are in the run's own block; "
         "outside this session: pi-fusion show " +
         std::string(store::ShortRunId(run_id)) + " --candidates"});
  }
  return kept;
}

}  // namespace pi_fusion::views
