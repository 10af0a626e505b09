// Pi's own `<agent dir>/models.json`, read through the FileSystem seam for route admission
// (provider_overrides.h says what it overrides). It is the user's file, kept where Pi keeps it and
// often linked from a dotfiles checkout, so a final symlink is followed as Pi's own read follows
// it. Thread-safe (reads only through the seam).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/file_system.h"

namespace pi_fusion::config {

// Far above any real models.json (a few providers and models: kilobytes), so no real file is
// refused; only a file that would make the reader allocate without bound is.
inline constexpr uint64_t kPiModelsJsonMaxBytes = 16u << 20;

// The parsed file (ParseModelsJson). No file, or one that cannot be read (not a regular file, no
// permission), is an empty object, as Pi treats it; a file over kPiModelsJsonMaxBytes is a
// discarded value, so every route counts as overridden (nothing unread is vouched for).
nlohmann::json ReadPiModelsJson(FileSystem& fs, const std::string& agent_dir);

}  // namespace pi_fusion::config
