// The bounds of one walled `read` call (docs/tools/fusion_investigate.md, "Reads end"): what
// Pi's own read refuses is refused (more than 2 GiB), a file is read only up to the size it had
// when it was opened (a file that keeps growing still ends), and one call gets a fixed reading
// time, so a file that keeps producing bytes cannot hold a candidate. Pure code; a ReadBudget
// belongs to one call (JS thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"

namespace pi_fusion::child {

// The audit journal's error_code of a read refused by these bounds (docs/protocol.md).
inline constexpr char kFileTooLarge[] = "file_too_large";
inline constexpr char kReadTimedOut[] = "read_timed_out";

// Node's kIoMaxLength: Pi's read (fs.readFile) refuses a larger file with ERR_FS_FILE_TOO_LARGE.
inline constexpr uint64_t kMaxReadBytes = 2147483647;
// One read call's reading time; reading 2 GiB from a local disk takes a few seconds.
inline constexpr std::chrono::milliseconds kReadCallTime{20 * 1000};

// kFileTooLarge when a file of `size` bytes (seen at open) is more than a read may return.
// `shown` is the path as the model named it.
Status CheckSizeAtOpen(uint64_t size, std::string_view shown);

// What is left of one call's bytes and reading time. The time counted is the time spent inside
// this call's reads, not since the call began: Pi runs a batch's calls together on one thread,
// and a slow file must not use up its neighbours' time.
class ReadBudget {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ReadBudget(std::chrono::milliseconds time = kReadCallTime) : time_(time) {}

  // Before reading more of `shown`: kReadTimedOut once the call's reading time is spent.
  Status BeforeRead(std::string_view shown) const;
  // After a read that took `took`.
  void AddReadTime(Clock::duration took) { spent_ += took; }
  // After `bytes` more were read: kFileTooLarge once the call has read more than kMaxReadBytes
  // (a file whose size at open said nothing, as /proc-like files report 0).
  Status Charge(uint64_t bytes, std::string_view shown);

 private:
  const std::chrono::milliseconds time_;
  Clock::duration spent_{};
  uint64_t read_ = 0;
};

}  // namespace pi_fusion::child
