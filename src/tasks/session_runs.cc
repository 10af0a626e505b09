#include "tasks/session_runs.h"

#include <algorithm>

#include "core/clock.h"
#include "core/error_codes.h"
#include "run/adaptive_text.h"
#include "run/degraded_text.h"
#include "store/abandoned_run.h"
#include "store/run_id.h"
#include "store/run_paths.h"
#include "store/verify.h"
#include "tasks/run_catalog.h"

namespace pi_fusion::tasks {
namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// What a run directory says of how the run stands or ended, on `task`: its state, who cancelled
// it, its failure, and for a run another live Pi owns, that Pi and the run's stage.
void SetStateOf(const RunListing& run, TaskInfo& task) {
  const std::string state = run.State();
  if (state == "completed") {
    task.state = TaskState::kCompleted;
    // The manifest records a degraded answer; the declared sources' failures are in its verified
    // result, which bg_status does not read for every listed run.
    if (run.manifest->degraded) {
      task.answer_note = run::DegradedStatus(store::DegradedToJson(*run.manifest->degraded));
    }
    // An adaptive run says how many candidates it asked (run/adaptive_text.h).
    if (run.manifest->adaptive) {
      const std::string adaptive =
          run::AdaptiveStatus(store::AdaptiveToJson(*run.manifest->adaptive));
      task.answer_note += (task.answer_note.empty() ? "" : "; ") + adaptive;
    }
  } else if (state == "cancelled") {
    task.state = TaskState::kKilled;
    task.cancelled_by = CancelledByOnDisk(*run.manifest);
    if (task.cancelled_by != CancelSource::kUnknown)
      task.terminal_text = CancelledText(task.cancelled_by);
  } else if (state == "failed") {
    task.state = TaskState::kFailed;
    if (run.manifest->error) {
      task.failure = run.manifest->error->code + ": " + run.manifest->error->message;
      task.terminal_text = task.failure;
    }
  } else if (state == kInterruptedState) {
    task.state = TaskState::kFailed;
    task.failure = "interrupted: its Pi process ended before the run did (state " +
                   std::string(store::RunStateName(run.manifest->state)) + ")";
    task.terminal_text = task.failure;
  } else {
    // Another live Pi process owns it (or liveness cannot be known): never call it abandoned.
    task.state = TaskState::kRunning;
    RunDirOwner(run.run_dir, &task.owner_pid, &task.owner_session);
    task.terminal_text = "running in " + OwnerText(task);
    task.last_progress = task.terminal_text + ", at " + std::string(state);
  }
}

// A run whose host died is finalized durably (failed, host_ended) before it is reported, as
// bg_result does for runs of other sessions; if that cannot be done it stays "interrupted".
void FinalizeIfInterrupted(FileSystem& fs, const Clock& clock, RunListing& run) {
  if (run.State() != kInterruptedState) return;
  Result<bool> finalized = store::FinalizeIfAbandoned(fs, clock, run.run_dir);
  if (finalized.ok() && *finalized) {
    if (Result<store::Manifest> now = store::ReadManifest(fs, run.run_dir); now.ok()) {
      run.manifest = std::move(now).value();
    }
  }
}

}  // namespace

bool RunDirOwner(std::string_view run_dir, long* pid, std::string* session) {
  const size_t run_slash = run_dir.rfind('/');
  if (run_slash == std::string_view::npos) return false;
  const std::string_view parent = run_dir.substr(0, run_slash);
  const std::string_view name = parent.substr(parent.rfind('/') + 1);
  const size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || !AllDigits(name.substr(dash + 1)) ||
      name.size() - dash > 12) {
    return false;
  }
  *pid = std::stol(std::string(name.substr(dash + 1)));
  *session = std::string(name.substr(0, dash));
  return true;
}

std::string OwnerText(const TaskInfo& task) {
  if (task.owner_pid == 0) return "another Pi process";
  return "another Pi process (pid " + std::to_string(task.owner_pid) + ", session " +
         task.owner_session + ")";
}

std::optional<TaskInfo> TaskOfRun(const RunListing& run) {
  if (!run.manifest) return std::nullopt;
  TaskInfo task;
  task.id = run.run_id;
  task.workflow = run.manifest->workflow;
  task.label = TaskLabel(run.manifest->workflow);
  task.artifact_dir = run.run_dir;
  task.source = std::string(store::RunSourceName(run.manifest->source));
  task.description = run.question;
  task.question = run.question;
  task.resume = run.Resume();
  task.resumed_from = run.manifest->resumed_from.value_or("");
  task.panel = run.manifest->panel.value_or("");
  task.resumed_as = run.resumed_as;
  SetStateOf(run, task);
  return task;
}

CancelSource CancelledByOnDisk(const store::Manifest& manifest) {
  if (manifest.state != store::RunState::kCancelled || !manifest.error)
    return CancelSource::kUnknown;
  // fusion-manifest.v5 names the cause; a v4 manifest said it only in its message.
  if (manifest.error->cancelled_by) return CancelSourceOfCause(*manifest.error->cancelled_by);
  return CancelSourceOfMessage(manifest.error->message);
}

std::vector<TaskInfo> SessionRunsOnDisk(FileSystem& fs, const Clock& clock, const std::string& cwd,
                                        std::string_view session_id, long own_pid) {
  const std::string own_session = store::SanitizeSessionId(session_id);
  std::vector<TaskInfo> out;
  for (RunListing& run : ListRuns(fs, cwd)) {
    long pid = 0;
    std::string session;
    if (!RunDirOwner(run.run_dir, &pid, &session)) continue;
    if (session != own_session || pid == own_pid) continue;
    FinalizeIfInterrupted(fs, clock, run);
    if (std::optional<TaskInfo> task = TaskOfRun(run)) out.push_back(std::move(*task));
  }
  std::reverse(out.begin(), out.end());  // oldest first, like the registry
  return out;
}

std::set<std::string> SavedSessionIds(FileSystem& fs, const std::string& session_dir) {
  std::set<std::string> ids;
  Result<std::vector<std::string>> names = fs.ListDir(session_dir);
  if (!names.ok()) return ids;
  constexpr std::string_view kSuffix = ".jsonl";
  for (const std::string& name : *names) {
    const size_t cut = name.rfind('_');
    if (cut == std::string::npos || !name.ends_with(kSuffix)) continue;
    const std::string id = name.substr(cut + 1, name.size() - cut - 1 - kSuffix.size());
    if (!id.empty()) ids.insert(store::SanitizeSessionId(id));
  }
  return ids;
}

std::vector<TaskInfo> UnsavedSessionRuns(FileSystem& fs, const Clock& clock, const std::string& cwd,
                                         const std::set<std::string>& saved,
                                         std::string_view own_session_id, size_t limit) {
  const std::string own = store::SanitizeSessionId(own_session_id);
  std::vector<TaskInfo> out;
  for (RunListing& run : ListRuns(fs, cwd)) {  // newest first
    if (out.size() == limit) break;
    long pid = 0;
    std::string session;
    if (!RunDirOwner(run.run_dir, &pid, &session)) continue;
    if (session == own || saved.contains(session)) continue;
    FinalizeIfInterrupted(fs, clock, run);
    if (std::optional<TaskInfo> task = TaskOfRun(run)) {
      task->unsaved_session = true;
      out.push_back(std::move(*task));
    }
  }
  return out;
}

std::optional<TaskInfo> RunOnDisk(FileSystem& fs, const std::string& run_dir,
                                  const std::string& run_id) {
  const RunListing run = ReadRunState(fs, run_dir, run_id);
  if (!run.manifest || run.manifest->run_id != run_id) return std::nullopt;
  return TaskOfRun(run);
}

TaskLookup ResolveAmong(const std::vector<TaskInfo>& runs, std::string_view id_or_prefix) {
  if (id_or_prefix.empty()) return TaskLookup::Missed(LookupMiss::kIdRequired, id_or_prefix);
  std::vector<const TaskInfo*> matches;
  for (const TaskInfo& run : runs) {
    if (run.id == id_or_prefix) return run;
    if (store::RunIdMatches(run.id, id_or_prefix)) matches.push_back(&run);
  }
  if (matches.empty()) return TaskLookup::Missed(LookupMiss::kUnknownId, id_or_prefix);
  if (matches.size() > 1) {
    std::vector<std::string> ids;
    for (const TaskInfo* t : matches) ids.push_back(t->id);
    return TaskLookup::Missed(LookupMiss::kAmbiguousPrefix, id_or_prefix, ids);
  }
  return *matches.front();
}

}  // namespace pi_fusion::tasks
