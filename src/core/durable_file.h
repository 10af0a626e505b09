// Durable, all-or-nothing file writes and private directory creation, built on the FileSystem
// seam. Used for every run artifact and manifest, and for the model config file.
//
// WriteFileDurably() creates a temp file beside the target (same directory, so rename(2) is
// atomic), writes every byte, fsyncs it, renames it over the target and fsyncs the directory. A
// reader therefore sees either the previous content or the complete new content under the final
// name, never a prefix. Temp names start with '.' and contain ".tmp-" (see IsDurableTempName), so
// they can never collide with a plain artifact name.
//
// Thread-safety: stateless; concurrent calls for *different* targets are safe. Concurrent writes of
// the same target are safe (distinct temp names) but the last rename wins; callers that need an
// order (the manifest) serialize themselves.
#pragma once

#include <sys/types.h>

#include <span>
#include <string>
#include <string_view>

#include "core/error_codes.h"
#include "core/file_system.h"
#include "pi_fusion/status.h"

namespace pi_fusion {

// Default mode of every private artifact.
inline constexpr mode_t kPrivateFileMode = 0600;
// Default mode of every directory the run store creates.
inline constexpr mode_t kPrivateDirMode = 0700;

// Writes `bytes` to `path` durably (see above) with exactly `mode`.
// On failure returns kArtifactError with the failing operation and its errno text; the temp file
// is removed and nothing partial is ever left under `path`. One case keeps the new bytes: if
// only the final directory fsync fails, the rename has already happened, so `path` holds the
// complete new content but its name may not survive a power loss; the error is still returned.
// REQUIRES: `path` names a file inside an existing directory; its basename is not empty.
Status WriteFileDurably(FileSystem& fs, const std::string& path, std::string_view bytes,
                        mode_t mode = kPrivateFileMode);

// One file of a WriteFilesDurably batch.
struct DurableFile {
  std::string path;
  std::string_view bytes;
};

// WriteFileDurably for several files of ONE directory, at the cost of one fsync per file and one
// directory fsync for the whole batch (instead of a directory fsync per file): every file is
// written and fsynced under its temp name first, then all are renamed, then the directory is
// fsynced once. On failure returns kArtifactError; every temp file not yet renamed is removed, so
// a name holds either its previous content or its complete new content, never a prefix.
// REQUIRES: every path names a file directly inside the same existing directory.
Status WriteFilesDurably(FileSystem& fs, std::span<const DurableFile> files,
                         mode_t mode = kPrivateFileMode);

// Creates `path` and any missing parents; each directory this call creates gets exactly `mode`
// and its parent is fsynced, so the new name is durable. Existing directories are left as they
// are (`.pi` may belong to the user; a symlink to a directory counts as existing). Fails with
// kArtifactError if a component exists and is not a directory.
// REQUIRES: `path` is absolute.
Status CreateDirectories(FileSystem& fs, const std::string& path, mode_t mode = kPrivateDirMode);

// True for a name WriteFileDurably uses for its temp files (a crash can leave one behind).
bool IsDurableTempName(std::string_view name);

// "dir" and "base" of "dir/base" ("/" for a file at the root, "." when there is no slash).
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);

}  // namespace pi_fusion
