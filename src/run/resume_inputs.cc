#include "run/resume_inputs.h"

#include <algorithm>

#include "core/error_codes.h"
#include "pi_fusion/canonical_json.h"
#include "run/resume_arguments.h"
#include "schema/tool_catalog.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "workflow/workflow_constants.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::run {
namespace {

Status NotResumable(const store::ResumeSource& source, const std::string& why) {
  return store::RunNotResumable(source.manifest.run_id, why);
}

// The evaluation is reused only when every candidate is (so the blind input is the same bytes
// under the same letters).
bool ReusesEvaluation(const store::ResumeSource& source) {
  return source.evaluation && source.candidates.size() == workflow::kCandidateCount;
}

// "1 and 3", "evaluator", "3, evaluator and merger": the --slot names of `slots`.
std::string SwapNames(const std::vector<Slot>& slots) {
  std::string out;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (i > 0) out += i + 1 == slots.size() ? " and " : ", ";
    out += SwapSlotName(slots[i]);
  }
  return out;
}

}  // namespace

Result<workflow::CanonicalDocument> ResumedCanonicalInput(const store::ResumeSource& source) {
  Result<nlohmann::json> value =
      store::ParseJson(source.canonical_input, store::kCanonicalInputFile);
  if (!value.ok() || !value->is_object() || !value->contains("request")) {
    return NotResumable(source, "canonical-input.json is not a Fusion input");
  }
  Result<workflow::CanonicalDocument> doc =
      workflow::MakeCanonicalDocument(*std::move(value), kRunNotResumable, "canonical-input.json");
  if (!doc.ok()) return doc.status();
  if (doc->bytes != source.canonical_input) {
    return NotResumable(source, "canonical-input.json is not canonical JSON");
  }
  return doc;
}

Result<schema::NormalizedRequest> ResumedRequest(const store::ResumeSource& source,
                                                 const workflow::CanonicalDocument& input) {
  const std::optional<Workflow> workflow = ParseWorkflow(source.manifest.workflow);
  if (!workflow || input.value.value("workflow", "") != source.manifest.workflow) {
    return NotResumable(source,
                        "canonical-input.json is not of a " + source.manifest.workflow + " run");
  }
  const nlohmann::json& stored = input.value.at("request");
  Result<schema::NormalizedRequest> request =
      schema::NormalizeFusionCall(schema::FusionTool(*workflow).name, stored);
  if (!request.ok()) {
    return NotResumable(source, "its request no longer passes today's checks (" +
                                    request.status().code() + ": " + request.status().message() +
                                    ")");
  }
  if (request->canonical != CanonicalJson(stored)) {
    return NotResumable(source, "its request normalizes differently today");
  }
  return request;
}

config::ModelsConfig PinnedRoutes(const store::RunModels& old, config::ModelsConfig current) {
  for (size_t i = 0; i < 3; ++i) current.candidates[i] = old.candidates[i].QualifiedId();
  current.evaluator = old.evaluator.QualifiedId();
  current.merger = old.merger.QualifiedId();
  return current;
}

const store::ModelSelection& SlotRoute(const store::RunModels& models, Slot slot) {
  switch (RoleOf(slot)) {
    case Role::kCandidate:
      return models.candidates[static_cast<size_t>(slot)];
    case Role::kEvaluator:
    case Role::kRepair:
      return models.evaluator;
    case Role::kMerger:
      break;
  }
  return models.merger;
}

std::vector<Slot> ReusedSlots(const store::ResumeSource& source) {
  std::vector<Slot> slots;
  for (const store::ReusedAttempt& a : source.candidates) {
    slots.push_back(SlotOf(Role::kCandidate, a.record.key.slot.value_or(0)));
  }
  std::sort(slots.begin(), slots.end());
  if (ReusesEvaluation(source)) slots.push_back(Slot::kEvaluator);
  return slots;
}

std::vector<RouteSwap> PanelSwaps(const store::ResumeSource& source,
                                  const config::ModelsConfig& panel,
                                  const std::vector<RouteSwap>& explicit_swaps) {
  const std::vector<Slot> reused = ReusedSlots(source);
  std::vector<RouteSwap> swaps;
  for (Slot slot : kAllSlots) {
    const bool named = std::any_of(explicit_swaps.begin(), explicit_swaps.end(),
                                   [&](const RouteSwap& s) { return s.slot == slot; });
    if (named || std::find(reused.begin(), reused.end(), slot) != reused.end()) continue;
    swaps.push_back({slot, panel.selection(slot)});
  }
  return swaps;
}

Result<config::ModelsConfig> SwapRoutes(const store::ResumeSource& source,
                                        const std::vector<RouteSwap>& swaps,
                                        config::ModelsConfig pinned) {
  const std::vector<Slot> reused = ReusedSlots(source);
  std::vector<Slot> open;
  for (Slot slot : kAllSlots) {
    if (std::find(reused.begin(), reused.end(), slot) == reused.end()) open.push_back(slot);
  }
  for (const RouteSwap& swap : swaps) {
    if (std::find(reused.begin(), reused.end(), swap.slot) != reused.end()) {
      return Status::Error(
          kInvalidArguments,
          "/fusion-resume --slot " + SwapSlotName(swap.slot) + ": run " + source.manifest.run_id +
              " reuses the verified answer of " + std::string(SlotLabel(swap.slot)) +
              " with the model that wrote it (" +
              SlotRoute(source.manifest.models, swap.slot).QualifiedId() +
              "); only a slot whose answer did not verify takes another model: " + SwapNames(open));
    }
    pinned.selection(swap.slot) = swap.route;
  }
  return pinned;
}

const store::ReusedAttempt* ReusedCandidateOf(const PreparedRun& run, int slot) {
  if (!run.resume) return nullptr;
  for (const store::ReusedAttempt& a : run.resume->candidates) {
    if (a.record.key.slot == slot) return &a;
  }
  return nullptr;
}

size_t ReusedCandidateCount(const PreparedRun& run) {
  return run.resume ? run.resume->candidates.size() : 0;
}

const store::ReusedEvaluation* ReusedEvaluationOf(const PreparedRun& run) {
  if (!run.resume || !ReusesEvaluation(*run.resume)) return nullptr;
  // Only the kind of evaluation this run asks for: fusion-evaluation.v2 under
  // policy.evaluator_tools, v1 otherwise. A resume under the other policy evaluates again.
  const bool tools = workflow::EvaluatorHasTools(workflow::SpecOf(run.request.request.workflow),
                                                 run.policy.evaluator_tools);
  const nlohmann::json old =
      nlohmann::json::parse(run.resume->evaluation->evaluation, nullptr, false);
  const std::string_view wanted =
      tools ? workflow::kEvaluationV2Schema : workflow::kEvaluationSchema;
  if (!old.is_object() || old.value("schema_version", std::string()) != wanted) return nullptr;
  return &*run.resume->evaluation;
}

}  // namespace pi_fusion::run
