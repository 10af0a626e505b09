#include "run/warm_stages.h"

#include <utility>

#include "core/env_vars.h"
#include "store/attempt_files.h"
#include "store/wall_clock.h"

namespace pi_fusion::run {
namespace {

using WarmChildPtr = std::unique_ptr<process::WarmChild>;
using WarmResult = Result<WarmChildPtr>;

bool SameCommand(const process::ChildSpec& a, const process::ChildSpec& b) {
  return a.argv == b.argv && a.env == b.env && a.cwd == b.cwd && a.search_path == b.search_path &&
         a.die_with_parent == b.die_with_parent && a.inherit_fds == b.inherit_fds;
}

}  // namespace

bool WarmingEnabled(const std::vector<std::string>& environment) {
  for (const std::string& entry : environment) {
    if (entry == std::string(env_vars::kWarm) + "=0") return false;
  }
  return true;
}

WarmStages::WarmStages(PreparedRun& run) : run_(run) {
  if (!WarmingEnabled(run.request.host.environment)) return;
  // A capped run's evaluator and merger get their allowance when their stage starts (cost_cap.h).
  if (run.policy.max_cost_usd) return;
  Result<std::unique_ptr<FirstRequestSignal>> signal = FirstRequestSignal::Create();
  if (signal.ok()) signal_ = std::move(signal).value();  // otherwise every stage starts cold
}

WarmStages::~WarmStages() { StopWatching(); }

int WarmStages::signal_fd() const { return signal_ ? signal_->write_fd() : -1; }

void WarmStages::Arm(const StageChild& evaluator, const StageChild& merger,
                     const process::CancelToken& run_cancel, int candidates) {
  if (candidates <= 0) signal_.reset();
  if (!signal_) return;
  candidates_ = candidates;
  Result<process::CancelToken> stop = run_cancel.NewChild();
  if (!stop.ok()) {
    signal_.reset();
    return;
  }
  stop_ = std::move(stop).value();
  watcher_ = std::thread(&WarmStages::Watch, this, evaluator, merger);
}

void WarmStages::Watch(StageChild evaluator, StageChild merger) {
  try {
    if (!signal_->WaitFor(candidates_, stop_)) return;
    // The evaluator first: its stage comes first.
    for (StageChild* child : {&evaluator, &merger}) {
      if (stop_.IsCancelled()) return;
      child->stdin_text.clear();
      // An evaluator with tools (policy.evaluator_tools) keeps its audit log where its attempt 1
      // will (AttemptRecorder::Path), so its command is the stage's own.
      ChildFiles files;
      if (!child->tools.empty()) {
        const std::string prefix = run_.store->run_dir() + "/";
        files.journal = prefix + store::AttemptFileName(child->key, store::AttemptFile::kToolCalls);
        files.seal = prefix + store::AttemptFileName(child->key, store::AttemptFile::kSeal);
      }
      Result<process::ChildSpec> spec = BuildChildSpec(run_, *child, files);
      if (!spec.ok()) continue;
      Result<std::unique_ptr<process::WarmChild>> started = run_.seams.children->Prestart(*spec);
      if (!started.ok() || !*started) continue;  // that stage starts cold
      std::lock_guard lock(mu_);
      Slot* slot = SlotFor(child->key.stage);
      slot->child = std::move(started).value();
      slot->spec = std::move(spec).value();
    }
  } catch (...) {
    // The watcher thread's one catch (thread_entry.h). Warming is an optimization: a failure here
    // leaves the stages to start cold.
  }
}

void WarmStages::StopWatching() {
  if (watcher_.joinable()) {
    stop_.Cancel();
    watcher_.join();
  }
  signal_.reset();  // closes the pipe
}

void WarmStages::CandidatesEnded() { StopWatching(); }

WarmStages::Slot* WarmStages::SlotFor(pi_fusion::Stage stage) {
  for (Slot& slot : slots_) {
    if (slot.stage == stage) return &slot;
  }
  return nullptr;
}

Result<std::unique_ptr<process::WarmChild>> WarmStages::Take(const store::AttemptKey& key,
                                                             const process::ChildSpec& spec) {
  StopWatching();
  std::unique_ptr<process::WarmChild> child;
  {
    std::lock_guard lock(mu_);
    Slot* slot = key.attempt == 1 ? SlotFor(key.stage) : nullptr;  // the repair starts cold
    if (slot == nullptr || !slot->child) return WarmChildPtr();
    const bool same = SameCommand(slot->spec, spec);
    child = std::move(slot->child);
    if (same && !child->EndedBeforeInput()) return WarmResult(std::move(child));
  }
  const bool died = child->EndedBeforeInput().has_value();
  const std::string started = store::FormatTimestamp(child->started_at());
  std::string note = child->End();
  note += died ? " before its input; a cold child replaced it"
               : "; its command no longer matched the stage's, so a cold child replaced it";
  Status recorded =
      run_.store->RecordWarmChild(key.stage, store::WarmChildOutcome::kReplaced, started, note);
  if (!recorded.ok()) return recorded;
  return WarmChildPtr();
}

void WarmStages::EndUnused() {
  StopWatching();
  for (Slot& slot : slots_) {
    std::unique_ptr<process::WarmChild> child;
    {
      std::lock_guard lock(mu_);
      child = std::move(slot.child);
    }
    if (!child) continue;
    const std::string started = store::FormatTimestamp(child->started_at());
    const std::string how = child->End();
    // Best effort: the run is about to become terminal, and the child is gone either way.
    (void)run_.store->RecordWarmChild(slot.stage, store::WarmChildOutcome::kUnused, started,
                                      how + " (the run ended before its stage began)");
  }
}

}  // namespace pi_fusion::run
