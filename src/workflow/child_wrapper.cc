#include "workflow/child_wrapper.h"

#include "core/env_vars.h"
#include "core/error_codes.h"

namespace pi_fusion::workflow {

Result<std::string> ChildWrapperOf(const std::vector<std::string>& environment) {
  const std::string prefix = std::string(env_vars::kChildWrapper) + "=";
  for (const std::string& entry : environment) {
    if (entry.compare(0, prefix.size(), prefix) != 0) continue;
    std::string value = entry.substr(prefix.size());
    if (!value.empty() && value.front() != '/') {
      return Status::Error(kConfigInvalid,
                           std::string(env_vars::kChildWrapper) + "='" + value +
                               "' is not an absolute path; a debugging wrapper is never looked "
                               "up relative to the project. Give its absolute path, or unset it. "
                               "Nothing was started.");
    }
    return value;
  }
  return std::string();
}

std::string ChildWrapperNotice(const std::string& wrapper) {
  return "every child of this run runs through " + std::string(env_vars::kChildWrapper) + "=" +
         wrapper + " (a debugging aid): its answers and tool-call audit logs are not trustworthy";
}

}  // namespace pi_fusion::workflow
