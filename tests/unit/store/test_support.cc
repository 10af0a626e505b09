#include "test_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

namespace pi_fusion::store::testing {

// In memory (/dev/shm) when the machine has it. The fault-injection tests run a whole launch once
// per write (dozens of launches, hundreds of fsyncs each); on a busy disk an fsync can take tens
// of milliseconds, which made them take minutes. They check what the code does at each write, not
// the medium; the e2e tests write real run directories on disk.
TempDir::TempDir() {
  const bool shm = ::access("/dev/shm", W_OK | X_OK) == 0;
  std::string tmpl = std::string(shm ? "/dev/shm" : "/tmp") + "/pi-fusion-store-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

Clock::TimePoint FixedClock::Now() const {
  return TimePoint(std::chrono::milliseconds(offset_ms_.load()));
}

Clock::WallTimePoint FixedClock::WallNow() const {
  // 2025-01-02T03:04:05.006Z
  return WallTimePoint(std::chrono::milliseconds(1735787045006LL + offset_ms_.load()));
}

RunSpec SampleSpec(const std::string& cwd) {
  RunSpec spec;
  spec.run_id = kRunId;
  spec.source = RunSource::kTool;
  spec.cwd = cwd;
  spec.session_id = "session/ünïcode id";
  spec.pid = 4242;
  spec.config = {{"schema_version", "pi-background-tasks.fusion-models.v1"}};
  ModelSelection local{"local", "scripted"};
  spec.models = RunModels{{local, local, local}, local, local, "medium"};
  spec.capabilities = {{"candidate", "reason"}};
  spec.context = {{"kind", "session_projection"}};
  spec.tool_policy = {{"candidate_tools", nlohmann::json::array()}};
  return spec;
}

Usage SampleUsage(uint64_t base) {
  Usage u;
  u.input = base;
  u.output = base + 1;
  u.cache_read = base + 2;
  u.cache_write = base + 3;
  u.total_tokens = 4 * base + 6;
  u.cost = UsageCost{0.25, 0.5, 0.125, 0.0625, 0.9375, std::nullopt};
  return u;
}

nlohmann::json RoleRow(const char* role, std::optional<int> slot, uint64_t requests,
                       uint64_t base) {
  nlohmann::json r = {{"role", role}};
  if (slot) r["slot"] = *slot;
  r["model"] = "local/scripted";
  r["attempts"] = 1;
  r["requests"] = requests;
  r["usage"] = UsageToJson(SampleUsage(base));
  return r;
}

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

StoreFixture::StoreFixture() {
  auto created = RunStore::Create(fs, clock, SampleSpec(dir.path()));
  if (!created.ok()) FAIL(created.status().ToString());
  store = std::move(created).value();
}

void StoreFixture::WalkTo(RunState state) {
  static constexpr RunState kPath[] = {RunState::kCandidatesRunning, RunState::kCandidatesComplete,
                                       RunState::kEvaluating, RunState::kEvaluationComplete,
                                       RunState::kMerging};
  for (RunState next : kPath) {
    const RunState now = store->Snapshot().state;
    if (now == state) return;
    if (!CheckTransition(now, next).ok()) continue;  // already past `next`
    Status s = store->Transition(next);
    if (!s.ok()) FAIL(s.ToString());
  }
}

void StoreFixture::RecordCandidates() {
  for (int slot = 1; slot <= 3; ++slot) {
    const AttemptKey key{Stage::kCandidate, slot, 1};
    REQUIRE(store->RecordAttempt({key, AttemptState::kRunning}).ok());
    const std::string name = AttemptPrefix(key) + ".response.md";
    REQUIRE(store->WriteArtifact(name, "candidate answer " + std::to_string(slot)).ok());
    REQUIRE(store
                ->RecordAttempt({key,
                                 AttemptState::kCompleted,
                                 SampleUsage(static_cast<uint64_t>(slot) * 10),
                                 std::nullopt,
                                 {name}})
                .ok());
  }
}

CompletedRunFixture::CompletedRunFixture(const std::string& answer) {
  WalkTo(RunState::kCandidatesRunning);
  RecordCandidates();
  WalkTo(RunState::kMerging);
  REQUIRE(
      store->CommitResult(answer, nlohmann::json{{"run_id", kRunId}, {"workflow", "reason"}}).ok());
  run_dir = store->run_dir();
  store.reset();
}

}  // namespace pi_fusion::store::testing
