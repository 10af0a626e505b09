#include "cli/fetch_rlimits.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "core/error_codes.h"

namespace pi_fusion::cli {
namespace {

bool SanitizedBuild() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

}  // namespace

Status ApplyFetchRlimits() {
  for (const FetchRlimit& limit : kFetchRlimits) {
    if (limit.resource == RLIMIT_AS && SanitizedBuild()) continue;
    rlimit current{};
    if (getrlimit(limit.resource, &current) != 0) {
      return Status::Error(kInternalError, std::string("cannot read the ") + limit.name +
                                               " limit: " + std::strerror(errno));
    }
    const rlim_t value = current.rlim_max != RLIM_INFINITY && current.rlim_max < limit.value
                             ? current.rlim_max
                             : limit.value;
    const rlimit wanted{value, value};
    if (setrlimit(limit.resource, &wanted) != 0) {
      return Status::Error(kInternalError, std::string("cannot set the ") + limit.name +
                                               " limit: " + std::strerror(errno));
    }
  }
  return Status::Ok();
}

}  // namespace pi_fusion::cli
