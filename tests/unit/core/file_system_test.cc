// The POSIX FileSystem and the durable-write helpers against a real temp directory.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "core/file_system.h"
#include "core/random_id.h"

namespace {

using pi_fusion::FileSystem;
using pi_fusion::FileType;
using pi_fusion::PosixFileSystem;

constexpr uint64_t kAnySize = 1u << 20;

// A fresh directory under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/pi-fusion-core-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

// Descriptors of this process whose target is `path`.
std::vector<int> OpenDescriptorsFor(const std::string& path) {
  std::vector<int> fds;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target == path) fds.push_back(std::stoi(entry.path().filename().string()));
  }
  return fds;
}

}  // namespace

TEST_CASE("FileSystem: creates directories and files with the exact mode despite the umask",
          "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  const mode_t old_umask = ::umask(0077 | 0022);
  REQUIRE(fs.CreateDir(dir / "d", 0750).ok());
  auto file = fs.CreateExclusive(dir / "f", 0640);
  ::umask(old_umask);
  REQUIRE(file.ok());
  REQUIRE(file.value()->Close().ok());
  CHECK(ModeOf(dir / "d") == 0750);
  CHECK(ModeOf(dir / "f") == 0640);
}

TEST_CASE("FileSystem: exclusive create refuses an existing name and a symlink", "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(fs.CreateExclusive(dir / "a", 0600).ok());
  auto again = fs.CreateExclusive(dir / "a", 0600);
  REQUIRE_FALSE(again.ok());
  CHECK(again.status().code() == pi_fusion::kFsAlreadyExists);
  REQUIRE(::symlink((dir / "elsewhere").c_str(), (dir / "link").c_str()) == 0);
  CHECK_FALSE(fs.CreateExclusive(dir / "link", 0600).ok());
  CHECK_FALSE(std::filesystem::exists(dir / "elsewhere"));
}

TEST_CASE("FileSystem: write, sync, rename, read, list, stat, unlink round trip", "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  auto file = fs.CreateExclusive(dir / "tmp", 0600);
  REQUIRE(file.ok());
  const std::string big(200 * 1024, 'x');
  REQUIRE(file.value()->Append("head:").ok());
  REQUIRE(file.value()->Append(big).ok());
  REQUIRE(file.value()->Sync().ok());
  REQUIRE(file.value()->Close().ok());
  REQUIRE(fs.Rename(dir / "tmp", dir / "final").ok());
  REQUIRE(fs.SyncDir(dir.path()).ok());
  auto bytes = fs.ReadFile(dir / "final", kAnySize);
  REQUIRE(bytes.ok());
  CHECK(bytes.value() == "head:" + big);
  auto names = fs.ListDir(dir.path());
  REQUIRE(names.ok());
  CHECK(names.value() == std::vector<std::string>{"final"});
  auto info = fs.Stat(dir / "final");
  REQUIRE(info.ok());
  CHECK(info->type == FileType::kRegular);
  CHECK(info->size == bytes->size());
  CHECK(info->permissions == 0600);
  REQUIRE(fs.Unlink(dir / "final").ok());
  auto gone = fs.Stat(dir / "final");
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.status().code() == pi_fusion::kFsNotFound);
  CHECK(gone.status().message().find("No such file or directory (errno 2)") != std::string::npos);
}

TEST_CASE("FileSystem: Stat reports a symlink and ReadFile does not follow one", "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir / "real", "secret").ok());
  REQUIRE(::symlink((dir / "real").c_str(), (dir / "link").c_str()) == 0);
  auto info = fs.Stat(dir / "link");
  REQUIRE(info.ok());
  CHECK(info->type == FileType::kSymlink);
  auto bytes = fs.ReadFile(dir / "link", kAnySize);
  REQUIRE_FALSE(bytes.ok());
  CHECK(bytes.status().code() == pi_fusion::kFsNotRegular);
  CHECK_THAT(bytes.status().message(),
             Catch::Contains("link: not a regular file (a symbolic link)"));
}

TEST_CASE("FileSystem: RealPath resolves every link; a missing path is not_found", "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(fs.CreateDir(dir / "project", 0700).ok());
  REQUIRE(::symlink((dir / "project").c_str(), (dir / "link").c_str()) == 0);
  auto real = fs.RealPath(dir / "project");
  REQUIRE(real.ok());
  auto through_link = fs.RealPath(dir / "link");
  REQUIRE(through_link.ok());
  CHECK(*through_link == *real);
  CHECK(fs.RealPath(dir / "link/../link/.")->ends_with("/project"));
  CHECK(fs.RealPath(dir / "missing").status().code() == pi_fusion::kFsNotFound);
}

TEST_CASE("FileSystem: ReadFileFollowingLink follows a final symlink, and is otherwise ReadFile",
          "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir / "real", "user's own").ok());
  REQUIRE(::symlink((dir / "real").c_str(), (dir / "link").c_str()) == 0);
  auto bytes = fs.ReadFileFollowingLink(dir / "link", kAnySize);
  REQUIRE(bytes.ok());
  CHECK(*bytes == "user's own");
  // Through the link to a FIFO: refused at once, as ReadFile refuses one.
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  REQUIRE(::symlink((dir / "fifo").c_str(), (dir / "fifo-link").c_str()) == 0);
  auto fifo = fs.ReadFileFollowingLink(dir / "fifo-link", kAnySize);
  REQUIRE_FALSE(fifo.ok());
  CHECK(fifo.status().code() == pi_fusion::kFsNotRegular);
  CHECK_THAT(fifo.status().message(), Catch::Contains("fifo-link: not a regular file (a FIFO)"));
  auto over = fs.ReadFileFollowingLink(dir / "link", 9);
  REQUIRE_FALSE(over.ok());
  CHECK(over.status().code() == pi_fusion::kFsTooLarge);
  auto dangling = fs.ReadFileFollowingLink(dir / "missing", kAnySize);
  REQUIRE_FALSE(dangling.ok());
  CHECK(dangling.status().code() == pi_fusion::kFsNotFound);
}

TEST_CASE("FileSystem: ReadFile refuses a FIFO at once instead of waiting for a writer",
          "[core][fs]") {
  TempDir dir;
  REQUIRE(::mkfifo((dir / "manifest.json").c_str(), 0600) == 0);
  // Without O_NONBLOCK the open would block this test forever (ctest's timeout fails it).
  auto bytes = PosixFileSystem().ReadFile(dir / "manifest.json", kAnySize);
  REQUIRE_FALSE(bytes.ok());
  CHECK(bytes.status().code() == pi_fusion::kFsNotRegular);
  CHECK_THAT(bytes.status().message(),
             Catch::Contains("manifest.json: not a regular file (a FIFO)"));
  CHECK(OpenDescriptorsFor(dir / "manifest.json").empty());
}

TEST_CASE("FileSystem: the lock refuses a FIFO planted under its name and closes it",
          "[core][fs]") {
  TempDir dir;
  const std::string path = dir / "owner.lock";
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  FileSystem& fs = PosixFileSystem();
  auto lock = fs.LockExclusive(path, 0600);
  REQUIRE_FALSE(lock.ok());
  CHECK(lock.status().code() == pi_fusion::kFsIoError);
  CHECK(lock.status().message() == "lock " + path + ": not a regular file");
  auto locked = fs.IsLocked(path);
  REQUIRE_FALSE(locked.ok());
  CHECK(locked.status().code() == pi_fusion::kFsIoError);
  CHECK(locked.status().message() == "lock " + path + ": not a regular file");
  CHECK(OpenDescriptorsFor(path).empty());
}

TEST_CASE("FileSystem: ReadFile refuses a directory and a device", "[core][fs]") {
  TempDir dir;
  REQUIRE(::mkdir((dir / "sub").c_str(), 0700) == 0);
  auto sub = PosixFileSystem().ReadFile(dir / "sub", kAnySize);
  REQUIRE_FALSE(sub.ok());
  CHECK(sub.status().code() == pi_fusion::kFsNotRegular);
  auto zero = PosixFileSystem().ReadFile("/dev/zero", kAnySize);  // would never end
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.status().code() == pi_fusion::kFsNotRegular);
  CHECK_THAT(zero.status().message(), Catch::Contains("(a device)"));
}

TEST_CASE("FileSystem: ReadFile refuses a file over its cap before reading, and takes one at it",
          "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir / "f", std::string(100, 'x')).ok());
  auto at = fs.ReadFile(dir / "f", 100);
  REQUIRE(at.ok());
  CHECK(at->size() == 100);
  auto over = fs.ReadFile(dir / "f", 99);
  REQUIRE_FALSE(over.ok());
  CHECK(over.status().code() == pi_fusion::kFsTooLarge);
  CHECK_THAT(over.status().message(), Catch::Contains("f: 100 bytes, over the 99-byte limit"));
  // A sparse file of 1 TiB is refused from its size alone, without reading (or allocating) it.
  const int fd = ::open((dir / "sparse").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, off_t{1} << 40) == 0);
  ::close(fd);
  auto sparse = fs.ReadFile(dir / "sparse", kAnySize);
  REQUIRE_FALSE(sparse.ok());
  CHECK(sparse.status().code() == pi_fusion::kFsTooLarge);
}

TEST_CASE("FileSystem: descriptors are close-on-exec", "[core][fs]") {
  TempDir dir;
  auto file = PosixFileSystem().CreateExclusive(dir / "open", 0600);
  REQUIRE(file.ok());
  const auto fds = OpenDescriptorsFor(dir / "open");
  REQUIRE(fds.size() == 1);
  CHECK((::fcntl(fds[0], F_GETFD) & FD_CLOEXEC) != 0);
  REQUIRE(file.value()->Close().ok());
  CHECK(OpenDescriptorsFor(dir / "open").empty());
}

TEST_CASE("FileSystem: an abandoned WritableFile closes its descriptor", "[core][fs]") {
  TempDir dir;
  {
    auto file = PosixFileSystem().CreateExclusive(dir / "abandoned", 0600);
    REQUIRE(file.ok());
    REQUIRE(OpenDescriptorsFor(dir / "abandoned").size() == 1);
  }
  CHECK(OpenDescriptorsFor(dir / "abandoned").empty());
}

TEST_CASE("WriteFileDurably: replaces content atomically and leaves no temp file", "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir / "m.json", "one").ok());
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir / "m.json", "two!").ok());
  CHECK(fs.ReadFile(dir / "m.json", kAnySize).value() == "two!");
  CHECK(ModeOf(dir / "m.json") == 0600);
  CHECK(fs.ListDir(dir.path()).value() == std::vector<std::string>{"m.json"});
}

TEST_CASE("WriteFileDurably: skips a temp name left behind by a crash", "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir / ".x.tmp-0", "stale").ok());
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir / "x", "fresh").ok());
  CHECK(fs.ReadFile(dir / "x", kAnySize).value() == "fresh");
  CHECK(fs.ReadFile(dir / ".x.tmp-0", kAnySize).value() == "stale");
  CHECK(pi_fusion::IsDurableTempName(".x.tmp-0"));
  CHECK_FALSE(pi_fusion::IsDurableTempName("x.tmp-0"));
}

TEST_CASE("WriteFileDurably: a missing directory is an artifact_error with the errno text",
          "[core][fs]") {
  TempDir dir;
  pi_fusion::Status s = pi_fusion::WriteFileDurably(PosixFileSystem(), dir / "no/such/file", "x");
  CHECK(s.code() == pi_fusion::kArtifactError);
  CHECK(s.message().find("errno 2") != std::string::npos);
}

TEST_CASE("CreateDirectories: new directories get 0700, existing ones keep their mode",
          "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(fs.CreateDir(dir / "user", 0755).ok());
  REQUIRE(pi_fusion::CreateDirectories(fs, dir / "user/a/b/c").ok());
  CHECK(ModeOf(dir / "user") == 0755);
  for (const char* sub : {"user/a", "user/a/b", "user/a/b/c"}) {
    INFO(sub);
    CHECK(ModeOf(dir / sub) == 0700);
  }
  REQUIRE(pi_fusion::CreateDirectories(fs, dir / "user/a/b/c").ok());
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir / "file", "x").ok());
  CHECK(pi_fusion::CreateDirectories(fs, dir / "file/sub").code() == pi_fusion::kArtifactError);
  CHECK(pi_fusion::CreateDirectories(fs, "relative/path").code() == pi_fusion::kArtifactError);
}

TEST_CASE("RandomHex: lowercase hex of the requested size from the kernel", "[core][random]") {
  auto hex = pi_fusion::RandomHex(pi_fusion::SystemRandom(), 16);
  REQUIRE(hex.ok());
  CHECK(hex->size() == 32);
  CHECK(std::all_of(hex->begin(), hex->end(),
                    [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }));
  CHECK(pi_fusion::RandomHex(pi_fusion::SystemRandom(), 16).value() != hex.value());
  // Larger than one getrandom(2) chunk guarantee.
  CHECK(pi_fusion::RandomHex(pi_fusion::SystemRandom(), 1000).value().size() == 2000);
}

namespace {

bool IsEmptyDir(const std::string& path) {
  return std::filesystem::is_empty(std::filesystem::path(path));
}

TEST_CASE("CreateDirsBeneath: makes each step with the exact mode, keeps existing ones",
          "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(fs.CreateDir(dir / "a", 0755).ok());
  const mode_t old_mask = ::umask(077);
  REQUIRE(fs.CreateDirsBeneath(dir.path(), {"a", "b", "c"}, 0700).ok());
  ::umask(old_mask);
  CHECK(ModeOf(dir / "a") == 0755);
  CHECK(ModeOf(dir / "a/b") == 0700);
  CHECK(ModeOf(dir / "a/b/c") == 0700);
  CHECK(fs.CreateDirsBeneath(dir.path(), {"a", "b", "c"}, 0700).ok());  // all there: fine
}

TEST_CASE("CreateDirsBeneath: a symlinked step is refused before anything exists at its target",
          "[core][fs]") {
  TempDir dir;
  TempDir target;
  FileSystem& fs = PosixFileSystem();
  // The first step, a middle step, and a dangling link (mkdir would create its target).
  REQUIRE(::symlink(target.path().c_str(), (dir / "first").c_str()) == 0);
  REQUIRE(fs.CreateDir(dir / "mid", 0700).ok());
  REQUIRE(::symlink(target.path().c_str(), (dir / "mid/link").c_str()) == 0);
  REQUIRE(::symlink((target / "made").c_str(), (dir / "dangling").c_str()) == 0);
  const struct {
    std::vector<std::string> names;
    std::string refused;
  } cases[] = {{{"first", "fusion", "s"}, dir / "first"},
               {{"mid", "link", "s"}, dir / "mid/link"},
               {{"dangling", "s"}, dir / "dangling"}};
  for (const auto& c : cases) {
    INFO(c.refused);
    const pi_fusion::Status s = fs.CreateDirsBeneath(dir.path(), c.names, 0700);
    CHECK(s.code() == pi_fusion::kFsNotDirectory);
    CHECK(s.message() == c.refused + " is a symbolic link");
    CHECK(IsEmptyDir(target.path()));
  }
}

TEST_CASE("CreateDirsBeneath: a file in the way is refused", "[core][fs]") {
  TempDir dir;
  FileSystem& fs = PosixFileSystem();
  REQUIRE(pi_fusion::WriteFileDurably(fs, dir / "file", "x").ok());
  const pi_fusion::Status s = fs.CreateDirsBeneath(dir.path(), {"file", "sub"}, 0700);
  CHECK(s.code() == pi_fusion::kFsNotDirectory);
  CHECK(s.message() == dir / "file" + " is not a directory");
  CHECK(fs.CreateDirsBeneath(dir / "missing", {"a"}, 0700).code() == pi_fusion::kFsNotFound);
}

}  // namespace
