// Confinement of a child's file tools to the caller's project directory.
//
// Candidates of investigate, research and validate run Pi's read, grep, find and ls. Before such a
// call runs, its `path` argument is resolved exactly as Pi resolves it (path-utils
// `resolveToCwd`: Unicode spaces become spaces, a leading "@" is dropped, "~" and "~/" expand to
// the home directory, relative paths join the cwd, "." and ".." collapse), then through every
// symlink The call is refused unless the real path is the project directory or
// inside it, so `../x`, absolute paths elsewhere and symlinks pointing out are all refused, and so
// is a path that does not exist (Pi's read would then try look-alike names we cannot vet) and a
// `file://` URL. The refusal text becomes the tool's error result, which the model sees.
//
// The same check runs again where the tools open the file (FileWall, child/file_tools.h), so a path
// swapped between this check and the open is judged again by what is opened; this early check
// gives the model a clear refusal and the audit journal its code before anything runs.
//
// Thread-safety: as `env`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "child/core/child_env.h"
#include "child/core/file_wall.h"
#include "pi_fusion/status.h"

namespace pi_fusion::child {

// The path Pi's resolveToCwd would give for `raw` under `cwd`, before symlinks; nullopt for input
// we refuse outright (a file:// URL, a NUL byte). Lexical only.
std::optional<std::string> ResolveLikePi(std::string_view raw, const std::string& cwd,
                                         const std::string& home);

// Why `tool` may not run with `input` (its validated arguments) under `cwd`, as a Status whose
// code is the audit journal's error_code (file_wall.h kPath*) and whose message the model sees;
// nullopt when it may. `places`: what the wall protects besides the built-in names. Tools other
// than read, grep, find and ls take no path and are not checked here.
std::optional<Status> RefuseToolPath(ChildEnv& env, const WallPlaces& places,
                                     const std::string& cwd, const std::string& tool,
                                     const nlohmann::json& input);

}  // namespace pi_fusion::child
