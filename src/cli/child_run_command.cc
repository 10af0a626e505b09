// `pi-fusion child-run`: runs ONE Fusion child exactly as the orchestrator does (child command and
// environment builders, the process-group supervisor, the child protocol verifier) and prints the
// verified result or the typed error as JSON. For debugging and for the end-to-end tests
// (docs/protocol.md, "Debugging").
//
//   pi-fusion child-run --provider P --model M --prompt-file F [--system-prompt S]
//       [--capability reason|inspect|research] [--role candidate|evaluator|merger]
//       [--thinking L] [--api A] [--cwd D] [--artifact-dir D] [--extension E]...
//       [--wall-ms N] [--idle-ms N] [--node N --pi-cli C] [--child-extension X] [--child-addon L]
//
// Exit status: 0 verified, 1 typed child error, 2 usage or setup error. SIGINT/SIGTERM cancel
// the child (its whole process group is stopped) and report child_cancelled.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/child_run_spec.h"
#include "cli/commands.h"
#include "core/error_codes.h"
#include "core/file_system.h"
#include "process/cancel_token.h"
#include "process/child_command.h"
#include "process/supervisor.h"
#include "protocol/tool_audit_verify.h"
#include "protocol/verify.h"
#include "store/artifact_ref.h"

namespace pi_fusion::cli {
namespace {

using nlohmann::json;

// Cancels `token` when SIGINT or SIGTERM arrives. The signals are blocked in every thread of
// this process (the supervisor's children start with an empty mask) and taken with sigtimedwait
// by one thread, so there is no asynchronous handler. Stop() joins it.
class SignalCanceller {
 public:
  explicit SignalCanceller(process::CancelToken token) : token_(std::move(token)) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::thread([this] { Loop(); });
  }
  ~SignalCanceller() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int signal() const { return signal_; }

 private:
  void Loop() {
    const timespec tick{0, 50 * 1000 * 1000};
    while (!stop_) {
      const int sig = sigtimedwait(&set_, nullptr, &tick);
      if (sig > 0) {
        signal_ = sig;
        token_.Cancel();
      }
    }
  }

  process::CancelToken token_;
  sigset_t set_;
  std::atomic<bool> stop_{false};
  std::atomic<int> signal_{0};
  std::thread thread_;
};

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(kIoError, "cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
}

// A file the child left in the artifact directory: bounded and regular only (a FIFO planted there
// must not hang the verification).
Result<std::string> ReadChildFile(const std::string& path) {
  const size_t slash = path.rfind('/');
  return PosixFileSystem().ReadFile(path, store::ArtifactReadCap(path.substr(slash + 1)));
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// The artifact directory: --artifact-dir, or a fresh private one under $TMPDIR.
Result<std::string> ArtifactDir(const ChildRunArgs& args) {
  if (!args.artifact_dir.empty()) return args.artifact_dir;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/pi-fusion-child-run-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::Error(kIoError, std::string("mkdtemp: ") + std::strerror(errno));
  }
  return pattern;
}

json ErrorJson(const Status& status) {
  if (status.ok()) return nullptr;
  return {{"code", status.code()}, {"message", status.message()}};
}

template <typename T>
json OptionalJson(const std::optional<T>& value) {
  return value ? protocol::ToJson(*value) : json(nullptr);
}

json ReportJson(const protocol::ChildReport& report) {
  json records = json::array();
  for (const auto& record : report.records) records.push_back(protocol::ToJson(record));
  json observations = json::array();
  for (const auto& o : report.cache_observations) observations.push_back(protocol::ToJson(o));
  json oversized = nullptr;
  if (report.oversized) {
    oversized = {{"ordinal", report.oversized->ordinal},
                 {"bytes", report.oversized->bytes},
                 {"sha256", report.oversized->sha256},
                 {"answer_json_bytes", report.oversized->answer_json_bytes}};
  }
  return {{"answer", report.ok() ? json(report.answer) : json(nullptr)},
          {"answer_json_bytes", report.answer_json_bytes},
          {"usage", report.usage},
          {"records", std::move(records)},
          {"cache_observations", std::move(observations)},
          {"retry_marker_ordinals", report.retry_marker_ordinals},
          {"oversized", std::move(oversized)},
          {"guard", OptionalJson(report.guard)},
          {"settlement", OptionalJson(report.settlement)},
          {"metadata_sha256", report.metadata_sha256},
          {"diagnostics", report.diagnostics}};
}

json OutcomeJson(const process::ChildOutcome& outcome) {
  return {{"pid", outcome.pid},
          {"exit_code", outcome.exit_code ? json(*outcome.exit_code) : json(nullptr)},
          {"signal", outcome.term_signal ? json(*outcome.term_signal) : json(nullptr)},
          {"stop_reason", process::StopReasonName(outcome.stop_reason)},
          {"duration_ms", outcome.duration.count()},
          {"stdout_bytes", outcome.stdout_bytes.size()},
          {"stderr_bytes", outcome.stderr_bytes.size()},
          {"cleanup_errors", outcome.cleanup_errors}};
}

// Saves the evidence the orchestrator would: stdout as the response (or the partial response
// when it was not verified) and stderr.
void SaveArtifacts(const std::string& dir, const process::ChildOutcome& outcome, bool verified,
                   json* out) {
  const std::string response = dir + (verified ? "/response.md" : "/response.partial.md");
  WriteFile(response, outcome.stdout_bytes);
  WriteFile(dir + "/stderr.txt", outcome.stderr_bytes);
  (*out)["artifacts"]["response"] = response;
  (*out)["artifacts"]["stderr"] = dir + "/stderr.txt";
}

int Print(const json& out, bool ok) {
  std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
  return ok ? 0 : 1;
}

int RunChildRun(const ChildRunArgs& args) {
  Result<std::string> prompt = ReadFile(args.prompt_file);
  Result<std::string> dir = prompt.ok() ? ArtifactDir(args) : Result<std::string>(prompt.status());
  if (!dir.ok()) {
    std::fprintf(stderr, "error: %s\n", dir.status().ToString().c_str());
    return 2;
  }
  const std::string oversize = *dir + "/response.oversized.md";
  std::vector<std::string> parent_env;
  for (char** e = environ; *e != nullptr; ++e) parent_env.emplace_back(*e);
  Result<process::ChildSpec> spec = BuildChildRunSpec(args, parent_env, *prompt, *dir, oversize);
  Result<process::CancelToken> token = process::CancelToken::Create();
  if (!spec.ok() || !token.ok()) {
    std::fprintf(stderr, "error: %s\n",
                 (!spec.ok() ? spec.status() : token.status()).ToString().c_str());
    return 2;
  }
  SignalCanceller canceller(*token);
  Result<process::ChildOutcome> outcome = process::RunChild(*spec, *token);
  canceller.Stop();

  json out = {{"ok", false}, {"artifacts", {{"dir", *dir}, {"oversized_original", nullptr}}}};
  if (!outcome.ok()) {
    out["error"] = ErrorJson(outcome.status());
    return Print(out, false);
  }
  out["process"] = OutcomeJson(*outcome);
  protocol::VerifyRequest request;
  request.stdout_bytes = outcome->stdout_bytes;
  request.stderr_bytes = outcome->stderr_bytes;
  request.exit = {outcome->exit_code, outcome->term_signal};
  request.provider = args.provider;
  request.model = args.model;
  if (Result<std::string> original = ReadChildFile(oversize); original.ok()) {
    request.oversized_original = *original;
    out["artifacts"]["oversized_original"] = oversize;
  }
  const protocol::ChildReport report = protocol::VerifyChildRun(request);
  out.update(ReportJson(report));
  // The supervisor's verdict (timeout, output cap, cancellation, stdin) comes first, then the
  // protocol, then a tool-enabled child's audit log.
  Status status = outcome->status.ok() ? report.status : outcome->status;
  out["audit"] = nullptr;
  const std::vector<std::string> tools =
      process::CapabilityTools(*ParseCapability(args.capability));
  if (!tools.empty()) {
    const AuditPaths paths = AuditPathsIn(*dir);
    Result<std::string> journal = ReadChildFile(paths.journal);
    Result<std::string> seal = ReadChildFile(paths.seal);
    protocol::ToolAuditInput input{
        journal.ok() ? std::optional<std::string_view>(*journal) : std::nullopt,
        seal.ok() ? std::optional<std::string_view>(*seal) : std::nullopt, tools};
    // As the orchestrator does: the child's own count must match its log. (No declared sources
    // here: a research child run alone has no run to declare them.)
    if (report.settlement) input.settled_tool_calls = report.settlement->tool_calls;
    const protocol::ToolAuditReport audit = protocol::VerifyToolAudit(input);
    out["audit"] = {{"reason", audit.ok() ? json(nullptr) : json(audit.reason)},
                    {"records", audit.records.size()},
                    {"result_bytes", audit.result_bytes},
                    {"journal", paths.journal},
                    {"seal", paths.seal}};
    if (status.ok()) status = audit.status;
  }
  out["ok"] = status.ok();
  out["error"] = ErrorJson(status);
  SaveArtifacts(*dir, *outcome, status.ok(), &out);
  return Print(out, status.ok());
}

}  // namespace

void AddChildRunCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ChildRunArgs>();
  // The defaults: the pinned Node and Pi, this tree's child extension and library.
  args->node = PI_FUSION_CHILD_RUN_NODE;
  args->pi_cli = PI_FUSION_CHILD_RUN_PI_CLI;
  args->child_extension = PI_FUSION_CHILD_RUN_EXTENSION;
  args->child_addon = PI_FUSION_CHILD_RUN_ADDON;
  CLI::App* cmd = app.add_subcommand(
      "child-run", "Run one Fusion child (pi + the child extension) and print the verified result");
  cmd->add_option("--provider", args->provider, "Pi provider id")->required();
  cmd->add_option("--model", args->model, "Pi model id")->required();
  cmd->add_option("--prompt-file", args->prompt_file, "File whose bytes go to the child's stdin")
      ->required();
  cmd->add_option("--system-prompt", args->system_prompt, "System prompt text");
  std::vector<std::string> capabilities;
  for (process::ChildCapability c : process::kAllChildCapabilities) {
    capabilities.emplace_back(process::ChildCapabilityName(c));
  }
  cmd->add_option("--capability", args->capability, "reason | inspect | research")
      ->check(CLI::IsMember(capabilities));
  const std::vector<std::string> roles = {std::string(RoleName(Role::kCandidate)),
                                          std::string(RoleName(Role::kEvaluator)),
                                          std::string(RoleName(Role::kMerger))};
  cmd->add_option("--role", args->role, "candidate | evaluator | merger")
      ->check(CLI::IsMember(roles));
  cmd->add_option("--thinking", args->thinking, "Thinking level (default off)");
  cmd->add_option("--api", args->api, "The route's api (anthropic-messages: cache retention long)");
  cmd->add_option("--cwd", args->cwd, "Working directory of the child");
  cmd->add_option("--artifact-dir", args->artifact_dir,
                  "Where evidence is written (default: new temp dir)");
  cmd->add_option("--extension", args->extensions, "Extra extension loaded before the child one");
  cmd->add_option("--wall-ms", args->wall_ms, "Wall-clock limit in milliseconds");
  cmd->add_option("--idle-ms", args->idle_ms, "Idle (no output) limit in milliseconds");
  cmd->add_option("--node", args->node, "Node executable");
  cmd->add_option("--pi-cli", args->pi_cli, "Pi's cli.js");
  cmd->add_option("--child-extension", args->child_extension, "extensions/fusion-child.ts");
  cmd->add_option("--child-addon", args->child_addon, "pi_fusion_child.node");
  cmd->callback([args, exit_code] { *exit_code = RunChildRun(*args); });
}

}  // namespace pi_fusion::cli
