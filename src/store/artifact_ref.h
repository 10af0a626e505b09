// Artifact references: {path, byte_length, sha256: "sha256:<hex>"}, where `path` is a plain
// basename relative to the run directory (see run_paths.h). A ref binds exact bytes: bg_result
// re-reads the file and compares both length and digest before trusting it.
//
// Values and pure functions, except VerifyArtifact which reads through the FileSystem seam.
// Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "pi_fusion/status.h"

namespace pi_fusion::store {

struct ArtifactRef {
  std::string path;  // basename inside the run directory
  uint64_t byte_length = 0;
  std::string sha256;  // "sha256:<64 lowercase hex>"

  bool operator==(const ArtifactRef&) const = default;
};

// The ref of `bytes` stored under `name`.
ArtifactRef MakeRef(std::string_view name, std::string_view bytes);

nlohmann::json RefToJson(const ArtifactRef& ref);
// A closed {path, byte_length, sha256} with a valid artifact name and digest form, else
// kArtifactError naming `where`.
Result<ArtifactRef> RefFromJson(const nlohmann::json& value, std::string_view where);

// The most bytes any reader reads of the artifact `name` (constants.h "Read caps").
uint64_t ArtifactReadCap(std::string_view name);

// Reads `run_dir`/ref.path (bounded by ArtifactReadCap) and checks that it is a regular file (not a
// symlink) whose length and SHA-256 equal the ref's. Returns the verified bytes, or kArtifactError
// naming the file and what differed ("merged.md: byte_length 11 != recorded 12").
Result<std::string> VerifyArtifact(FileSystem& fs, const std::string& run_dir,
                                   const ArtifactRef& ref);

}  // namespace pi_fusion::store
