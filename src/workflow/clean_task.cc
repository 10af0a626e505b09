#include "workflow/clean_task.h"

#include "workflow/workflow_constants.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::workflow {

Result<CanonicalDocument> BuildCleanTaskInput(const std::string& cwd,
                                              const schema::NormalizedRequest& request) {
  if (SpecOf(request.workflow).context != ContextPolicy::kCleanTask) {
    return Status::Error(
        std::string(kContextCaptureFailed),
        "no clean-task input for workflow \"" + std::string(Name(request.workflow)) + "\"");
  }
  if (cwd.empty()) {
    return Status::Error(std::string(kContextCaptureFailed), "the session's cwd is empty");
  }
  nlohmann::json input = {{"schema_version", kInputSchema},
                          {"workflow", Name(request.workflow)},
                          {"cwd", cwd},
                          {"request", request.request},
                          {"context", {{"kind", kCleanTaskKind}}}};
  return MakeCanonicalDocument(std::move(input), kContextCaptureFailed, "the canonical input");
}

}  // namespace pi_fusion::workflow
