// What bg_result returns for one Fusion run, built from the run directory on disk (so a
// completed run stays retrievable after Pi restarts). Completed runs are re-verified byte for
// byte before any answer is returned; running runs answer at once; failed and cancelled runs
// return their bounded failure view. Thread-safe; reads files only (plus the once-only usage
// claim, which writes one file the first time).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "tasks/task_registry.h"

namespace pi_fusion::tasks {

// bg_result's inline delivery limit (CONTRACTS.md, bg_result): a merged answer longer than this is
// refused inline, never truncated. A limit of its own, not the candidate output cap it equals in
// value (core/limits.h kCandidateOutputMaxBytes): it counts raw bytes of the merged answer, which
// may be up to kMergerOutputMaxBytes JSON-rendered bytes. The failure view's cap is
// store::kFailureViewMaxBytes.
inline constexpr size_t kInlineAnswerLimit = 49152;
inline constexpr char kResultViewSchema[] = "pi-background-tasks.fusion-result-view.v1";

struct ResultView {
  std::string text;
  // fusion-result-view.v1. A completed run's `answer` is {present, path, byte_length, sha256}
  // and, delivered inline, `text_offset`: the byte in `text` where the answer starts.
  nlohmann::json details;
  // Pi Usage to attach to the tool result: set only on the first successful retrieval.
  std::optional<nlohmann::json> attach_usage;
};

enum class Delivery { kInline, kArtifact };

// `task` is the live task when this session knows it. Errors carry `artifact_error` (the run
// failed verification), `invalid_arguments` (inline answer over the limit; nothing truncated).
// `clock` stamps the usage claim (`claimed_at`) the first retrieval writes.
Result<ResultView> BuildResultView(FileSystem& fs, const Clock& clock, const TaskInfo& task,
                                   Delivery delivery);

// What bg_result says of a running run that another live Pi owns (task.owner_pid set): that Pi
// alone is notified when it ends; how to read the answer once it has.
std::string OwnedElsewhereText(const TaskInfo& task);

// Looks for `<cwd>/.pi/fusion/*/<run-id>/` written by an earlier (or another) host process, named
// by `query`: the run id, a prefix of it, or the short id the views show (store::RunIdMatches);
// a query that names several runs is the registry's ambiguous-prefix error. A
// non-terminal run whose owner is gone is first finalized as host_ended (store/abandoned_run.h);
// one whose owner is alive is reported running, with that owner's pid and session; a cancelled
// one says who cancelled it when it recorded that. Empty when there is no such directory; an
// error (artifact_error, naming manifest.json) when there is one but its manifest is unreadable.
// `clock` stamps that finalization.
Result<std::optional<TaskInfo>> FindRunOnDisk(FileSystem& fs, const Clock& clock,
                                              const std::string& cwd, const std::string& query);

// The run a tool names by id or prefix, in the one lookup order: this process's task, else this
// session's runs from earlier Pi processes (`earlier`, ResolveLiveOrEarlier), else any run in the
// project's run store at `cwd` (FindRunOnDisk: another session's, or one whose session Pi never
// saved; skipped when `cwd` is empty). The first lookup's miss when none knows it.
Result<TaskInfo> ResolveTask(const TaskRegistry& live, const std::vector<TaskInfo>& earlier,
                             FileSystem& fs, const Clock& clock, const std::string& cwd,
                             const std::string& id);

}  // namespace pi_fusion::tasks
