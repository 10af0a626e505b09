#include "workflow/clean_task.h"

#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {

Result<CanonicalDocument> BuildCleanTaskInput(const std::string& cwd,
                                              const schema::NormalizedRequest& request) {
  const std::optional<Capability> capability = CandidateCapability(request.workflow);
  if (!capability || *capability == Capability::kReason) {
    return Status::Error(std::string(kContextCaptureFailed),
                         "no clean-task input for workflow \"" + request.workflow + "\"");
  }
  if (cwd.empty()) {
    return Status::Error(std::string(kContextCaptureFailed), "the session's cwd is empty");
  }
  nlohmann::json input = {{"schema_version", kInputSchema},
                          {"workflow", request.workflow},
                          {"cwd", cwd},
                          {"request", request.request},
                          {"context", {{"kind", kCleanTaskKind}}}};
  return MakeCanonicalDocument(std::move(input), kContextCaptureFailed, "the canonical input");
}

}  // namespace pi_fusion::workflow
