// The inputs and collaborators of one Fusion run, as plain data the binding fills in on the JS
// thread (HostSnapshot) plus the seams the core uses. Value types; thread-compatible.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "budget/cost_forecast.h"
#include "budget/planner.h"
#include "config/config_constants.h"
#include "config/route_admission.h"
#include "core/role.h"
#include "process/supervisor.h"
#include "run/child_exits.h"
#include "run/run_seams.h"
#include "run/warm_pool.h"
#include "schema/normalize.h"
#include "store/resumability.h"
#include "store/run_store.h"
#include "workflow/canonical_document.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::run {

// What a run needs from the Pi host, copied on the JS thread (src/addon/host_snapshot.cc).
struct HostSnapshot {
  std::string cwd;  // the session's working directory
  std::string session_id;
  std::string session_dir;            // sessionManager.getSessionDir(): candidates never read it
  std::string agent_dir;              // Pi's agent directory (PI_CODING_AGENT_DIR or ~/.pi/agent)
  config::RegistrySnapshot registry;  // models, current model, parent thinking level
  nlohmann::json branch;              // sessionManager.getBranch() for reason runs; null otherwise
  std::string tool_call_id;           // the launching tool call, excluded from the projection
  // How this host was started, so children run the same Pi under the same Node.
  std::string node_path;                 // process.execPath
  std::string pi_cli_path;               // process.argv[1]
  std::vector<std::string> environment;  // "NAME=value" of the host process
  std::string package_root;              // holds extensions/fusion-child.ts
  int64_t pid = 0;
};

// /fusion-resume --slot N=provider/model: another route for a slot whose answer the resume does
// not reuse (a model that kept failing). Preflight refuses one that names a reused slot.
struct RouteSwap {
  Slot slot = Slot::kCandidate1;
  std::string route;  // "provider/model" or "$current", admitted like any configured route
};

struct RunRequest {
  HostSnapshot host;
  schema::NormalizedRequest request;
  store::RunSource source = store::RunSource::kTool;
  // Replaces {node, pi cli} at the start of every child's argv (tests only).
  std::vector<std::string> child_command_override;
  process::ChildLimits child_limits;  // defaults: the spec's caps and timers
  // /fusion-resume: the directory of the run this one resumes (resumability.h); preflight takes
  // the request, the canonical input and the routes from there, not from `request`. Empty for a
  // run started afresh.
  std::string resume_run_dir;
  // With resume_run_dir: the routes the person named instead of the old run's (at most one per
  // slot). Empty for a run started afresh.
  std::vector<RouteSwap> route_swaps;
  // /fusion @<panel>: the named panel of fusion-models.json (v3) the run uses; empty: the file's
  // default_panel, else its top-level cast. With resume_run_dir: the panel whose routes replace
  // those of every slot the resume does not reuse (empty: the old run's routes).
  std::string panel;
};

// What a progress line reports, so a per-run view can count candidates without reading prose.
enum class ProgressEvent {
  kNote,  // a warning or other line that changes no stage
  kCandidatesRunning,
  kCandidateStarted,   // slot set
  kCandidateDone,      // slot set
  kCandidateFailed,    // slot set; never counted as complete
  kCheckingAgreement,  // an adaptive run's agreement check (or its repair) is running
  kEvaluating,
  kRepairing,
  kMerging,
  kCompleted,
  kFailed,
  kCancelled,
};

struct ProgressUpdate {
  ProgressEvent event = ProgressEvent::kNote;
  int slot = 0;      // 1..3 for candidate events
  std::string line;  // the contract's progress text, e.g. "candidates 2/3 complete"
  // A note that starts quorum 2's grace window: the window's length (0 for any other update),
  // so the progress line can count it down.
  int64_t grace_ms = 0;
};

// A candidate whose answer verified and was written durably (its response artifact): the person
// may read it while the rest of the run works. Nothing of it reaches a later stage's input or the
// agent through this report.
struct LandedCandidate {
  int slot = 0;                       // 1..3
  std::string model;                  // provider/id of its route
  int64_t elapsed_ms = 0;             // from its start to its verified answer
  std::string answer;                 // the verified bytes, as in `artifact`
  std::string artifact;               // e.g. "candidate-1.attempt-1.response.md"
  std::optional<int64_t> tool_calls;  // tool-using candidates: calls it made
  // A resumed run's candidate reused from the run it resumes (its id): it landed at the start,
  // so `elapsed_ms` says nothing of its model's time.
  std::optional<std::string> reused_from;
  // It ran in a pooled process kept warm between runs (policy.keep_warm_seconds).
  bool pooled = false;
};

// A sign of life of a running stage child: when it last wrote a byte (stdout or stderr, the idle
// watchdog's measure; its start when it wrote none yet) and, for a tool-using child, how many
// tool calls it has made so far.
struct ChildActivity {
  Stage stage = Stage::kCandidate;
  std::optional<int> slot;            // candidates
  int64_t last_output_ms = 0;         // wall clock, milliseconds since the epoch
  std::optional<int64_t> tool_calls;  // finished calls (tool-using children)
  int64_t tools_running = 0;          // started and not finished (tool-using children)
  bool pooled = false;                // a pooled process runs it (policy.keep_warm_seconds)
};

// Progress for the user ("<label>: candidates running" is formed by the caller from the line).
// Called from worker threads; implementations must be thread-safe.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void Progress(const ProgressUpdate& update) = 0;
  // Each candidate whose answer verified, once, right after its kCandidateDone progress.
  virtual void CandidateLanded(const LandedCandidate&) {}
  // A running child's output or start; at most about once a second per child.
  virtual void Activity(const ChildActivity&) {}
};

// The outcome of preflight: a durable run directory with its inputs and plan, no child yet.
struct PreparedRun {
  RunRequest request;
  RunSeams seams;
  std::unique_ptr<store::RunStore> store;
  config::ResolvedModels models;
  // fusion-models.json's policy as loaded at preflight (quorum, grace window, cost cap). Carried
  // for the stages that apply it; the manifest's config.models records the same file, so a
  // non-default policy is on disk as the v2 object that was loaded.
  config::Policy policy;
  // The named panel the run uses (config/panels.h); empty: the file's top-level cast.
  std::string panel;
  workflow::CanonicalDocument canonical_input;
  budget::BudgetPlan plan;
  // What the run is expected to spend, from `plan` and the routes' prices (cost_forecast.h).
  budget::CostForecast cost_forecast;
  // research: source-policy.private.json as written at preflight; its path and hash go to the
  // candidates, whose fusion_web_fetch enforces it.
  std::optional<store::ArtifactRef> source_policy;
  // PI_FUSION_CHILD_WRAPPER of the host, checked at preflight (child_wrapper.h); empty when unset.
  std::string child_wrapper;
  // A resumed run: the old run's verified answers (and evaluation) it reuses; null otherwise.
  std::shared_ptr<const store::ResumeSource> resume;
  // policy.keep_warm_seconds: the run's use of the host's warm pool (warm_pool.h); null when off,
  // when the host has no pool, or when its Pi is too old to serve pooled tasks. Declared before
  // `exits`, so it outlives every child job that may still give a process back.
  std::unique_ptr<RunPool> pool;
  // The stage children still running after their verified answers (child_exits.h).
  std::unique_ptr<ChildExits> exits = std::make_unique<ChildExits>();
};

// The candidates the run's evaluator and merger prompts speak of: a quorum-2 run may answer from
// two, so its prompts (fixed before any candidate ends, and measured by the budget plan) say so.
inline workflow::CandidateSet CandidateSetOf(const PreparedRun& run) {
  // An adaptive run may answer from two by design, exactly as a quorum-2 run may.
  return run.policy.quorum == config::kReducedQuorum || run.policy.adaptive
             ? workflow::CandidateSet::kTwoOrThree
             : workflow::CandidateSet::kThree;
}

enum class RunEnd { kCompleted, kFailed, kCancelled };

struct RunOutcome {
  RunEnd end = RunEnd::kFailed;
  Status error;                              // ok when completed
  std::optional<store::RunError> run_error;  // stage/slot/attempt of a failure
  std::string artifact_dir;
  nlohmann::json usage;  // the run's cumulative Pi usage
  // The model requests its children sent (store::RequestsJson): a count, or null when unknown.
  nlohmann::json model_requests;
  // Failed or cancelled: what the children did (store::FailureProgress of the terminal
  // manifest); null otherwise.
  nlohmann::json progress;
  std::string summary_note;  // failure-summary problems, if any
  // Completed research: the committed details' `source_failures` (declared sources no candidate
  // could fetch) and `no_source_fetched` keys, as one object (run/source_failures.h's
  // SourceWarningLines reads it); null otherwise.
  nlohmann::json source_report;
  // Completed from two candidates (quorum 2): the committed details' `degraded` record
  // (run/degraded_text.h); null otherwise.
  nlohmann::json degraded;
  // Completed adaptive run: the committed details' `adaptive` record (run/adaptive_text.h); null
  // otherwise.
  nlohmann::json adaptive;
};

// The failure line of the contract: "Fusion failed (stage=…, slot=…, attempt=…): <code>: <msg>".
// The notice adds the children, the usage so far and the artifact directory (tasks/).
std::string FailureText(const RunOutcome& outcome);

}  // namespace pi_fusion::run
