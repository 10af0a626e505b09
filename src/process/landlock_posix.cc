// The Landlock half of the walkers' jail (walk_jail.h). The ABI's constants are spelled out here
// because the build machine's kernel headers may predate the kernel the walker runs on.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include "process/walk_jail.h"

namespace pi_fusion::process {
namespace {

#ifndef SYS_landlock_create_ruleset
constexpr long kCreateRuleset = 444;  // the same number on every architecture (Linux 5.13)
constexpr long kAddRule = 445;
constexpr long kRestrictSelf = 446;
#else
constexpr long kCreateRuleset = SYS_landlock_create_ruleset;
constexpr long kAddRule = SYS_landlock_add_rule;
constexpr long kRestrictSelf = SYS_landlock_restrict_self;
#endif
constexpr uint32_t kRulesetVersion = 1u << 0;  // LANDLOCK_CREATE_RULESET_VERSION
constexpr int kRulePathBeneath = 1;

constexpr uint64_t kExecute = 1u << 0;
constexpr uint64_t kReadFile = 1u << 2;
constexpr uint64_t kReadDir = 1u << 3;
// ABI 1: execute, write, read, read_dir, remove_dir/file, make_char/dir/reg/sock/fifo/block/sym.
constexpr uint64_t kAbi1Rights = (1u << 13) - 1;
constexpr uint64_t kRefer = 1u << 13;     // ABI 2
constexpr uint64_t kTruncate = 1u << 14;  // ABI 3
constexpr uint64_t kIoctlDev = 1u << 15;  // ABI 5

struct RulesetAttr {
  uint64_t handled_access_fs;
};
struct __attribute__((packed)) PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
};

// Every file-system right this kernel's Landlock knows: what is not granted below is denied.
uint64_t HandledRights(long abi) {
  uint64_t rights = kAbi1Rights;
  if (abi >= 2) rights |= kRefer;
  if (abi >= 3) rights |= kTruncate;
  if (abi >= 5) rights |= kIoctlDev;
  return rights;
}

// Grants `rights` beneath `fd` (a file gets only the rights a file can have).
bool Allow(int ruleset, int fd, uint64_t rights) {
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) rights &= kExecute | kReadFile;
  PathBeneathAttr rule{rights, fd};
  return ::syscall(kAddRule, ruleset, kRulePathBeneath, &rule, 0) == 0;
}

bool AllowPath(int ruleset, const std::string& path, uint64_t rights) {
  const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return true;  // not on this system: nothing to grant
  const bool ok = Allow(ruleset, fd, rights);
  ::close(fd);
  return ok;
}

}  // namespace

bool RestrictWithLandlock(const std::string& project, const std::vector<std::string>& code_paths,
                          int executable_fd) {
  const long abi = ::syscall(kCreateRuleset, nullptr, 0, kRulesetVersion);
  if (abi < 1) return false;
  RulesetAttr attr{HandledRights(abi)};
  const int ruleset = static_cast<int>(::syscall(kCreateRuleset, &attr, sizeof(attr), 0));
  if (ruleset < 0) return false;
  bool ok = AllowPath(ruleset, project, kReadFile | kReadDir);
  for (const std::string& path : code_paths) {
    ok = ok && AllowPath(ruleset, path, kReadFile | kReadDir | kExecute);
  }
  ok = ok && Allow(ruleset, executable_fd, kReadFile | kExecute);
  ok = ok && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
       ::syscall(kRestrictSelf, ruleset, 0) == 0;
  ::close(ruleset);
  return ok;
}

}  // namespace pi_fusion::process
