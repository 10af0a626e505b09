// Shared fixtures of the store tests: a real temp directory, a settable clock, a run spec, usage
// values. Test-only.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "fault_file_system.h"
#include "store/run_store.h"
#include "store/usage.h"
#include "store/wall_clock.h"

namespace pi_fusion::store::testing {

// A fresh directory from mkdtemp(3) under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A clock whose wall time stands still at 2025-01-02T03:04:05.006Z until advanced (its steady
// time moves with it; sleeping advances it). Thread-safe.
class FixedClock : public Clock {
 public:
  TimePoint Now() const override;
  WallTimePoint WallNow() const override;
  void SleepFor(std::chrono::milliseconds by) const override { offset_ms_ += by.count(); }
  void Advance(std::chrono::milliseconds by) { offset_ms_ += by.count(); }

 private:
  mutable std::atomic<long long> offset_ms_{0};
};

inline constexpr char kRunId[] = "reason-0123456789abcdef0123456789abcdef";

// A complete spec for kRunId under `cwd`.
RunSpec SampleSpec(const std::string& cwd);

// A usage with every required field set from `base` (input = base, output = base + 1, ...).
Usage SampleUsage(uint64_t base);

// One `usage_by_role` row of a role on local/scripted: one attempt, `requests` requests and
// SampleUsage(base); `slot` for a candidate.
nlohmann::json RoleRow(const char* role, std::optional<int> slot, uint64_t requests, uint64_t base);

// Permission bits of a path (lstat).
mode_t ModeOf(const std::string& path);
bool Exists(const std::string& path);
std::string ReadAll(const std::string& path);
void WriteAll(const std::string& path, const std::string& bytes);

// A store for kRunId in a fresh temp dir, behind a FaultFileSystem over the real disk.
struct StoreFixture {
  StoreFixture();
  // Walks the forward path from the current state to `state` (not past merging).
  void WalkTo(RunState state);
  // Three completed candidate attempts, each with a response artifact and SampleUsage(slot*10).
  void RecordCandidates();
  std::string Path(const std::string& name) const { return store->run_dir() + "/" + name; }

  TempDir dir;
  FixedClock clock;
  FaultFileSystem fs;
  std::unique_ptr<RunStore> store;
};

// A reason run whose three candidates verified, then committed `answer` as its merged answer; the
// store is closed, so readers see the run as a later process would.
struct CompletedRunFixture : StoreFixture {
  explicit CompletedRunFixture(const std::string& answer);
  std::string run_dir;
};

}  // namespace pi_fusion::store::testing
