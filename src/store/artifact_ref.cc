#include "store/artifact_ref.h"

#include "core/durable_file.h"
#include "pi_fusion/sha256.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "store/run_paths.h"

namespace pi_fusion::store {
namespace {

bool IsDigestRef(const std::string& digest) {
  constexpr std::string_view kPrefix = "sha256:";
  if (digest.size() != kPrefix.size() + 64 || digest.compare(0, kPrefix.size(), kPrefix) != 0) {
    return false;
  }
  for (size_t i = kPrefix.size(); i < digest.size(); ++i) {
    const char c = digest[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Status Mismatch(const ArtifactRef& ref, const std::string& what) {
  return Status::Error(kArtifactError, ref.path + ": " + what);
}

}  // namespace

ArtifactRef MakeRef(std::string_view name, std::string_view bytes) {
  return ArtifactRef{std::string(name), bytes.size(), Sha256Ref(bytes)};
}

nlohmann::json RefToJson(const ArtifactRef& ref) {
  return {{"path", ref.path}, {"byte_length", ref.byte_length}, {"sha256", ref.sha256}};
}

Result<ArtifactRef> RefFromJson(const nlohmann::json& value, std::string_view where) {
  FieldReader r(value, std::string(where));
  ArtifactRef ref;
  ref.path = r.String("path");
  ref.byte_length = r.Count("byte_length");
  ref.sha256 = r.String("sha256");
  Status s = r.Finish();
  if (!s.ok()) return s;
  s = ValidateArtifactName(ref.path);
  if (!s.ok()) return Status::Error(kArtifactError, std::string(where) + ": " + s.message());
  if (!IsDigestRef(ref.sha256)) {
    return Status::Error(kArtifactError, std::string(where) + " sha256 is not sha256:<hex>");
  }
  return ref;
}

uint64_t ArtifactReadCap(std::string_view name) {
  if (name == kManifestFile) return kManifestMaxBytes;
  if (name == kResultFile) return kResultMaxBytes;
  if (name == kMergedFile) return kMergedMaxBytes;
  if (name == kErrorFile) return kErrorMaxBytes;
  if (name == kFailureSummaryFile) return kFailureSummaryMaxBytes;
  return kArtifactMaxBytes;
}

Result<std::string> VerifyArtifact(FileSystem& fs, const std::string& run_dir,
                                   const ArtifactRef& ref) {
  Status s = ValidateArtifactName(ref.path);
  if (!s.ok()) return s;
  const std::string path = ArtifactPath(run_dir, ref.path);
  auto bytes = fs.ReadFile(path, ArtifactReadCap(ref.path));
  if (!bytes.ok()) {
    if (bytes.status().code() == kFsNotRegular) return Mismatch(ref, "is not a regular file");
    return Mismatch(ref, "cannot be read: " + bytes.status().message());
  }
  if (bytes->size() != ref.byte_length) {
    return Mismatch(ref, "byte_length " + std::to_string(bytes->size()) + " != recorded " +
                             std::to_string(ref.byte_length));
  }
  const std::string digest = Sha256Ref(bytes.value());
  if (digest != ref.sha256) return Mismatch(ref, "sha256 " + digest + " != recorded " + ref.sha256);
  return std::move(bytes).value();
}

}  // namespace pi_fusion::store
