#include "fault_file_system.h"

#include <cerrno>

namespace pi_fusion::store::testing {
namespace {

bool IsMutating(FsOp op) {
  switch (op) {
    case FsOp::kReadFile:
    case FsOp::kListDir:
    case FsOp::kStat:
    case FsOp::kLockTest:
      return false;
    default:
      return true;
  }
}

std::string Base(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

class FaultWritableFile : public WritableFile {
 public:
  FaultWritableFile(FaultFileSystem& fs, std::string path, std::unique_ptr<WritableFile> file)
      : fs_(fs), path_(std::move(path)), file_(std::move(file)) {}

  Status Append(std::string_view data) override {
    return Do(FsOp::kAppend, [&] { return file_->Append(data); });
  }
  Status Sync() override {
    return Do(FsOp::kSync, [&] { return file_->Sync(); });
  }
  Status Close() override {
    return Do(FsOp::kClose, [&] { return file_->Close(); });
  }

 private:
  template <typename Call>
  Status Do(FsOp op, Call call) {
    Status s = fs_.Check(op, path_);
    if (!s.ok()) return s;
    s = call();
    if (s.ok()) fs_.Record(op, path_);
    return s;
  }

  FaultFileSystem& fs_;
  std::string path_;
  std::unique_ptr<WritableFile> file_;
};

}  // namespace

const char* FsOpName(FsOp op) {
  static const char* const kNames[] = {"mkdir",  "create",  "append",  "sync", "close",
                                       "rename", "syncdir", "read",    "list", "unlink",
                                       "stat",   "lock",    "locktest"};
  return kNames[static_cast<int>(op)];
}

void FaultFileSystem::FailOn(FsOp op, int err, std::string path_part, int skip) {
  std::lock_guard lock(mu_);
  rules_.push_back(Rule{op, err, std::move(path_part), skip});
}

void FaultFileSystem::CrashAfter(int mutating_calls) {
  std::lock_guard lock(mu_);
  crash_budget_ = mutating_calls;
}

void FaultFileSystem::FailMutatingCall(int nth, int err) {
  std::lock_guard lock(mu_);
  fail_call_ = mutating_calls_ + nth;
  fail_call_err_ = err;
}

int FaultFileSystem::mutating_calls() const {
  std::lock_guard lock(mu_);
  return mutating_calls_;
}

bool FaultFileSystem::crashed() const {
  std::lock_guard lock(mu_);
  return crashed_;
}

std::vector<std::string> FaultFileSystem::log() const {
  std::lock_guard lock(mu_);
  return log_;
}

std::vector<std::string> FaultFileSystem::published() const {
  std::vector<std::string> out;
  for (const auto& entry : log()) {
    if (entry.rfind("rename:", 0) == 0) out.push_back(entry.substr(7));
  }
  return out;
}

Status FaultFileSystem::Check(FsOp op, const std::string& path) {
  std::lock_guard lock(mu_);
  if (crashed_) return FsError(std::string(FsOpName(op)) + " (after simulated crash)", path, EIO);
  if (IsMutating(op) && ++mutating_calls_ == fail_call_)
    return FsError(FsOpName(op), path, fail_call_err_);
  if (IsMutating(op) && crash_budget_ >= 0) {
    if (crash_budget_ == 0) {
      crashed_ = true;
      return FsError(std::string(FsOpName(op)) + " (simulated crash)", path, EIO);
    }
    --crash_budget_;
  }
  for (auto it = rules_.begin(); it != rules_.end(); ++it) {
    if (it->op != op || path.find(it->path_part) == std::string::npos) continue;
    if (it->skip > 0) {
      --it->skip;
      continue;
    }
    const int err = it->err;
    rules_.erase(it);
    return FsError(FsOpName(op), path, err);
  }
  return Status::Ok();
}

void FaultFileSystem::Record(FsOp op, const std::string& path) {
  if (!IsMutating(op)) return;
  std::lock_guard lock(mu_);
  log_.push_back(std::string(FsOpName(op)) + ":" + Base(path));
}

Status FaultFileSystem::CreateDir(const std::string& path, mode_t mode) {
  if (Status s = Check(FsOp::kCreateDir, path); !s.ok()) return s;
  Status s = target().CreateDir(path, mode);
  if (s.ok()) Record(FsOp::kCreateDir, path);
  return s;
}

Result<std::unique_ptr<WritableFile>> FaultFileSystem::CreateExclusive(const std::string& path,
                                                                       mode_t mode) {
  if (Status s = Check(FsOp::kCreateExclusive, path); !s.ok()) return s;
  auto file = target().CreateExclusive(path, mode);
  if (!file.ok()) return file.status();
  Record(FsOp::kCreateExclusive, path);
  return std::unique_ptr<WritableFile>(
      std::make_unique<FaultWritableFile>(*this, path, std::move(file).value()));
}

Status FaultFileSystem::Rename(const std::string& from, const std::string& to) {
  if (Status s = Check(FsOp::kRename, from + " -> " + to); !s.ok()) return s;
  Status s = target().Rename(from, to);
  if (s.ok()) Record(FsOp::kRename, to);
  return s;
}

Status FaultFileSystem::SyncDir(const std::string& path) {
  if (Status s = Check(FsOp::kSyncDir, path); !s.ok()) return s;
  Status s = target().SyncDir(path);
  if (s.ok()) Record(FsOp::kSyncDir, path);
  return s;
}

Result<std::string> FaultFileSystem::ReadFile(const std::string& path, uint64_t max_bytes) {
  if (Status s = Check(FsOp::kReadFile, path); !s.ok()) return s;
  return target().ReadFile(path, max_bytes);
}

Result<std::vector<std::string>> FaultFileSystem::ListDir(const std::string& path) {
  if (Status s = Check(FsOp::kListDir, path); !s.ok()) return s;
  return target().ListDir(path);
}

Status FaultFileSystem::Unlink(const std::string& path) {
  if (Status s = Check(FsOp::kUnlink, path); !s.ok()) return s;
  Status s = target().Unlink(path);
  if (s.ok()) Record(FsOp::kUnlink, path);
  return s;
}

Result<FileInfo> FaultFileSystem::Stat(const std::string& path) {
  if (Status s = Check(FsOp::kStat, path); !s.ok()) return s;
  return target().Stat(path);
}

Result<std::unique_ptr<FileLock>> FaultFileSystem::LockExclusive(const std::string& path,
                                                                 mode_t mode) {
  if (Status s = Check(FsOp::kLock, path); !s.ok()) return s;
  auto lock = target().LockExclusive(path, mode);
  if (lock.ok()) Record(FsOp::kLock, path);
  return lock;
}

Result<bool> FaultFileSystem::IsLocked(const std::string& path) {
  if (Status s = Check(FsOp::kLockTest, path); !s.ok()) return s;
  return target().IsLocked(path);
}

Status FaultFileSystem::CreateDirsBeneath(const std::string& base,
                                          const std::vector<std::string>& names, mode_t mode) {
  std::string path = base;
  for (const std::string& name : names) path += "/" + name;
  if (Status s = Check(FsOp::kCreateDir, path); !s.ok()) return s;
  Status s = target().CreateDirsBeneath(base, names, mode);
  if (s.ok()) Record(FsOp::kCreateDir, path);
  return s;
}

}  // namespace pi_fusion::store::testing
