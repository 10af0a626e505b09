// ConfigStore: loads and saves fusion-models.json in Pi's agent directory.
//
// The caller passes the agent directory (the binding resolves PI_CODING_AGENT_DIR, default
// ~/.pi/agent). Load() captures the file's revision {path, exists, sha256}; Save() writes only if
// the file still has that revision, so a save never overwrites a concurrent edit:
//   1. serialize (every slot valid, else config_invalid);
//   2. create the agent directory if missing (new directories mode 0700; existing ones untouched);
//   3. take the lock `.fusion-models.json.lock`: exclusive create, mode 0600, content "<pid>\n";
//      retried every 25 ms; still held after 10 s -> config_conflict (a lock is never broken
//      automatically: its holder may be alive; the message names the file and its pid);
//   4. re-read the revision under the lock; a mismatch -> config_conflict;
//   5. durable write (temp file, fsync, rename, directory fsync), mode 0600;
//   6. remove the lock (also on every failure after step 3).
// I/O failures are artifact_error (the core's code for a failed durable write).
//
// Thread-safety: a ConfigStore holds no mutable state; concurrent Save() calls from threads or
// processes are serialized by the lock file. The FileSystem and Clock must be thread-safe.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/models_config.h"
#include "core/clock.h"
#include "core/file_system.h"
#include "pi_fusion/status.h"

namespace pi_fusion::config {

// The state of the file when it was read.
struct Revision {
  std::string path;
  bool exists = false;
  std::string sha256;  // "sha256:<hex>" of the bytes; empty when !exists
  bool operator==(const Revision&) const = default;
};

// {"path": ..., "exists": ..., "sha256": "sha256:<hex>" | null}: the manifest's config record.
nlohmann::json RevisionToJson(const Revision& revision);

struct LoadedConfig {
  ModelsConfig config;  // five "$current" slots when the file does not exist
  Revision revision;
};

class ConfigStore {
 public:
  // REQUIRES: `agent_dir` is absolute; `fs` and `clock` outlive the store. The clock times the
  // lock wait (Now, SleepFor), so tests can expire the 10 s without sleeping.
  ConfigStore(std::string agent_dir, FileSystem& fs, const Clock& clock);

  // <agent_dir>/fusion-models.json and <agent_dir>/.fusion-models.json.lock.
  const std::string& path() const { return path_; }
  const std::string& lock_path() const { return lock_path_; }

  // The config and its revision. A missing file is not an error. A file that cannot be read or
  // parsed is config_invalid naming the path and the rule.
  Result<LoadedConfig> Load() const;

  // The revision of the file as it is now (no parsing): lets a selector that showed a
  // config_invalid error still save over the broken file deliberately.
  Result<Revision> CurrentRevision() const;

  // Saves `config` if the file still has revision `loaded` (steps above). Returns the new
  // revision.
  Result<Revision> Save(const ModelsConfig& config, const Revision& loaded) const;

 private:
  Status AcquireLock() const;  // ok: the lock file is ours until we unlink it
  std::string LockHolderText() const;

  std::string agent_dir_;
  std::string path_;
  std::string lock_path_;
  FileSystem& fs_;
  const Clock& clock_;
};

// A message that sends the user to /fusion-models also names the file it edits: `status` with
// " Fusion's model config: <path>." appended when its message mentions /fusion-models but not
// `path`; anything else unchanged.
Status NameConfigFile(Status status, std::string_view path);
// A config file that cannot be read or parsed ends with how to get out of it: `status` with
// " Fix the file, or delete it and choose the models again with /fusion-models." appended when
// its code is config_invalid; anything else unchanged.
Status AddConfigFix(Status status);

}  // namespace pi_fusion::config
