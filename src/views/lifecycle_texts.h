// The texts and details a Fusion launch shows the person and the agent: the launch receipt, the
// preflight failure, the terminal notification, the bg_kill answer and the task description.
// Built here, from plain values, so the binding only converts them (and tests can pin them).
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "run/preflight.h"
#include "run/run_request.h"
#include "schema/normalize.h"
#include "tasks/resume_hint.h"
#include "tasks/task_registry.h"

namespace pi_fusion::views {

// What the launching tool call (or /fusion) resolves with.
struct LaunchReport {
  bool ok = false;
  std::string run_id;        // empty when preflight failed before a run id existed
  std::string artifact_dir;  // empty when no run directory was created
  std::string receipt_text;  // the contract's launch receipt, or the preflight failure text
  // The cost estimate (run::CostEstimateText), in the receipt and the /fusion notice; empty
  // when preflight failed.
  std::string estimate_text;
  // A resumed run: what it reuses and what it runs (views/resume_texts.h ResumedText); empty
  // otherwise.
  std::string resumed_text;
  // What the person should know before the run spends anything, as the receipt says it: that
  // candidates share one model (config::SharedModelText); empty otherwise.
  std::string warning_text;
  // A run on a named panel, or with its own thinking levels: "Panel fast · thinking candidates
  // low, …" (views/panel_texts.h), in the receipt and the /fusion notice; empty otherwise.
  std::string panel_text;
  nlohmann::json details;  // fusion-launch.v1 details, or {error:{code,message}[,artifact_dir]}
  Status error;            // ok exactly when `ok`
};

// The end of a launched run, once its task's terminal state is recorded.
struct TerminalReport {
  run::RunOutcome outcome;
  std::string run_id;
  std::string text;      // the terminal notification (TerminalText)
  std::string notice;    // the same for a person or program watching (NoticeText)
  tasks::TaskInfo task;  // the task as it ended (source, who cancelled it, progress)
  nlohmann::json view;   // the run view for the person (views/run_view.h), answer included
  // How a failed or cancelled run can be resumed (from its terminal manifest); nullopt otherwise.
  std::optional<tasks::ResumeHint> resume;
};

// The text a request asks about: its tool's headline argument (schema/tool_catalog.h).
std::string RequestText(const schema::NormalizedRequest& request);

// The receipt of a run whose preflight is durable.
LaunchReport Receipt(const run::PreparedRun& run, const tasks::TaskInfo& task);
// "Fusion failed (stage=preflight, slot=none, attempt=none): <message>\n[Artifacts: <dir>\n]
// (error code: <code>)".
LaunchReport FailedLaunch(const run::PreflightFailure& failure);

// The tool update shown while preflight works: "fusion reason: preflight (routes, budget,
// artifacts)".
std::string PreflightUpdateText(std::string_view workflow);
// What /fusion tells the person once its run is registered: "Started fusion reason (<id>)…
// Artifacts: <dir>", then the launch's warning (one model for several candidates), then the cost
// estimate.
std::string CommandStartedText(const LaunchReport& launch);

// What the children of a failed or cancelled run did, from store::FailureProgress (the failure
// summary's `progress`): "Children: candidates 2 completed, 1 failed; evaluation not started;
// merge not started." Empty for a value of another shape.
std::string ChildrenLine(const nlohmann::json& progress);
// "Usage so far: 3 model requests · 30 input, 33 output, 36 cache read, 39 cache write tokens,
// $2.8125." from a Pi Usage object and the request count (left out when not a count); empty for
// a usage of another shape.
std::string UsageSoFarLine(const nlohmann::json& usage,
                           const nlohmann::json& model_requests = nullptr);

// What a run's children cost as Pi priced them: the `cost.total` of a Pi Usage object; 0 for a
// usage of another shape.
double UsageCostUsd(const nlohmann::json& usage);
// Pi's footer status of what this Pi process's Fusion runs cost, which Pi's own cost sum leaves
// out: "fusion: $0.0123".
std::string FooterCostText(double usd);

// The terminal notification of `outcome`. A failure or cancellation says, after its first line,
// what the children did, the usage so far, the failure summary's unavailability when it could
// not be written, and the artifact directory; then, when `resume` is set (the run's terminal
// manifest, tasks/resume_hint.h), how it can be resumed: in the agent's words for a tool's run
// (the agent reads this notice), in the person's for /fusion's (the person reads it).
std::string TerminalText(const run::RunOutcome& outcome, const tasks::TaskInfo& task,
                         const std::optional<tasks::ResumeHint>& resume);
// The same end in the words of a person or a program watching (the TUI's and RPC's
// notification, a notice carried over a /reload): a completed run points to `pi-fusion show
// <short id>` instead of bg_result, a resumable one gives the person's resume sentence.
std::string NoticeText(const run::RunOutcome& outcome, const tasks::TaskInfo& task,
                       const std::optional<tasks::ResumeHint>& resume);
tasks::TaskState TaskStateOf(run::RunEnd end);

// The answer of a bg_kill for `id` once its task `now` has stopped (or `settled` is false: the
// wait is over and it is still running; or `now` is an error: the task vanished).
struct KillAnswer {
  std::string text;
  nlohmann::json details;  // {task_id, state}
};
KillAnswer KillAnswerFor(const std::string& id, const Result<tasks::TaskInfo>& now);
// What bg_kill says of a run that had ended before it could stop it: "<id> completed before it
// could be stopped; …", or for a run of an earlier Pi process "<id> ran in an earlier Pi process
// and failed; nothing to stop." REQUIRES: `state` is completed or failed, or `earlier_process`
// and not running.
std::string NothingToStopText(const std::string& id, tasks::TaskState state, bool earlier_process);
// The answer of a bg_kill for `run`, a run of this session from an earlier Pi process (after
// `pi -c`): this process cannot stop it. One that ended says how; one whose owner still holds it
// is running in that other Pi.
KillAnswer KillAnswerForEarlier(const tasks::TaskInfo& run);
// How long bg_kill waits for the run to record its end (the contract's stopWaitMs).
inline constexpr int kKillWaitMs = 30000;

}  // namespace pi_fusion::views
