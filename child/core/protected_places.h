// Where a candidate's walls learn what to protect besides the built-in names: Pi's session
// directories and the rows users and projects add (file_wall.h WallPlaces). Resolved once, when
// the child loads.
//
// Pi's session directories, every way Pi can be told one (Pi 1.6 main.js: `--session-dir`, then
// PI_CODING_AGENT_SESSION_DIR, then the settings' "sessionDir"), since the child cannot know
// which the parent used:
//   - PI_FUSION_SESSION_DIR: the parent's own session directory (ctx.sessionManager
//     .getSessionDir()), which the host plugin sets for each stage child; it covers
//     `--session-dir`;
//   - PI_CODING_AGENT_SESSION_DIR, as the child inherits it;
//   - "sessionDir" in the project's `.pi/settings.json` and in the agent directory's
//     `settings.json` (a leading "~" expanded, a relative path taken from the project);
//   - `<agent dir>/sessions`, Pi's default.
// Added protected rows: one per line of `<agent dir>/fusion-protected` (the user's) and of
// `<project>/.pi/fusion-protected` (the project's); blank lines and lines starting with "#" are
// skipped; a row is a name or a relative path matched at any depth, folded (protected_names.h).
// A row with a "." or ".." component, or an absolute path, is skipped. Rows only add.
//
// Thread-safety: as `fs`.
#pragma once

#include <string>

#include "child/core/child_config.h"
#include "child/core/file_wall.h"
#include "core/file_system.h"

namespace pi_fusion::child {

// The settings files and the rows files are read through `fs`; a missing or malformed one adds
// nothing. REQUIRES: `cwd` is absolute.
WallPlaces ResolveWallPlaces(const EnvLookup& lookup, FileSystem& fs, const std::string& cwd,
                             const std::string& agent_dir, const std::string& home);

// The rows of a fusion-protected file's text (see above). Pure.
std::vector<std::string> ParseProtectedRows(std::string_view text);

}  // namespace pi_fusion::child
