// Where a run lives on disk and which artifact names are allowed.
//
//   <cwd>/.pi/fusion/<sanitized-session-id>-<pid>/<run-id>/<artifact>
//
// Session id sanitization (SanitizeSessionId): every byte outside [A-Za-z0-9._-] becomes '_'
// (a multi-byte UTF-8 character becomes several), the result is cut to kSessionIdMaxBytes, a
// leading '.' becomes '_' (no hidden directories, and never "." or ".."), and an empty result is
// "session". The pid suffix keeps two Pi processes sharing one session id apart.
//
// Artifact names (ValidateArtifactName): a plain basename of 1..kArtifactNameMaxBytes bytes from
// [A-Za-z0-9._-], not starting with '.' (so never "..", and never a durable temp name). Refs store
// this name as their `path`, relative to the run directory.
//
// Thread-safe; pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pi_fusion/status.h"

namespace pi_fusion::store {

std::string SanitizeSessionId(std::string_view session_id);

// "<sanitized-session-id>-<pid>": the session directory's name.
std::string SessionDirName(std::string_view session_id, long pid);

// The directories from the project down to the session directory, one name each:
// {".pi", "fusion", SessionDirName(session_id, pid)}.
std::vector<std::string> SessionDirSteps(std::string_view session_id, long pid);

// The run directory for one run.
// REQUIRES: `cwd` is absolute; IsValidRunId(run_id).
std::string RunDirectory(const std::string& cwd, std::string_view session_id, long pid,
                         std::string_view run_id);

// ok, or kArtifactError saying why `name` is not a plain artifact basename.
Status ValidateArtifactName(std::string_view name);

// `run_dir` + "/" + `name`.
// REQUIRES: ValidateArtifactName(name).ok()
std::string ArtifactPath(const std::string& run_dir, std::string_view name);

}  // namespace pi_fusion::store
