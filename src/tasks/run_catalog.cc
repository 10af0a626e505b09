#include "tasks/run_catalog.h"

#include <algorithm>
#include <cctype>

#include <nlohmann/json.hpp>

#include "core/error_codes.h"
#include "core/json_text.h"
#include "schema/tool_catalog.h"
#include "store/artifact_ref.h"
#include "store/failure_view.h"
#include "store/owner_lock.h"
#include "store/resumability.h"
#include "store/run_finder.h"
#include "store/run_id.h"
#include "store/run_state.h"
#include "store/verify.h"
#include "store/wall_clock.h"
#include "tasks/session_runs.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::tasks {
namespace {

constexpr char kCanonicalInput[] = "canonical-input.json";

uint64_t DirectorySize(FileSystem& fs, const std::string& dir) {
  uint64_t total = 0;
  Result<std::vector<std::string>> names = fs.ListDir(dir);
  if (!names.ok()) return 0;
  for (const std::string& name : *names) {
    Result<FileInfo> info = fs.Stat(dir + "/" + name);
    if (info.ok() && info->type == FileType::kRegular) total += info->size;
  }
  return total;
}

// The first non-blank line of the request's headline argument (its tool's, by the run id's
// workflow: prompt or objective).
std::string Question(FileSystem& fs, const std::string& run_dir, std::string_view run_id) {
  const std::optional<Workflow> workflow = ParseWorkflow(store::RunIdWorkflow(run_id));
  if (!workflow) return "";
  Result<std::string> bytes =
      fs.ReadFile(run_dir + "/" + kCanonicalInput, store::ArtifactReadCap(kCanonicalInput));
  if (!bytes.ok()) return "";
  // A file with a key twice reads as no question rather than as one of its two values.
  Result<nlohmann::json> parsed = ParseUniqueKeyJson(*bytes, kCanonicalInput, kArtifactError);
  if (!parsed.ok()) return "";
  const nlohmann::json& input = *parsed;
  if (!input.is_object() || !input.contains("request") || !input["request"].is_object()) return "";
  const std::string text = schema::HeadlineOf(schema::FusionTool(*workflow), input["request"]);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    const size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos) {
      line = line.substr(first);
      line.erase(line.find_last_not_of(" \t\r") + 1);
      return line;
    }
    start = end + 1;
  }
  return "";
}

RunListing ReadListing(FileSystem& fs, std::string run_dir, std::string run_id) {
  RunListing run = ReadRunState(fs, std::move(run_dir), std::move(run_id));
  run.size_bytes = DirectorySize(fs, run.run_dir);
  run.question = Question(fs, run.run_dir, run.run_id);
  return run;
}

// Whether the run's owner still holds its lock (store/owner_lock.h).
void ProbeOwner(FileSystem& fs, RunListing& run) {
  Result<bool> alive = store::OwnerAlive(fs, run.run_dir);
  if (alive.ok()) {
    run.owner_alive = *alive;
  } else {
    run.owner_alive = true;  // unknown: never call it interrupted, never prune it
    run.owner_error = alive.status().message();
  }
}

// The latest time the run recorded: its creation, or an attempt's start or end.
std::optional<int64_t> LastActivityMs(const store::Manifest& manifest) {
  std::optional<int64_t> last = TimestampMillis(manifest.created_at);
  auto later = [&](const std::string& at) {
    const std::optional<int64_t> ms = TimestampMillis(at);
    if (ms && (!last || *ms > *last)) last = ms;
  };
  for (const store::AttemptRecord& attempt : manifest.attempts) {
    later(attempt.started_at);
    if (attempt.ended_at) later(*attempt.ended_at);
  }
  return last;
}

}  // namespace

RunListing ReadRunState(FileSystem& fs, std::string run_dir, std::string run_id) {
  RunListing run;
  run.run_dir = std::move(run_dir);
  run.run_id = std::move(run_id);
  Result<store::Manifest> manifest = store::ReadManifest(fs, run.run_dir);
  if (manifest.ok()) {
    run.manifest = std::move(manifest).value();
  } else {
    run.manifest_error = manifest.status().message();
  }
  ProbeOwner(fs, run);
  return run;
}

RunListing RunStateOf(FileSystem& fs, std::string run_dir, std::string run_id,
                      store::Manifest manifest) {
  RunListing run;
  run.run_dir = std::move(run_dir);
  run.run_id = std::move(run_id);
  run.manifest = std::move(manifest);
  ProbeOwner(fs, run);
  return run;
}

std::string RunListing::CancelCause() const {
  if (!manifest) return "";
  return CancelSourceText(CancelledByOnDisk(*manifest));
}

std::string RunListing::State() const {
  if (!manifest) return "unreadable";
  if (!store::IsTerminal(manifest->state) && !owner_alive) return std::string(kInterruptedState);
  return std::string(store::RunStateName(manifest->state));
}

bool RunListing::terminal() const { return manifest && store::IsTerminal(manifest->state); }

std::optional<ResumeHint> RunListing::Resume() const {
  if (!manifest || !resumed_as.empty()) return std::nullopt;
  if (State() != kInterruptedState) return ResumeHintOf(*manifest);
  // Not terminal yet, so CheckResumable would call it running: the Pi that resumes it finalizes
  // it as host_ended first, which keeps every verified candidate.
  std::vector<int> slots = store::VerifiedCandidateSlots(*manifest);
  if (slots.empty()) return std::nullopt;
  return ResumeHint{manifest->run_id, std::move(slots), store::EvaluationReusable(*manifest)};
}

std::optional<int64_t> RunListing::DurationMs() const {
  const bool interrupted = State() == kInterruptedState;
  if (!terminal() && !interrupted) return std::nullopt;
  const bool host_ended = manifest->error && manifest->error->code == kHostEnded;
  const std::optional<int64_t> created = TimestampMillis(manifest->created_at);
  const std::optional<int64_t> ended =
      interrupted || host_ended ? LastActivityMs(*manifest) : TimestampMillis(manifest->updated_at);
  if (!created || !ended) return std::nullopt;
  return *ended - *created;
}

nlohmann::json VerifiedReportOf(FileSystem& fs, const RunListing& run) {
  if (!run.manifest || run.manifest->state != store::RunState::kCompleted) return nullptr;
  Result<store::VerifiedResult> verified = store::VerifyCompletedRun(fs, run.run_dir, run.run_id);
  if (!verified.ok()) return nullptr;
  const nlohmann::json& details = verified->details;
  nlohmann::json report = {{"estimate", details.value("estimate", nlohmann::json())}};
  // Only a workflow that declares sources can have failed to fetch one.
  const std::optional<Workflow> workflow = ParseWorkflow(run.manifest->workflow);
  if (!workflow || !workflow::SpecOf(*workflow).declares_sources) return report;
  nlohmann::json rows = nlohmann::json::array();
  const nlohmann::json failures = details.value("source_failures", nlohmann::json());
  for (const nlohmann::json& row : failures.is_array() ? failures : nlohmann::json::array()) {
    const nlohmann::json url = row.is_object() ? row.value("url", nlohmann::json()) : nullptr;
    const nlohmann::json code = row.is_object() ? row.value("code", nlohmann::json()) : nullptr;
    if (url.is_string() && code.is_string()) rows.push_back({{"url", url}, {"code", code}});
  }
  report["source_failures"] = std::move(rows);
  report["no_source_fetched"] = details.value("no_source_fetched", nlohmann::json()) == true;
  return report;
}

std::vector<RunListing> ListRuns(FileSystem& fs, const std::string& cwd) {
  std::vector<RunListing> runs;
  for (const store::FoundRun& run : store::FindRuns(fs, cwd)) {
    runs.push_back(ReadListing(fs, run.dir, run.run_id));
  }
  for (const RunListing& resumed : runs) {
    if (!resumed.manifest || resumed.manifest->state != store::RunState::kCompleted ||
        !resumed.manifest->resumed_from || resumed.manifest->run_id != resumed.run_id) {
      continue;
    }
    for (RunListing& old : runs) {
      if (old.run_id == *resumed.manifest->resumed_from) old.resumed_as = resumed.run_id;
    }
  }
  auto created = [](const RunListing& r) { return r.manifest ? r.manifest->created_at : ""; };
  std::sort(runs.begin(), runs.end(), [&](const RunListing& a, const RunListing& b) {
    if (created(a) != created(b)) return created(a) > created(b);
    return a.run_id < b.run_id;
  });
  return runs;
}

std::optional<int64_t> TimestampMillis(const std::string& timestamp) {
  if (!store::IsTimestamp(timestamp)) return std::nullopt;
  auto number = [&](size_t pos, size_t len) { return std::stoi(timestamp.substr(pos, len)); };
  using namespace std::chrono;
  const year_month_day date{year{number(0, 4)}, month{static_cast<unsigned>(number(5, 2))},
                            day{static_cast<unsigned>(number(8, 2))}};
  if (!date.ok()) return std::nullopt;
  const milliseconds ms = duration_cast<milliseconds>(sys_days{date}.time_since_epoch()) +
                          hours{number(11, 2)} + minutes{number(14, 2)} + seconds{number(17, 2)} +
                          milliseconds{number(20, 3)};
  return ms.count();
}

Result<std::chrono::milliseconds> ParseAge(std::string_view text) {
  auto invalid = [&] {
    return Status::Error(kInvalidArguments,
                         "--older-than takes a count and a unit, like 30d, 12h, 45m or 90s "
                         "(found \"" +
                             std::string(text) + "\")");
  };
  if (text.size() < 2 || text.size() > 10) return invalid();
  int64_t count = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return invalid();
    count = count * 10 + (c - '0');
  }
  if (count <= 0) return invalid();
  switch (text.back()) {
    case 'd':
      return std::chrono::milliseconds(std::chrono::hours(24 * count));
    case 'h':
      return std::chrono::milliseconds(std::chrono::hours(count));
    case 'm':
      return std::chrono::milliseconds(std::chrono::minutes(count));
    case 's':
      return std::chrono::milliseconds(std::chrono::seconds(count));
    default:
      return invalid();
  }
}

std::vector<RunListing> SelectForPrune(const std::vector<RunListing>& runs,
                                       const PruneFilter& filter, int64_t now_ms) {
  std::vector<std::string> states = filter.states;
  if (states.empty()) states = {"completed", "failed", "cancelled"};
  std::vector<RunListing> selected;
  for (const RunListing& run : runs) {
    if (!run.manifest || run.owner_alive) continue;
    if (std::find(states.begin(), states.end(), run.State()) == states.end()) continue;
    const std::optional<int64_t> created = TimestampMillis(run.manifest->created_at);
    if (!created || now_ms - *created < filter.older_than.count()) continue;
    selected.push_back(run);
  }
  return selected;
}

RunCheck CheckRun(FileSystem& fs, const std::string& run_dir) {
  RunCheck check;
  Result<store::Manifest> manifest = store::ReadManifest(fs, run_dir);
  if (!manifest.ok()) {
    check.problems.push_back(manifest.status().message());
    return check;
  }
  check.manifest = *manifest;
  const std::string name = run_dir.substr(run_dir.find_last_of('/') + 1);
  if (manifest->run_id != name) {
    check.problems.push_back("manifest.json run_id " + manifest->run_id +
                             " is not the directory's name " + name);
  }
  for (const auto& [artifact, ref] : manifest->artifacts) {
    Result<std::string> bytes = store::VerifyArtifact(fs, run_dir, ref);
    if (!bytes.ok()) check.problems.push_back(bytes.status().message());
  }
  auto add = [&](const std::string& problem) {
    if (std::find(check.problems.begin(), check.problems.end(), problem) == check.problems.end())
      check.problems.push_back(problem);
  };
  switch (manifest->state) {
    case store::RunState::kCompleted: {
      Result<store::VerifiedResult> verified =
          store::VerifyCompletedRun(fs, run_dir, manifest->run_id);
      if (!verified.ok()) add(verified.status().message());
      break;
    }
    case store::RunState::kFailed:
    case store::RunState::kCancelled: {
      Result<nlohmann::json> view = store::ReadFailureView(fs, run_dir);
      if (!view.ok()) {
        add(view.status().message());
      } else if (view->value("summary_status", "") == "integrity_failed") {
        add("failure-summary.json: the summary the manifest binds is missing, altered or foreign");
      }
      break;
    }
    default:
      break;
  }
  return check;
}

}  // namespace pi_fusion::tasks
