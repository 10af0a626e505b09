// `pi-fusion runs [--cwd DIR] [--json]`, `pi-fusion verify <run-dir|run-id> [--cwd DIR]` and
// `pi-fusion prune [--cwd DIR] [--older-than DUR] [--state S]... [--yes]`: list, check and clean
// the run directories under DIR/.pi/fusion/ (docs/cli/runs.md, verify.md, prune.md). What a run
// is, its state and whether its owner is alive come from tasks/run_catalog.h; this file parses
// arguments, prints and, for prune --yes, deletes.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/run_lookup.h"
#include "core/clock.h"
#include "core/error_codes.h"
#include "core/file_system.h"
#include "core/terminal_text.h"
#include "pi_fusion/status.h"
#include "run/adaptive_text.h"
#include "run/degraded_text.h"
#include "run/judgment_text.h"
#include "run/source_failures.h"
#include "store/manifest.h"
#include "store/owner_lock.h"
#include "store/run_id.h"
#include "store/wall_clock.h"
#include "tasks/resume_hint.h"
#include "tasks/run_catalog.h"
#include "views/view_parts.h"

namespace pi_fusion::cli {
namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             SystemClock().WallNow().time_since_epoch())
      .count();
}

// "40s", "12m", "5h", "3d".
std::string Span(int64_t ms) {
  const int64_t s = std::max<int64_t>(ms, 0) / 1000;
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m";
  if (s < 86400) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

// "812 B", "14.2 KiB", "3.1 MiB".
std::string Size(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  char out[32];
  const double kib = static_cast<double>(bytes) / 1024.0;
  if (kib < 1024) {
    std::snprintf(out, sizeof(out), "%.1f KiB", kib);
  } else {
    std::snprintf(out, sizeof(out), "%.1f MiB", kib / 1024.0);
  }
  return out;
}

std::optional<int64_t> AgeMs(const tasks::RunListing& run, int64_t now) {
  if (!run.manifest) return std::nullopt;
  const std::optional<int64_t> created = tasks::TimestampMillis(run.manifest->created_at);
  if (!created) return std::nullopt;
  return now - *created;
}

// What `runs` shows of one run besides its listing: what its verified result says
// (tasks::VerifiedReportOf: its estimate, and what a research run could not fetch; null for a run
// that did not complete or does not verify).
struct ShownRun {
  const tasks::RunListing& run;
  nlohmann::json report;
};

std::vector<ShownRun> Shown(const std::vector<tasks::RunListing>& runs) {
  std::vector<ShownRun> shown;
  for (const tasks::RunListing& run : runs) {
    shown.push_back({run, tasks::VerifiedReportOf(PosixFileSystem(), run)});
  }
  return shown;
}

// A completed run answered from two candidates (quorum 2): its manifest's `degraded` record;
// null otherwise.
nlohmann::json Degraded(const tasks::RunListing& run) {
  if (!run.manifest || !run.manifest->degraded) return nullptr;
  return store::DegradedToJson(*run.manifest->degraded);
}

// An adaptive run's decision: its manifest's `adaptive` record; null otherwise.
nlohmann::json Adaptive(const tasks::RunListing& run) {
  if (!run.manifest || !run.manifest->adaptive) return nullptr;
  return store::AdaptiveToJson(*run.manifest->adaptive);
}

// A run whose order check found order-sensitive conflicts: "order-sensitive: 1 of 2 conflicts";
// empty otherwise (a stable check is no warning).
std::string OrderSensitiveLine(const tasks::RunListing& run) {
  if (!run.manifest || !store::IsOrderCheckRecord(run.manifest->order_check)) return "";
  const nlohmann::json& record = run.manifest->order_check;
  return record["order_sensitive"].get<size_t>() > 0 ? run::OrderCheckLine(record) : "";
}

nlohmann::json RunJson(const ShownRun& shown, int64_t now) {
  const tasks::RunListing& run = shown.run;
  auto optional_ms = [](std::optional<int64_t> ms) {
    return ms ? nlohmann::json(*ms / 1000) : nlohmann::json(nullptr);
  };
  nlohmann::json out = {
      {"run_id", run.run_id},
      {"workflow", run.manifest ? nlohmann::json(run.manifest->workflow) : nlohmann::json(nullptr)},
      {"state", run.State()},
      {"owner_alive", run.owner_alive},
      {"created_at",
       run.manifest ? nlohmann::json(run.manifest->created_at) : nlohmann::json(nullptr)},
      {"age_seconds", optional_ms(AgeMs(run, now))},
      {"duration_seconds", optional_ms(run.DurationMs())},
      {"size_bytes", run.size_bytes},
      {"cost_usd",
       run.manifest ? nlohmann::json(run.manifest->usage.cost.total) : nlohmann::json(nullptr)},
      {"question", run.question},
      {"run_dir", run.run_dir}};
  if (const std::string cause = run.CancelCause(); !cause.empty()) out["cancelled_by"] = cause;
  const std::optional<tasks::ResumeHint> resume = run.Resume();
  out["resumable"] = resume ? tasks::ResumeHintJson(*resume) : nlohmann::json(nullptr);
  out["resumed_as"] =
      run.resumed_as.empty() ? nlohmann::json(nullptr) : nlohmann::json(run.resumed_as);
  const nlohmann::json& report = shown.report;
  const auto reported = [&](const char* key) {
    return report.is_object() ? report.value(key, nlohmann::json()) : nlohmann::json();
  };
  out["source_failures"] = reported("source_failures");
  out["no_source_fetched"] = reported("no_source_fetched");
  out["estimate"] = reported("estimate");
  out["degraded"] = Degraded(run);
  if (run.manifest && run.manifest->adaptive) out["adaptive"] = Adaptive(run);
  if (run.manifest && store::IsOrderCheckRecord(run.manifest->order_check)) {
    out["order_check"] = run.manifest->order_check;
  }
  if (run.manifest && run.manifest->panel) out["panel"] = *run.manifest->panel;
  if (!run.manifest_error.empty()) out["error"] = run.manifest_error;
  if (!run.owner_error.empty()) out["owner_error"] = run.owner_error;
  return out;
}

void PrintTable(std::vector<std::vector<std::string>> rows) {
  for (auto& row : rows) {
    for (std::string& cell : row) cell = NeutralizeControls(cell, TextShape::kSingleLine);
  }
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t i = 0; i + 1 < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    PrintLine(stdout, line);
  }
}

// What the run's children cost so far, as Pi priced their usage: "$0.0027"; "-" when the
// manifest cannot be read.
std::string Cost(const tasks::RunListing& run) {
  if (!run.manifest) return "-";
  char out[32];
  std::snprintf(out, sizeof(out), "$%.4f", run.manifest->usage.cost.total);
  return out;
}

std::vector<std::string> Row(const ShownRun& shown, int64_t now) {
  const tasks::RunListing& run = shown.run;
  const std::optional<int64_t> age = AgeMs(run, now);
  const std::optional<int64_t> duration = run.DurationMs();
  // A cancelled run says who cancelled it when it recorded that: "cancelled by quitting Pi".
  const std::string cause = run.CancelCause();
  // A run /fusion-resume can take up is marked, so nobody starts it over (or prunes it) unaware.
  // One resumed to completion is not (its answer exists): it names the run that holds it.
  const std::string resumable =
      run.Resume()             ? ", resumable"
      : run.resumed_as.empty() ? ""
                               : ", resumed as " + std::string(store::ShortRunId(run.resumed_as));
  // A research answer written without some of its declared sources is not a plain "completed".
  const std::string status = run::SourceWarningStatus(shown.report);
  const std::string sources = status.empty() ? "" : ", " + status;
  // Nor is one answered from two of its three candidates.
  const std::string degraded_status = run::DegradedStatus(Degraded(run));
  const std::string adaptive_status = run::AdaptiveStatus(Adaptive(run));
  const std::string degraded = (degraded_status.empty() ? "" : ", " + degraded_status) +
                               (adaptive_status.empty() ? "" : ", " + adaptive_status);
  // A run on a named panel says which (fusion-models.json v3).
  const std::string panel =
      run.manifest && run.manifest->panel ? ", panel " + *run.manifest->panel : "";
  return {run.run_id,
          run.manifest ? run.manifest->workflow : "-",
          (cause.empty() ? run.State() : run.State() + " by " + cause) + resumable + degraded +
              sources + panel,
          age ? Span(*age) : "-",
          duration ? Span(*duration) : "-",
          Size(run.size_bytes),
          Cost(run),
          views::ShortQuestion(run.question)};
}

const std::vector<std::string> kHeader = {"RUN ID",   "WORKFLOW", "STATE", "AGE",
                                          "DURATION", "SIZE",     "COST",  "QUESTION"};

// Under a table with a resumable run: how to resume it.
constexpr char kResumableNote[] =
    "A resumable run goes on in Pi with /fusion-resume <id> (the short id will do): it reuses the "
    "run's verified candidate answers and runs only what is missing.";

// The table of `runs`; under it the sentence of each degraded or adaptive run, an order-sensitive
// run's line and one warning per declared source a run could not fetch, then how to resume a
// resumable run.
void PrintRuns(const std::vector<ShownRun>& shown, int64_t now) {
  std::vector<std::vector<std::string>> rows = {kHeader};
  for (const ShownRun& run : shown) rows.push_back(Row(run, now));
  PrintTable(rows);
  for (const ShownRun& run : shown) {
    const std::string sentence = run::DegradedSentence(Degraded(run.run));
    if (!sentence.empty()) PrintOneLine(stdout, run.run.run_id + ": " + sentence);
    const std::string adaptive = run::AdaptiveSentence(Adaptive(run.run));
    if (!adaptive.empty()) PrintOneLine(stdout, run.run.run_id + ": " + adaptive);
    if (const std::string order = OrderSensitiveLine(run.run); !order.empty()) {
      PrintOneLine(stdout, run.run.run_id + ": " + order);
    }
    for (const std::string& line : run::SourceWarningLines(run.report)) {
      PrintOneLine(stdout, run.run.run_id + ": " + line);
    }
  }
  if (std::any_of(shown.begin(), shown.end(), [](const auto& s) { return s.run.Resume(); })) {
    PrintLine(stdout, kResumableNote);
  }
}

struct RunsArgs {
  std::string cwd;
  bool json = false;
};

int RunRuns(const RunsArgs& args) {
  const Result<std::string> dir = ProjectDir(args.cwd);
  if (!dir.ok()) return UsageError(dir.status());
  const std::string& project = *dir;
  const std::vector<tasks::RunListing> runs = tasks::ListRuns(PosixFileSystem(), project);
  const std::vector<ShownRun> shown = Shown(runs);
  const int64_t now = NowMillis();
  if (args.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const ShownRun& run : shown) out.push_back(RunJson(run, now));
    PrintJson(out);
    return 0;
  }
  if (runs.empty()) {
    PrintLine(stdout, "No Fusion runs under " + project + "/.pi/fusion");
    return 0;
  }
  PrintRuns(shown, now);
  return 0;
}

struct VerifyArgs {
  std::string run;
  std::string cwd;
};

int RunVerify(const VerifyArgs& args) {
  const Result<std::string> project = ProjectDir(args.cwd);
  if (!project.ok()) return UsageError(project.status());
  const Result<std::string> found = FindRunDir(args.run, *project);
  if (!found.ok()) return UsageError(found.status());
  const std::string& run_dir = *found;
  const tasks::RunCheck check = tasks::CheckRun(PosixFileSystem(), run_dir);
  const std::string id =
      check.manifest ? check.manifest->run_id : run_dir.substr(run_dir.find_last_of('/') + 1);
  if (check.problems.empty()) {
    PrintLine(stdout, id + ": intact (" + std::string(store::RunStateName(check.manifest->state)) +
                          ", " + std::to_string(check.manifest->artifacts.size()) +
                          " artifacts verified)");
    return 0;
  }
  PrintLine(stdout, id + ": " + std::to_string(check.problems.size()) + " problem" +
                        (check.problems.size() == 1 ? "" : "s") + " in " + run_dir);
  for (const std::string& problem : check.problems) PrintLine(stdout, "  " + problem);
  return 1;
}

struct PruneArgs {
  std::string cwd;
  std::string older_than;
  std::vector<std::string> states;
  bool yes = false;
};

// Deletes one run while holding its owner lock, so no owner can appear while it goes.
Status DeleteRun(const tasks::RunListing& run) {
  Result<std::unique_ptr<FileLock>> lock = store::AcquireOwnerLock(PosixFileSystem(), run.run_dir);
  if (!lock.ok()) return lock.status();
  std::error_code ec;
  std::filesystem::remove_all(run.run_dir, ec);  // never follows symlinks
  if (ec) return Status::Error(kIoError, "cannot delete " + run.run_dir + ": " + ec.message());
  // The session directory goes too once its last run is gone (rmdir fails while it is not empty).
  ::rmdir(std::filesystem::path(run.run_dir).parent_path().c_str());
  return Status();
}

// The states --state takes; a run in any other state is never pruned.
const std::vector<std::string> kPrunableStates = {"completed", "failed", "cancelled",
                                                  "interrupted"};

// A bad --state is a usage error (exit 2) that names the states it takes, like a bad
// --older-than; empty when every state is one of them.
std::string UnknownStateMessage(const std::vector<std::string>& states) {
  for (const std::string& state : states) {
    if (std::find(kPrunableStates.begin(), kPrunableStates.end(), state) != kPrunableStates.end()) {
      continue;
    }
    std::string allowed;
    for (const std::string& known : kPrunableStates) {
      allowed += (allowed.empty() ? "" : ", ") + known;
    }
    return "--state takes one of " + allowed + " (found \"" + state + "\")";
  }
  return "";
}

int RunPrune(const PruneArgs& args) {
  if (const std::string bad = UnknownStateMessage(args.states); !bad.empty()) {
    PrintOneLine(stderr, "error: " + std::string(kInvalidArguments) + ": " + bad);
    return 2;
  }
  tasks::PruneFilter filter;
  filter.states = args.states;
  if (!args.older_than.empty()) {
    Result<std::chrono::milliseconds> age = tasks::ParseAge(args.older_than);
    if (!age.ok()) {
      PrintLine(stderr, "error: " + age.status().code() + ": " + age.status().message());
      return 2;
    }
    filter.older_than = *age;
  }
  const Result<std::string> dir = ProjectDir(args.cwd);
  if (!dir.ok()) return UsageError(dir.status());
  const std::string& project = *dir;
  const int64_t now = NowMillis();
  const std::vector<tasks::RunListing> selected =
      tasks::SelectForPrune(tasks::ListRuns(PosixFileSystem(), project), filter, now);
  if (selected.empty()) {
    PrintLine(stdout, "Nothing to prune under " + project + "/.pi/fusion");
    return 0;
  }
  std::vector<std::vector<std::string>> rows = {kHeader};
  for (const ShownRun& run : Shown(selected)) rows.push_back(Row(run, now));
  PrintTable(rows);
  if (!args.yes) {
    std::printf("%zu run%s would be deleted. Run again with --yes to delete them.\n",
                selected.size(), selected.size() == 1 ? "" : "s");
    return 0;
  }
  int failures = 0;
  for (const tasks::RunListing& run : selected) {
    if (Status s = DeleteRun(run); !s.ok()) {
      PrintLine(stderr, "error: " + run.run_id + " not deleted: " + s.message());
      ++failures;
    }
  }
  std::printf("Deleted %zu run%s.\n", selected.size() - failures,
              selected.size() - failures == 1 ? "" : "s");
  return failures == 0 ? 0 : 1;
}

}  // namespace

void SetRunCallback(CLI::App* command, const std::string& run, int* exit_code,
                    std::function<int()> body) {
  command->callback([command, &run, exit_code, body = std::move(body)] {
    if (run.empty()) {
      std::fputs(command->help().c_str(), stderr);
      *exit_code = 2;
      return;
    }
    *exit_code = body();
  });
}

void AddRunsCommands(CLI::App& app, int* exit_code) {
  auto runs = std::make_shared<RunsArgs>();
  CLI::App* list = app.add_subcommand("runs", "List the Fusion runs of a project");
  list->add_option("--cwd", runs->cwd, "Project directory (default: the current directory)");
  list->add_flag("--json", runs->json, "Print a JSON array");
  list->callback([runs, exit_code] { *exit_code = RunRuns(*runs); });

  auto verify = std::make_shared<VerifyArgs>();
  CLI::App* check = app.add_subcommand(
      "verify", "Verify a run's artifacts byte for byte, as bg_result does (read-only)");
  check->add_option("run", verify->run,
                    "A run directory, or a run id under --cwd (a prefix, or the short id shown in "
                    "Pi, will do)");
  check->add_option("--cwd", verify->cwd, "Project directory (default: the current directory)");
  SetRunCallback(check, verify->run, exit_code, [verify] { return RunVerify(*verify); });

  auto prune = std::make_shared<PruneArgs>();
  CLI::App* clean =
      app.add_subcommand("prune", "Delete old finished runs (lists them; deletes only with --yes)");
  clean->add_option("--cwd", prune->cwd, "Project directory (default: the current directory)");
  clean->add_option("--older-than", prune->older_than,
                    "Only runs created at least this long ago, like 30d, 12h (default 30d)");
  clean->add_option("--state", prune->states,
                    "Only runs in this state: completed, failed, cancelled or interrupted "
                    "(repeatable)");
  clean->add_flag("--yes", prune->yes, "Delete the listed runs");
  clean->callback([prune, exit_code] { *exit_code = RunPrune(*prune); });
}

}  // namespace pi_fusion::cli
