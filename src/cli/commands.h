// Subcommands of the pi-fusion executable. Each Add*Command registers its options and callback
// on `app`; the callback sets *exit_code. REQUIRES: exit_code outlives app.parse().
#pragma once

#include <CLI/CLI.hpp>

namespace pi_fusion::cli {

void AddChildRunCommand(CLI::App& app, int* exit_code);
void AddExtractCommand(CLI::App& app, int* exit_code);
void AddFetchCommand(CLI::App& app, int* exit_code);
// runs, verify and prune.
void AddRunsCommands(CLI::App& app, int* exit_code);

}  // namespace pi_fusion::cli
