#include "run/child_stage.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "budget/calibration.h"
#include "core/error_codes.h"
#include "core/file_system.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "protocol/answer_arrival.h"
#include "protocol/stderr_scan.h"
#include "protocol/tool_audit_verify.h"
#include "protocol/verify.h"
#include "run/attempt_recorder.h"
#include "run/child_job.h"
#include "run/request_signal.h"
#include "run/source_failures.h"
#include "run/tool_refusals.h"
#include "run/warm_pool.h"
#include "run/warm_stages.h"
#include "store/artifact_ref.h"
#include "store/attempt_files.h"
#include "store/usage.h"
#include "url/source_policy_file.h"

namespace pi_fusion::run {
namespace {

const budget::RouteCapacity& CapacityOf(const PreparedRun& run, Slot slot) {
  return run.plan.routes[static_cast<size_t>(slot)];
}

// The URLs a tool-enabled child's fetch provenance may name. Research reads its declared sources
// back from source-policy.private.json, whose bytes must still be those written at preflight (the
// same check the child's fusion_web_fetch makes); every other workflow declares none.
Result<std::vector<std::string>> DeclaredUrls(const PreparedRun& run) {
  if (!run.source_policy) return std::vector<std::string>{};
  const std::string name(url::kSourcePolicyFile);
  Result<std::string> bytes = run.seams.fs->ReadFile(
      run.store->run_dir() + "/" + run.source_policy->path, store::ArtifactReadCap(name));
  if (!bytes.ok()) {
    return Status::Error(
        kSourcePolicyInvalid,
        name + " cannot be read to check the candidates' fetches: " + bytes.status().message());
  }
  if (Sha256Ref(*bytes) != run.source_policy->sha256) {
    return Status::Error(kSourcePolicyInvalid,
                         name +
                             " changed after preflight: its SHA-256 is not the one recorded "
                             "(something other than Fusion wrote in the run directory)");
  }
  Result<url::SourcePolicy> policy = url::ParseSourcePolicy(*bytes);
  if (!policy.ok()) return policy.status();
  return policy->declared_urls;
}

// The most tool calls the child's audit log may hold: an evaluator with tools has its own limit.
int64_t MaxToolCallsOf(const StageChild& child) {
  return child.key.stage == Stage::kEvaluation ? protocol::kEvaluatorMaxToolCalls
                                               : protocol::kMaxToolCalls;
}

}  // namespace

std::chrono::milliseconds StallBound(const config::Policy& policy) {
  const double seconds = policy.stall_seconds.value_or(config::kDefaultStallSeconds);
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
}

Status StalledStatus(const StageChild& child, const config::ModelInfo& model,
                     std::chrono::milliseconds bound, bool starting) {
  const std::string who = std::string(RoleName(ChildRoleOf(child.key.stage))) +
                          (child.key.slot ? " " + std::to_string(*child.key.slot) : "");
  auto seconds = [](std::chrono::milliseconds ms) {
    return config::PolicyNumberText(static_cast<double>(ms.count()) / 1000) + " s";
  };
  const std::string head = who + " (" + model.provider + "/" + model.id +
                           ") stalled: no output, tool call or model-stream progress ";
  if (starting) {
    return Status::Error(kChildStalled, head + "since its start, for " +
                                            seconds(std::max(bound, kStallStartupAllowance)) +
                                            " (the start-up allowance; policy.stall_seconds is " +
                                            seconds(bound) + ")");
  }
  return Status::Error(kChildStalled, head + "for " + seconds(bound) + " (policy.stall_seconds)");
}

Result<process::ChildSpec> BuildChildSpec(const PreparedRun& run, const StageChild& child,
                                          const ChildFiles& files) {
  const RunRequest& request = run.request;
  const config::ModelInfo& model = run.models.route(child.route).model;
  process::ChildCommandSpec command;
  command.node_path = request.host.node_path;
  command.pi_cli_path = request.host.pi_cli_path;
  command.command_override = request.child_command_override;
  // PI_FUSION_CHILD_WRAPPER (child_wrapper.h), absolute: checked at preflight.
  if (command.command_override.empty() && !run.child_wrapper.empty()) {
    command.command_override = {run.child_wrapper, request.host.node_path,
                                request.host.pi_cli_path};
  }
  command.capability = child.capability;
  command.exclude_tools = workflow::ChildDeniedTools();
  command.extensions = {request.host.package_root + "/extensions/fusion-child.ts"};
  command.provider = model.provider;
  command.model = model.id;
  command.thinking_level = run.models.ThinkingOf(child.role);
  command.system_prompt = child.system_prompt;
  Result<std::vector<std::string>> argv = process::BuildChildArgv(command);
  if (!argv.ok()) return argv.status();

  process::ChildVariables vars;
  vars.role = ChildRoleOf(child.key.stage);
  vars.provider_api = model.api;
  vars.oversize_path = files.oversized;
  // The candidates, and an evaluator with tools (policy.evaluator_tools), of a research run.
  if (child.capability == process::ChildCapability::kResearch && run.source_policy) {
    // fusion_web_fetch enforces the declared URLs; it refuses to load if the file changed.
    vars.source_policy = run.store->run_dir() + "/" + run.source_policy->path;
    vars.source_policy_sha256 = run.source_policy->sha256;
  }
  vars.tools = child.tools;
  vars.tool_journal = files.journal;
  vars.tool_seal = files.seal;
  vars.session_dir = request.host.session_dir;
  vars.cost_allowance_usd = child.cost_allowance_usd;
  process::ChildSpec spec;
  if (child.request_signal_fd >= 0) {
    // An inherited descriptor, not a path: nothing in the project, nothing left behind.
    spec.inherit_fds = {child.request_signal_fd};
    vars.request_signal_fd = FirstRequestSignal::kChildFd;
  }
  spec.argv = std::move(argv).value();
  spec.env = process::BuildStageChildEnvironment(request.host.environment, vars);
  spec.cwd = request.host.cwd;
  spec.stdin_data = child.stdin_text;
  spec.limits = request.child_limits;
  spec.limits.idle = StallBound(run.policy);
  spec.limits.idle_before_output = kStallStartupAllowance;
  return spec;
}

namespace {

// Candidates get one retry when no child could be spawned at all (no process ever existed).
Result<process::ChildOutcome> Spawn(ChildLauncher& launcher, const process::ChildSpec& spec,
                                    const StageChild& child, const process::CancelToken& cancel) {
  Result<process::ChildOutcome> outcome = launcher.RunWatched(spec, cancel, child.watch);
  if (!outcome.ok() && outcome.status().code() == kChildSpawnFailed &&
      child.key.stage == Stage::kCandidate && !cancel.IsCancelled()) {
    outcome = launcher.RunWatched(spec, cancel, child.watch);
  }
  return outcome;
}

// A file the child may have left; nullopt when it is absent or unreadable.
std::optional<std::string> ReadIfPresent(FileSystem& fs, const std::string& path) {
  const size_t slash = path.rfind('/');
  Result<std::string> bytes = fs.ReadFile(
      path, store::ArtifactReadCap(slash == std::string::npos ? path : path.substr(slash + 1)));
  if (!bytes.ok()) return std::nullopt;
  return std::move(bytes).value();
}

int64_t UsageField(const nlohmann::json& usage, const char* key) {
  const auto it = usage.find(key);
  return it != usage.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// The usage of the child's first provider request: its first record that is not a retry marker
// (a failed request, zero usage by the protocol). Later records are agent-loop turns: total
// usage, never a prompt under-forecast.
std::optional<budget::FirstRequestUsage> FirstRequest(
    const std::vector<protocol::MetadataRecord>& records) {
  for (const protocol::MetadataRecord& record : records) {
    if (record.stop_reason == "error" || !record.usage.is_object()) continue;
    return budget::FirstRequestUsage{UsageField(record.usage, "input"),
                                     UsageField(record.usage, "cacheRead"),
                                     UsageField(record.usage, "cacheWrite")};
  }
  return std::nullopt;
}

// The verdict on a child that ran: the supervisor's limits first, then the protocol (so a
// runtime guard reports its own code, not the incomplete seal it caused), then the tool-call audit
// log, then the stage's output contract.
Status Judge(const process::ChildOutcome& outcome, const protocol::ChildReport& report,
             const std::optional<protocol::ToolAuditReport>& audit, const Status& sources,
             const StageChild& child) {
  if (!outcome.status.ok()) return outcome.status;
  if (!report.ok()) return report.status;
  if (audit && !audit->ok()) return audit->status;
  if (!sources.ok()) return sources;
  if (!outcome.cleanup_errors.empty()) return process::OutcomeStatus(outcome);
  return workflow::CheckOutputContract(child.output, report.answer);
}

// Everything the parent concludes from one child's captured output, before anything is written.
struct Judgement {
  protocol::VerifyRequest verify;
  protocol::ChildReport report;
  std::optional<std::string> journal;
  std::optional<std::string> seal;
  std::map<std::string, int64_t> refusals;
  std::vector<SourceFetch> fetches;
  std::optional<std::string> walk_protection;
  std::optional<store::Usage> usage;
  // The model requests it sent: one per usage record that carries a cache observation, which the
  // governor writes only for a request it let through (a failed request that was sent counts).
  uint64_t requests = 0;
  Status verdict;
};

Judgement JudgeChild(const PreparedRun& run, const StageChild& child, const ChildFiles& files,
                     const process::ChildOutcome& outcome, bool at_answer) {
  const config::ModelInfo& model = run.models.route(child.route).model;
  Judgement j;
  const protocol::ChildExit exit =
      at_answer ? protocol::ChildExit{0, std::nullopt}
                : protocol::ChildExit{outcome.exit_code, outcome.term_signal};
  j.verify = protocol::VerifyRequest{
      outcome.stdout_bytes, outcome.stderr_bytes, exit, model.provider, model.id, std::nullopt};
  if (!files.oversized.empty()) {
    // Present only when the child preserved an oversized first answer.
    j.verify.oversized_original = ReadIfPresent(*run.seams.fs, files.oversized);
  }
  j.report = protocol::VerifyChildRun(j.verify);
  std::optional<protocol::ToolAuditReport> audit;
  Status sources = Status::Ok();
  if (!child.tools.empty()) {
    j.journal = ReadIfPresent(*run.seams.fs, files.journal);
    j.seal = ReadIfPresent(*run.seams.fs, files.seal);
    protocol::ToolAuditInput input{j.journal, j.seal, child.tools};
    input.max_tool_calls = MaxToolCallsOf(child);
    // Recounted against the child's own tally and the run's sources (docs/protocol.md).
    if (j.report.settlement) input.settled_tool_calls = j.report.settlement->tool_calls;
    Result<std::vector<std::string>> declared = DeclaredUrls(run);
    if (declared.ok()) input.declared_urls = *declared;
    if (!declared.ok()) sources = declared.status();
    audit = protocol::VerifyToolAudit(input);
    if (audit->ok()) {
      j.refusals = CountPathRefusals(audit->records);
      j.fetches = SourceFetchesOf(audit->records);
      j.walk_protection = WeakestWalkProtection(audit->records);
    }
  }
  j.requests = j.report.cache_observations.size();
  if (j.report.usage.is_object()) {
    Result<store::Usage> parsed =
        store::UsageFromJson(j.report.usage, store::AttemptPrefix(child.key));
    if (parsed.ok()) j.usage = *parsed;
  }
  j.verdict = Judge(outcome, j.report, audit, sources, child);
  // The idle watchdog is the stall bound here (BuildChildSpec): said as such, with whom it hit.
  if (outcome.stop_reason == process::StopReason::kIdleLimit) {
    j.verdict = StalledStatus(child, model, StallBound(run.policy), outcome.idle_before_output);
  }
  return j;
}

// Runs the child to its end: the warm child of the stage when there is one, else a cold start.
ChildJob::Runner RunnerFor(std::unique_ptr<process::WarmChild> warm, ChildLauncher& launcher,
                           const StageChild& child, const process::CancelToken& cancel) {
  std::shared_ptr<process::WarmChild> shared(std::move(warm));
  return [shared, &launcher, child, cancel](const process::ChildSpec& spec) {
    if (shared) return Result<process::ChildOutcome>(shared->Feed(spec, cancel, child.watch));
    return Spawn(launcher, spec, child, cancel);
  };
}

// Runs a candidate's task in a pooled process kept warm between runs (warm_pool.h). A pool
// failure before the task's prompt was sent starts the child cold, as if there were no pool; a
// process whose task ended cleanly goes back to the pool, any other is ended by PooledChild.
ChildJob::Runner PooledRunner(std::unique_ptr<process::PooledChild> pooled, PooledCommand command,
                              RunPool& pool, ChildLauncher& launcher, const StageChild& child,
                              const process::CancelToken& cancel) {
  // A Runner is copyable; the process is owned here until the task ends.
  auto holder = std::make_shared<std::unique_ptr<process::PooledChild>>(std::move(pooled));
  return [holder, command, &pool, &launcher, child,
          cancel](const process::ChildSpec& spec) -> Result<process::ChildOutcome> {
    process::ProgressCallback watch;
    if (child.watch) {
      watch = [inner = child.watch](const process::ChildProgress& progress) {
        process::ChildProgress tagged = progress;
        tagged.pooled = true;
        inner(tagged);
      };
    }
    process::TaskResult result = (*holder)->RunTask(spec, command.task, command.route, cancel,
                                                    watch, child.request_signal_fd);
    if (!result.started) {
      holder->reset();  // ended by RunTask already
      return Spawn(launcher, spec, child, cancel);
    }
    if (result.reusable) {
      pool.Return(std::move(*holder), command);
    } else {
      holder->reset();
    }
    return Result<process::ChildOutcome>(std::move(result.outcome));
  };
}

// The trigger that ends the stage's wait at the child's answer (protocol/answer_arrival.h).
process::AnswerCheck ArrivalCheck() {
  auto arrival = std::make_shared<protocol::AnswerArrival>();
  return [arrival](const std::string& out, const std::string& err) {
    return arrival->Complete(out, err);
  };
}

// Where the child writes the files the parent reads after it ended, under the attempt's prefix.
ChildFiles FilesOf(const AttemptRecorder& attempt, const StageChild& child) {
  ChildFiles files;
  if (child.role == Role::kCandidate)
    files.oversized = attempt.Path(store::AttemptFile::kOversizedResponse);
  if (!child.tools.empty()) {
    files.journal = attempt.Path(store::AttemptFile::kToolCalls);
    files.seal = attempt.Path(store::AttemptFile::kSeal);
  }
  return files;
}

// The child started, supervised on its job's thread: the stage's warm child when there is one
// (taken right after the exact rendered-prompt check), else a cold start.
Result<std::unique_ptr<ChildJob>> StartJob(PreparedRun& run, const StageChild& child,
                                           const ChildFiles& files,
                                           const process::CancelToken& cancel, WarmStages* warm) {
  Result<process::ChildSpec> spec = BuildChildSpec(run, child, files);
  if (!spec.ok()) return spec.status();
  // The attempt's first output (the timeline's mark): the child's first progress frame, metadata
  // frame or answer byte.
  spec->first_output = [](const std::string& out, const std::string& err) {
    return protocol::HoldsFirstOutput(out, err);
  };
  if (child.key.stage == Stage::kCandidate && run.pool && !cancel.IsCancelled()) {
    RunPool::Taken taken = run.pool->Take(*spec, *run.seams.random);
    if (taken.child) {
      return std::make_unique<ChildJob>(
          PooledRunner(std::move(taken.child), std::move(*taken.command), *run.pool,
                       *run.seams.children, child, cancel),
          std::move(spec).value(), ArrivalCheck());
    }
  }
  Result<std::unique_ptr<process::WarmChild>> started{std::unique_ptr<process::WarmChild>()};
  if (warm != nullptr && !cancel.IsCancelled()) started = warm->Take(child.key, *spec);
  if (!started.ok()) return started.status();
  return std::make_unique<ChildJob>(
      RunnerFor(std::move(started).value(), *run.seams.children, child, cancel),
      std::move(spec).value(), ArrivalCheck());
}

// The child's evidence, queued for the attempt's end: its stderr and frames (once it ended), a
// calibration violation, the audit log as the parent read it, its preserved oversized original,
// and its answer (or its partial output). Returns the under-forecast tokens of its first
// request, when it used more than its stage's forecast.
std::optional<int64_t> QueueEvidence(const PreparedRun& run, const StageChild& child,
                                     const Judgement& judged, const process::ChildOutcome& outcome,
                                     bool at_answer, AttemptRecorder& attempt) {
  // A child still running after its answer has not written all of its stderr: Settle binds it
  // whole once the child ended, off the path to the next stage.
  if (!at_answer) {
    attempt.Write(store::AttemptFile::kStderr, outcome.stderr_bytes);
    attempt.Write(store::AttemptFile::kEvents, protocol::FramesJsonl(outcome.stderr_bytes));
  }
  std::optional<int64_t> under_forecast;
  if (std::optional<budget::FirstRequestUsage> first = FirstRequest(judged.report.records)) {
    std::optional<nlohmann::json> violation =
        budget::CalibrationViolation(CapacityOf(run, child.route), child.role, child.key.attempt,
                                     child.system_prompt, child.stdin_text, *first);
    if (violation) {
      under_forecast = violation->at("under_forecast_tokens").get<int64_t>();
      attempt.Write(store::AttemptFile::kCalibrationViolation, CanonicalJson(*violation));
    }
  }
  // Bind the audit log as the parent read it, so bg_result and later readers see those bytes.
  if (judged.journal) attempt.Write(store::AttemptFile::kToolCalls, *judged.journal);
  if (judged.seal) attempt.Write(store::AttemptFile::kSeal, *judged.seal);
  if (judged.verify.oversized_original) {
    // Bind the child's preserved original into the manifest like every other artifact.
    attempt.Write(store::AttemptFile::kOversizedResponse, *judged.verify.oversized_original);
  }
  if (judged.verdict.ok()) attempt.Write(store::AttemptFile::kResponse, judged.report.answer);
  if (!judged.verdict.ok() && !outcome.stdout_bytes.empty()) {
    attempt.Write(store::AttemptFile::kPartialResponse, outcome.stdout_bytes);
  }
  return under_forecast;
}

// A child that answered before it exited: reaped, recorded and judged again before the run's
// terminal manifest (ChildExits::Settle). A tool-enabled child's audit log is bound as it was at
// the answer; Settle checks that its process tree left it so.
void SettleLater(PreparedRun& run, const StageChild& child, const Judgement& judged,
                 std::unique_ptr<ChildJob> job) {
  const config::ModelInfo& model = run.models.route(child.route).model;
  std::vector<std::string> audit;
  if (judged.journal)
    audit.push_back(store::AttemptFileName(child.key, store::AttemptFile::kToolCalls));
  if (judged.seal) audit.push_back(store::AttemptFileName(child.key, store::AttemptFile::kSeal));
  run.exits->Add({std::move(job), child.key, judged.report.answer, model.provider, model.id,
                  judged.verify.oversized_original, std::move(audit)});
}

}  // namespace

StageResult RunStageChild(PreparedRun& run, const StageChild& child,
                          const process::CancelToken& cancel, WarmStages* warm,
                          store::StoreBatch* carry) {
  // A stage the measured budget check refuses never starts: no attempt row, no child.
  Status budget = budget::CheckMeasuredPrompt(CapacityOf(run, child.route), child.role,
                                              child.system_prompt, child.stdin_text);
  if (!budget.ok()) return {budget, ""};
  AttemptRecorder attempt(run, child);
  if (Status s = attempt.Begin(child, carry); !s.ok()) return {s, ""};
  const ChildFiles files = FilesOf(attempt, child);
  Result<std::unique_ptr<ChildJob>> job = StartJob(run, child, files, cancel, warm);
  if (!job.ok()) return {attempt.End(job.status(), std::nullopt), ""};
  bool at_answer = false;
  Result<process::ChildOutcome> outcome = (*job)->WaitForAnswerOrEnd(&at_answer);
  if (!outcome.ok()) return {attempt.End(outcome.status(), std::nullopt), ""};

  // At the answer the child has not exited yet: it is judged as if it exited 0, and its real exit
  // is judged later with everything it wrote (ChildExits::Settle).
  Judgement judged = JudgeChild(run, child, files, *outcome, at_answer);
  if (at_answer && !judged.verdict.ok()) {
    // An answer that does not verify is judged the old way, on the child's whole run.
    at_answer = false;
    outcome = (*job)->WaitForEnd();
    if (!outcome.ok()) return {attempt.End(outcome.status(), std::nullopt), ""};
    judged = JudgeChild(run, child, files, *outcome, false);
  }
  const std::optional<int64_t> under_forecast =
      QueueEvidence(run, child, judged, *outcome, at_answer, attempt);
  attempt.NoteFirstOutput(FirstOutputAtOf(*outcome));
  attempt.NotePooled(PooledRecordOf(*outcome));
  std::optional<store::ChildExitRecord> exit;
  if (!at_answer) exit = ExitRecordOf(*outcome, false);
  Status ended = attempt.End(judged.verdict, judged.usage, judged.requests, exit);
  if (at_answer) SettleLater(run, child, judged, std::move(job).value());
  std::optional<int64_t> tool_calls;
  if (!child.tools.empty() && judged.report.settlement) {
    tool_calls = judged.report.settlement->tool_calls;
  }
  return {ended,
          ended.ok() ? judged.report.answer : "",
          under_forecast,
          std::move(judged.refusals),
          std::move(judged.fetches),
          tool_calls,
          std::move(judged.walk_protection),
          outcome->pooled.has_value()};
}

StageResult ReuseStageChild(PreparedRun& run, const StageChild& child,
                            const store::ReusedAttempt& reused) {
  auto file = [&](store::AttemptFile kind) -> std::optional<std::string> {
    const std::string name = store::AttemptFileName(child.key, kind);
    for (const store::ReusedFile& f : reused.files) {
      if (f.name == name) return f.bytes;
    }
    return std::nullopt;
  };
  StageResult result{workflow::CheckOutputContract(child.output, reused.answer), reused.answer};
  if (result.status.ok() && !child.tools.empty()) {
    const std::optional<std::string> journal = file(store::AttemptFile::kToolCalls);
    const std::optional<std::string> seal = file(store::AttemptFile::kSeal);
    protocol::ToolAuditInput input{journal, seal, child.tools};
    input.max_tool_calls = MaxToolCallsOf(child);
    Result<std::vector<std::string>> declared = DeclaredUrls(run);
    if (declared.ok()) input.declared_urls = *declared;
    const protocol::ToolAuditReport audit = protocol::VerifyToolAudit(input);
    result.status = declared.ok() ? audit.status : declared.status();
    if (result.status.ok()) {
      result.tool_refusals = CountPathRefusals(audit.records);
      result.source_fetches = SourceFetchesOf(audit.records);
      result.walk_protection = WeakestWalkProtection(audit.records);
      result.tool_calls = static_cast<int64_t>(audit.records.size());
    }
  }
  if (result.status.ok()) {
    result.status = run.store->Apply(store::ReuseBatch(reused, run.resume->manifest.run_id));
  }
  if (!result.status.ok()) result.answer.clear();
  return result;
}

}  // namespace pi_fusion::run
