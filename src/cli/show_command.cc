// `pi-fusion show <run-id> [--cwd DIR] [--candidates] [--json]`: a run's verified answer, and with
// --candidates its verified candidate answers; for a run without an answer, what it has
// (docs/cli/show.md). The run is named as `verify` names it (run_lookup.h); what is read and said
// is run_show.h's; this file parses arguments and prints.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/run_lookup.h"
#include "cli/run_show.h"
#include "core/file_system.h"
#include "core/terminal_text.h"

namespace pi_fusion::cli {
namespace {

struct ShowArgs {
  std::string run;
  std::string cwd;
  bool candidates = false;
  bool json = false;
};

int RunShowCommand(const ShowArgs& args) {
  const Result<std::string> project = ProjectDir(args.cwd);
  if (!project.ok()) return UsageError(project.status());
  const Result<std::string> found = FindRunDir(args.run, *project);
  if (!found.ok()) return UsageError(found.status());
  const RunShow run = ReadRunShow(PosixFileSystem(), *found);
  if (!run.problems.empty()) std::fputs(NeutralizeControls(UnverifiedText(run)).c_str(), stderr);
  if (args.json) {
    PrintJson(ShowJson(run, args.candidates));
  } else if (run.problems.empty()) {
    // An answer is a run directory's text: its escape sequences are shown, never executed.
    std::fputs(NeutralizeControls(ShowText(run, args.candidates)).c_str(), stdout);
  }
  return ShowExitCode(run);
}

}  // namespace

void AddShowCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* show = app.add_subcommand(
      "show",
      "Print a run's verified answer (and candidate answers), or what a run without one has");
  show->add_option("run", args->run,
                   "A run id under --cwd (a prefix, or the short id shown in Pi, will do), or a "
                   "run directory");
  show->add_option("--cwd", args->cwd, "Project directory (default: the current directory)");
  show->add_flag("--candidates", args->candidates,
                 "Also print each verified candidate answer with its slot and model");
  show->add_flag("--json", args->json, "Print one JSON object");
  SetRunCallback(show, args->run, exit_code, [args] { return RunShowCommand(*args); });
}

}  // namespace pi_fusion::cli
