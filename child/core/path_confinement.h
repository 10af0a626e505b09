// Confinement of a child's file tools to the caller's project directory.
//
// Candidates of investigate, research and validate run Pi's read, grep, find and ls. Before such a
// call runs, its `path` argument is resolved exactly as Pi resolves it (path-utils
// `resolveToCwd`: Unicode spaces become spaces, a leading "@" is dropped, "~" and "~/" expand to
// the home directory, relative paths join the cwd, "." and ".." collapse), then through every
// symlink with realpath(3). The call is refused unless the real path is the project directory or
// inside it, so `../x`, absolute paths elsewhere and symlinks pointing out are all refused, and so
// is a path that does not exist (Pi's read would then try look-alike names we cannot vet) and a
// `file://` URL. The refusal text becomes the tool's error result, which the model sees.
//
// ripgrep and fd do not follow symlinks while walking a directory, so vetting the starting path is
// enough for grep and find; ls lists names without reading them.
//
// Pure apart from `env` (realpath, home); thread-safety as `env`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "child/core/child_env.h"

namespace pi_fusion::child {

// The path Pi's resolveToCwd would give for `raw` under `cwd`, before symlinks; nullopt for input
// we refuse outright (a file:// URL, a NUL byte). Lexical only.
std::optional<std::string> ResolveLikePi(std::string_view raw, const std::string& cwd,
                                         const std::string& home);

// Why `tool` may not run with `input` (its validated arguments) under `cwd`, or nullopt when it
// may. Tools other than read, grep, find and ls take no path and are not checked here.
std::optional<std::string> RefuseOutsideProject(ChildEnv& env, const std::string& cwd,
                                                const std::string& tool,
                                                const nlohmann::json& input);

}  // namespace pi_fusion::child
