// PI_FUSION_CHILD_WRAPPER: a debugging aid, read from the host's environment. Every child command
// of a run then runs through it, as `<wrapper> <node> <pi-cli> <args…>` (tracing, recording).
//
// A wrapper sits between the parent and each child, so it can change what a child sees, answers
// and journals: a run under one is not a trustworthy run, and it says so in its receipt, its
// progress and its result details (ChildWrapperNotice). The value is taken only as an absolute
// path: a relative one would be resolved against the working directory, which is the user's
// project, so a repository could name an executable of its own.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "pi_fusion/status.h"

namespace pi_fusion::workflow {

// The wrapper named by `environment` ("NAME=value" entries; the first entry of a name wins, as
// getenv() does): empty when unset or empty. Error config_invalid, naming the variable and the
// value, when it is not an absolute path.
Result<std::string> ChildWrapperOf(const std::vector<std::string>& environment);

// "every child of this run runs through PI_FUSION_CHILD_WRAPPER=<path> (a debugging aid): its
// answers and tool-call audit logs are not trustworthy". REQUIRES: `wrapper` is not empty.
std::string ChildWrapperNotice(const std::string& wrapper);

}  // namespace pi_fusion::workflow
