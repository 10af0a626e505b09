#include "workflow/child_stage.h"

#include <utility>

#include "core/file_system.h"
#include "protocol/stderr_scan.h"
#include "protocol/verify.h"
#include "store/usage.h"

namespace pi_fusion::workflow {
namespace {

const budget::RouteCapacity& CapacityOf(const PreparedRun& run, config::Slot slot) {
  return run.plan.routes[static_cast<size_t>(slot)];
}

Result<process::ChildSpec> BuildSpec(const PreparedRun& run, const StageChild& child,
                                     const std::string& oversize_path) {
  const RunRequest& request = run.request;
  const config::ModelInfo& model = run.models.route(child.route).model;
  process::ChildCommandSpec command;
  command.node_path = request.host.node_path;
  command.pi_cli_path = request.host.pi_cli_path;
  command.command_override = request.child_command_override;
  command.capability = child.capability;
  command.extensions = {request.host.package_root + "/extensions/fusion-child.ts"};
  command.provider = model.provider;
  command.model = model.id;
  command.thinking_level = run.models.thinking_level;
  command.system_prompt = child.system_prompt;
  Result<std::vector<std::string>> argv = process::BuildChildArgv(command);
  if (!argv.ok()) return argv.status();

  process::ChildSpec spec;
  spec.argv = std::move(argv).value();
  spec.env = process::BuildChildEnvironment(request.host.environment, model.api);
  spec.env.push_back("PI_FUSION_CHILD_ROLE=" + child.role);
  if (!oversize_path.empty()) spec.env.push_back("PI_FUSION_OVERSIZE_PATH=" + oversize_path);
  spec.cwd = request.host.cwd;
  spec.stdin_data = child.stdin_text;
  spec.limits = request.child_limits;
  return spec;
}

// Candidates get one retry when no child could be spawned at all (no process ever existed).
Result<process::ChildOutcome> Spawn(ChildLauncher& launcher, const process::ChildSpec& spec,
                                    const StageChild& child, const process::CancelToken& cancel) {
  Result<process::ChildOutcome> outcome = launcher.Run(spec, cancel);
  if (!outcome.ok() && outcome.status().code() == "child_spawn_failed" &&
      child.key.stage == store::Stage::kCandidate && !cancel.IsCancelled()) {
    outcome = launcher.Run(spec, cancel);
  }
  return outcome;
}

std::string EventsJsonl(const std::string& stderr_bytes) {
  std::string out;
  for (const protocol::ScannedFrame& frame : protocol::ScanStderr(stderr_bytes).frames) {
    out += frame.body.dump() + "\n";
  }
  return out;
}

store::AttemptState StateFor(const Status& status) {
  if (status.ok()) return store::AttemptState::kCompleted;
  return status.code() == "child_cancelled" ? store::AttemptState::kCancelled
                                            : store::AttemptState::kFailed;
}

class AttemptRecorder {
 public:
  AttemptRecorder(PreparedRun& run, const StageChild& child)
      : run_(run), key_(child.key), prefix_(store::AttemptPrefix(child.key)) {}

  const std::string& prefix() const { return prefix_; }
  std::string Path(const std::string& suffix) const {
    return run_.store->run_dir() + "/" + prefix_ + suffix;
  }

  Status Begin(const StageChild& child) {
    const std::string prompt =
        "# system prompt\n" + child.system_prompt + "\n\n# stdin\n" + child.stdin_text + "\n";
    if (Status s = Write(".prompt.txt", prompt); !s.ok()) return s;
    store::AttemptUpdate update;
    update.key = key_;
    update.state = store::AttemptState::kRunning;
    update.artifacts = artifacts_;
    artifacts_.clear();
    return run_.store->RecordAttempt(update);
  }

  Status Write(const std::string& suffix, const std::string& bytes) {
    Result<store::ArtifactRef> ref = run_.store->WriteArtifact(prefix_ + suffix, bytes);
    if (!ref.ok()) return ref.status();
    artifacts_.push_back(prefix_ + suffix);
    return Status::Ok();
  }

  // Records the end state; a store failure outranks the child's own outcome.
  Status End(const Status& outcome, const std::optional<store::Usage>& usage) {
    store::AttemptUpdate update;
    update.key = key_;
    update.state = StateFor(outcome);
    update.usage = usage;
    if (!outcome.ok()) update.error = store::AttemptError{outcome.code(), outcome.message()};
    update.artifacts = artifacts_;
    Status recorded = run_.store->RecordAttempt(update);
    return recorded.ok() ? outcome : recorded;
  }

 private:
  PreparedRun& run_;
  store::AttemptKey key_;
  std::string prefix_;
  std::vector<std::string> artifacts_;
};

// The verdict on a child that ran: the supervisor's limits first, then the protocol, then the
// stage's output contract.
Status Judge(const process::ChildOutcome& outcome, const protocol::ChildReport& report,
             const StageChild& child) {
  if (!outcome.status.ok()) return outcome.status;
  if (!report.ok()) return report.status;
  if (!outcome.cleanup_errors.empty()) return process::OutcomeStatus(outcome);
  return CheckOutputContract(child.output, report.answer);
}

}  // namespace

StageResult RunStageChild(PreparedRun& run, const StageChild& child,
                          const process::CancelToken& cancel) {
  // A stage the measured budget check refuses never starts: no attempt row, no child.
  Status budget = budget::CheckMeasuredPrompt(CapacityOf(run, child.route), child.budget_stage,
                                              child.system_prompt, child.stdin_text);
  if (!budget.ok()) return {budget, ""};
  AttemptRecorder attempt(run, child);
  if (Status s = attempt.Begin(child); !s.ok()) return {s, ""};

  const std::string oversize_path =
      child.role == "candidate" ? attempt.Path(".response.oversized.md") : "";
  Result<process::ChildSpec> spec = BuildSpec(run, child, oversize_path);
  if (!spec.ok()) return {attempt.End(spec.status(), std::nullopt), ""};
  Result<process::ChildOutcome> outcome = Spawn(*run.seams.children, *spec, child, cancel);
  if (!outcome.ok()) return {attempt.End(outcome.status(), std::nullopt), ""};

  const config::ModelInfo& model = run.models.route(child.route).model;
  protocol::VerifyRequest verify{outcome->stdout_bytes,
                                 outcome->stderr_bytes,
                                 {outcome->exit_code, outcome->term_signal},
                                 model.provider,
                                 model.id,
                                 std::nullopt};
  if (!oversize_path.empty()) {
    // Present only when the child preserved an oversized first answer.
    Result<std::string> original = run.seams.fs->ReadFile(oversize_path);
    if (original.ok()) verify.oversized_original = *original;
  }
  protocol::ChildReport report = protocol::VerifyChildRun(verify);

  std::optional<store::Usage> usage;
  if (report.usage.is_object()) {
    Result<store::Usage> parsed = store::UsageFromJson(report.usage, attempt.prefix());
    if (parsed.ok()) usage = *parsed;
  }
  Status verdict = Judge(*outcome, report, child);
  Status written = attempt.Write(".stderr.txt", outcome->stderr_bytes);
  if (written.ok()) written = attempt.Write(".events.jsonl", EventsJsonl(outcome->stderr_bytes));
  const std::string ext = child.output == OutputKind::kEvaluator ? ".txt" : ".md";
  if (written.ok() && verify.oversized_original) {
    // Bind the child's preserved original into the manifest like every other artifact.
    written = attempt.Write(".response.oversized.md", *verify.oversized_original);
  }
  if (written.ok() && verdict.ok()) written = attempt.Write(".response" + ext, report.answer);
  if (written.ok() && !verdict.ok() && !outcome->stdout_bytes.empty()) {
    written = attempt.Write(".response.partial" + ext, outcome->stdout_bytes);
  }
  if (!written.ok()) verdict = written;
  Status ended = attempt.End(verdict, usage);
  return {ended, ended.ok() ? report.answer : ""};
}

}  // namespace pi_fusion::workflow
