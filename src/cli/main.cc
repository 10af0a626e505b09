// pi-fusion: Fusion's command-line tool. Subcommands live in *_command.cc files and register
// themselves through the Add*Command functions of commands.h.
#include <cstdio>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "pi-fusion: Fusion's helper tool (fetch, extract, runs, show, report, verify, prune) for the "
      "Pi "
      "coding "
      "agent"};
  app.set_version_flag("--version", "pi-fusion 0.1.0");
  app.require_subcommand(1);
  int exit_code = 0;
  // Subcommands: add one line per command here.
  pi_fusion::cli::AddChildRunCommand(app, &exit_code);
  pi_fusion::cli::AddExtractCommand(app, &exit_code);
  pi_fusion::cli::AddFetchCommand(app, &exit_code);
  pi_fusion::cli::AddRunsCommands(app, &exit_code);
  pi_fusion::cli::AddReportCommand(app, &exit_code);
  pi_fusion::cli::AddShowCommand(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return exit_code;
}
