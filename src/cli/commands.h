// Subcommands of the pi-fusion executable. Each Add*Command registers its options and callback
// on `app`; the callback sets *exit_code. REQUIRES: exit_code outlives app.parse().
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace pi_fusion::cli {

void AddChildRunCommand(CLI::App& app, int* exit_code);
void AddExtractCommand(CLI::App& app, int* exit_code);
void AddFetchCommand(CLI::App& app, int* exit_code);
// runs, verify and prune.
void AddRunsCommands(CLI::App& app, int* exit_code);
void AddReportCommand(CLI::App& app, int* exit_code);
void AddShowCommand(CLI::App& app, int* exit_code);

// The callback of a command that names one run (verify, show, report): with no run named, the
// command's usage on stderr and exit status 2 (what to name, not a parser's message); else
// *exit_code = body(). REQUIRES: `run` (the option's variable) lives as long as `command`.
void SetRunCallback(CLI::App* command, const std::string& run, int* exit_code,
                    std::function<int()> body);

}  // namespace pi_fusion::cli
