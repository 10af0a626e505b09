#include "store/usage_claim.h"

#include "core/durable_file.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "store/run_paths.h"

namespace pi_fusion::store {

Result<bool> ClaimUsageOnce(FileSystem& fs, const Clock& clock, const std::string& run_dir,
                            const std::string& run_id, const Usage& usage) {
  const nlohmann::json body = {{"run_id", run_id},
                               {"claimed_at", FormatTimestamp(clock.WallNow())},
                               {"usage", UsageToJson(usage)}};
  auto bytes = CanonicalBytes(body, kUsageClaimFile);
  if (!bytes.ok()) return bytes.status();
  const std::string path = ArtifactPath(run_dir, kUsageClaimFile);
  auto file = fs.CreateExclusive(path, kPrivateFileMode);
  if (!file.ok()) {
    if (file.status().code() == kFsAlreadyExists) return false;
    return Status::Error(kArtifactError, "usage claim: " + file.status().message());
  }
  Status s = file.value()->Append(bytes.value());
  if (s.ok()) s = file.value()->Sync();
  if (s.ok()) s = file.value()->Close();
  file.value().reset();
  if (s.ok()) s = fs.SyncDir(run_dir);
  if (!s.ok()) {
    (void)fs.Unlink(path);
    return Status::Error(kArtifactError, "usage claim: " + s.message());
  }
  return true;
}

}  // namespace pi_fusion::store
