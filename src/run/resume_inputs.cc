#include "run/resume_inputs.h"

#include "core/error_codes.h"
#include "pi_fusion/canonical_json.h"
#include "schema/tool_catalog.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::run {
namespace {

Status NotResumable(const store::ResumeSource& source, const std::string& why) {
  return store::RunNotResumable(source.manifest.run_id, why);
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
  if (!run.resume || !run.resume->evaluation ||
      ReusedCandidateCount(run) != workflow::kCandidateCount) {
    return nullptr;
  }
  return &*run.resume->evaluation;
}

}  // namespace pi_fusion::run
