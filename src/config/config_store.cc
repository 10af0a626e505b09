#include "config/config_store.h"

#include <unistd.h>

#include <utility>

#include "core/durable_file.h"
#include "pi_fusion/sha256.h"

namespace pi_fusion::config {

nlohmann::json RevisionToJson(const Revision& revision) {
  return {{"path", revision.path},
          {"exists", revision.exists},
          {"sha256", revision.exists ? nlohmann::json(revision.sha256) : nlohmann::json(nullptr)}};
}

namespace {

Status IoError(const std::string& what, const Status& cause) {
  return Status::Error(kArtifactError, what + ": " + cause.message());
}

Status Conflict(std::string message) {
  return Status::Error(std::string(kConfigConflict), std::move(message));
}

// Removes the lock when the save leaves scope, whatever path it leaves by. Best effort: a lock
// left behind is reported, with its path, by the next save.
class LockRelease {
 public:
  LockRelease(FileSystem& fs, const std::string& lock_path) : fs_(fs), lock_path_(lock_path) {}
  ~LockRelease() { (void)fs_.Unlink(lock_path_); }  // best effort, as said above
  LockRelease(const LockRelease&) = delete;
  LockRelease& operator=(const LockRelease&) = delete;

 private:
  FileSystem& fs_;
  const std::string& lock_path_;
};

}  // namespace

ConfigStore::ConfigStore(std::string agent_dir, FileSystem& fs, const Clock& clock)
    : agent_dir_(std::move(agent_dir)),
      path_(agent_dir_ + "/" + std::string(kModelsFileName)),
      lock_path_(agent_dir_ + "/." + std::string(kModelsFileName) + ".lock"),
      fs_(fs),
      clock_(clock) {}

Result<Revision> ConfigStore::CurrentRevision() const {
  Result<std::string> bytes = fs_.ReadFile(path_, kModelsFileMaxBytes);
  if (bytes.ok()) return Revision{path_, true, Sha256Ref(*bytes)};
  if (bytes.status().code() == kFsNotFound) return Revision{path_, false, ""};
  return Status::Error(std::string(kConfigInvalid),
                       "Cannot read " + path_ + ": " + bytes.status().message());
}

Result<LoadedConfig> ConfigStore::Load() const {
  Result<std::string> bytes = fs_.ReadFile(path_, kModelsFileMaxBytes);
  if (!bytes.ok()) {
    if (bytes.status().code() == kFsNotFound) return LoadedConfig{{}, {path_, false, ""}};
    return Status::Error(std::string(kConfigInvalid),
                         "Cannot read " + path_ + ": " + bytes.status().message());
  }
  Result<ModelsConfig> config = ParseModelsConfig(*bytes, path_);
  if (!config.ok()) return config.status();
  return LoadedConfig{std::move(config).value(), {path_, true, Sha256Ref(*bytes)}};
}

std::string ConfigStore::LockHolderText() const {
  Result<std::string> content = fs_.ReadFile(lock_path_, kLockFileMaxBytes);
  if (!content.ok()) return "";
  std::string pid = *content;
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == '\r')) pid.pop_back();
  return pid.empty() || pid.size() > 20 ? "" : " (pid " + pid + ")";
}

Status ConfigStore::AcquireLock() const {
  const auto deadline = clock_.Now() + kLockTimeout;
  for (;;) {
    auto file = fs_.CreateExclusive(lock_path_, kLockFileMode);
    if (file.ok()) {
      Status s = (*file)->Append(std::to_string(::getpid()) + "\n");
      if (s.ok()) s = (*file)->Close();
      if (s.ok()) return s;
      // Best effort: the write error is what this save reports; a lock left behind is named
      // by the next save.
      (void)fs_.Unlink(lock_path_);
      return IoError("Cannot write the lock " + lock_path_, s);
    }
    if (file.status().code() != kFsAlreadyExists) {
      return IoError("Cannot create the lock " + lock_path_, file.status());
    }
    if (clock_.Now() >= deadline) {
      return Conflict("Cannot save " + path_ + ": another save holds the lock " + lock_path_ +
                      LockHolderText() +
                      " and did not release it within 10 s. If no other Pi is saving "
                      "/fusion-models, delete the lock file and save again.");
    }
    clock_.SleepFor(kLockRetryInterval);
  }
}

Result<Revision> ConfigStore::Save(const ModelsConfig& config, const Revision& loaded) const {
  Result<std::string> bytes = SerializeModelsConfig(config);
  if (!bytes.ok()) {
    return Status::Error(bytes.status().code(),
                         "Cannot save " + path_ + ": " + bytes.status().message());
  }
  Status s = CreateDirectories(fs_, agent_dir_, kConfigDirMode);
  if (!s.ok()) return IoError("Cannot create " + agent_dir_, s);
  s = AcquireLock();
  if (!s.ok()) return s;
  LockRelease release(fs_, lock_path_);
  Result<Revision> current = CurrentRevision();
  if (!current.ok()) return current.status();
  if (!(*current == loaded)) {
    return Conflict("Cannot save " + path_ +
                    ": the file changed since /fusion-models loaded it, and nothing was "
                    "overwritten. Open /fusion-models again and choose again.");
  }
  s = WriteFileDurably(fs_, path_, *bytes, kConfigFileMode);
  if (!s.ok()) return IoError("Cannot save " + path_, s);
  return Revision{path_, true, Sha256Ref(*bytes)};
}

Status NameConfigFile(Status status, std::string_view path) {
  const std::string& message = status.message();
  if (status.ok() || message.find("/fusion-models") == std::string::npos ||
      message.find(path) != std::string::npos) {
    return status;
  }
  return Status::Error(status.code(),
                       message + " Fusion's model config: " + std::string(path) + ".");
}

Status AddConfigFix(Status status) {
  if (status.ok() || status.code() != kConfigInvalid) return status;
  std::string message = status.message();
  if (!message.ends_with('.')) message += '.';
  return Status::Error(status.code(),
                       message +
                           " Fix the file, or delete it and choose the models again with "
                           "/fusion-models.");
}

}  // namespace pi_fusion::config
