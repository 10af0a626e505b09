#include "core/durable_file.h"

#include <memory>
#include <utility>
#include <vector>

namespace pi_fusion {
namespace {

constexpr std::string_view kTempMarker = ".tmp-";
// Temp names already taken (a concurrent writer of the same target, or a crash's leftover) are
// skipped; this many in a row means something is wrong with the directory.
constexpr int kMaxTempNameTries = 64;

Status ArtifactError(const std::string& path, const Status& cause) {
  return Status::Error(kArtifactError, "durable write of " + path + " failed: " + cause.message());
}

// Creates the first free temp name beside `path`. Exclusive creation, so two writers of the same
// target never share a temp file and a planted symlink is never followed.
Result<std::pair<std::string, std::unique_ptr<WritableFile>>> CreateTemp(FileSystem& fs,
                                                                         const std::string& path,
                                                                         mode_t mode) {
  const std::string dir = DirName(path);
  const std::string prefix =
      (dir == "/" ? "/" : dir + "/") + "." + BaseName(path) + std::string(kTempMarker);
  Status last;
  for (int i = 0; i < kMaxTempNameTries; ++i) {
    std::string temp = prefix + std::to_string(i);
    auto file = fs.CreateExclusive(temp, mode);
    if (file.ok()) return std::make_pair(std::move(temp), std::move(file).value());
    last = file.status();
    if (last.code() != kFsAlreadyExists) return last;
  }
  return last;
}

// Writes, syncs and closes `file`; on error the file is closed by its destructor.
Status WriteAll(WritableFile& file, std::string_view bytes) {
  Status s = file.Append(bytes);
  if (s.ok()) s = file.Sync();
  if (s.ok()) s = file.Close();
  return s;
}

}  // namespace

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool IsDurableTempName(std::string_view name) {
  return !name.empty() && name.front() == '.' && name.find(kTempMarker) != std::string_view::npos;
}

Status WriteFileDurably(FileSystem& fs, const std::string& path, std::string_view bytes,
                        mode_t mode) {
  const DurableFile file{path, bytes};
  return WriteFilesDurably(fs, std::span<const DurableFile>(&file, 1), mode);
}

Status WriteFilesDurably(FileSystem& fs, std::span<const DurableFile> files, mode_t mode) {
  if (files.empty()) return Status::Ok();
  std::vector<std::string> temps;
  auto remove_temps = [&](size_t from) {
    // Best effort: the original error is the one worth reporting.
    for (size_t i = from; i < temps.size(); ++i) (void)fs.Unlink(temps[i]);
  };
  for (const DurableFile& file : files) {
    auto created = CreateTemp(fs, file.path, mode);
    if (!created.ok()) {
      remove_temps(0);
      return ArtifactError(file.path, created.status());
    }
    auto& [temp, handle] = created.value();
    temps.push_back(temp);
    Status s = WriteAll(*handle, file.bytes);
    if (!s.ok()) {
      handle.reset();
      remove_temps(0);
      return ArtifactError(file.path, s);
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (Status s = fs.Rename(temps[i], files[i].path); !s.ok()) {
      remove_temps(i);
      return ArtifactError(files[i].path, s);
    }
  }
  // One directory fsync makes every new name durable.
  if (Status s = fs.SyncDir(DirName(files.front().path)); !s.ok()) {
    return ArtifactError(files.front().path, s);
  }
  return Status::Ok();
}

Status CreateDirectories(FileSystem& fs, const std::string& path, mode_t mode) {
  if (path.empty() || path.front() != '/') {
    return Status::Error(kArtifactError, "directory path is not absolute: " + path);
  }
  auto info = fs.Stat(path);
  if (info.ok()) {
    // A symlink is taken as the user's own layout (a symlinked home or project); if it does not
    // lead to a directory, creating the next component fails with ENOTDIR.
    if (info->type == FileType::kDirectory || info->type == FileType::kSymlink) return Status::Ok();
    return Status::Error(kArtifactError, path + " exists and is not a directory");
  }
  if (info.status().code() != kFsNotFound) {
    return Status::Error(kArtifactError, info.status().message());
  }
  const std::string parent = DirName(path);
  if (parent != path) {
    Status s = CreateDirectories(fs, parent, mode);
    if (!s.ok()) return s;
  }
  Status s = fs.CreateDir(path, mode);
  // Another process may have created it between our Stat and mkdir: that is fine if it is a
  // directory.
  if (s.code() == kFsAlreadyExists) return CreateDirectories(fs, path, mode);
  if (!s.ok()) return Status::Error(kArtifactError, s.message());
  s = fs.SyncDir(parent);
  if (!s.ok()) return Status::Error(kArtifactError, s.message());
  return Status::Ok();
}

}  // namespace pi_fusion
