// The run store's root in a project, <cwd>/.pi/fusion, and a session's directory in it.
//
// The project is often a repository someone else wrote, and a repository can ship `.pi`,
// `.pi/fusion` or a session directory as a symlink to anywhere. CreateSessionDir() makes the
// directories with FileSystem::CreateDirsBeneath, so such a link is refused (kArtifactError,
// naming it) before anything exists at its target; the project directory itself may lie behind
// symlinks (a symlinked home is the user's own layout).
//
// It also keeps the store out of version control: <cwd>/.pi/fusion/.gitignore holding "*" is
// written durably whenever it is missing, so prompts and answers never show up in `git status`
// or get committed by `git add -A`. An existing .gitignore there is left as it is. The ignore file
// is a courtesy to the user, not a wall: candidates are kept out of the store by confinement.
//
// Thread-safe (the file system calls are); two processes creating the same root both succeed.
#pragma once

#include <string>
#include <string_view>

#include "core/file_system.h"
#include "pi_fusion/status.h"

namespace pi_fusion::store {

// The .gitignore's exact content.
inline constexpr std::string_view kRunsRootIgnore = "*\n";

// Makes <cwd>/.pi/fusion/<session>-<pid>/ exist as real directories (new ones 0700), and the
// ignore file above. Returns the session directory's path.
// REQUIRES: `cwd` is absolute.
Result<std::string> CreateSessionDir(FileSystem& fs, const std::string& cwd,
                                     std::string_view session_id, long pid);

}  // namespace pi_fusion::store
