// The walking half of the candidates' grep and find: the ripgrep and fd command lines (Pi's own
// flags, plus exclusions of the protected places so the walk does not even enter them), and the
// reading of their output. What a walk lists is filtered again through FileWall::HiddenInWalk,
// which is the wall; the exclusions only spare the walk the work.
//
// The command lines follow Pi 1.6's grep and find tools (docs/tools/fusion_investigate.md), so a
// candidate sees the shapes Pi's own tools give. Pure code; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pi_fusion::child {

// The grep tool's arguments, as the model sent them (Pi validated their types).
struct GrepRequest {
  std::string pattern;
  std::optional<std::string> glob;
  bool ignore_case = false;
  bool literal = false;
  int64_t context = 0;  // already clamped to >= 0
};

// rg's arguments (without the executable) for a search that runs in the searched directory and
// searches "." (`target` = "."), or a single file reached through `target`.
std::vector<std::string> RipgrepArgs(const GrepRequest& request, const std::string& target);

// One match or context line of `rg --json`.
struct RipgrepLine {
  std::string path;  // as rg printed it ("./src/a.c" for a directory search)
  int64_t line_number = 0;
  std::string text;  // the line with its terminator
  bool match = false;
};
// The match and context events of rg's JSON-lines output; other and malformed lines are skipped,
// and so is a last line cut short by the output cap.
std::vector<RipgrepLine> ParseRipgrepJson(std::string_view output);

// fd's arguments for a find that runs in the searched directory `real_dir` (its real path, which
// fd's --full-path matching sees) without a path argument. Unlike Pi, never `--no-require-git`:
// Debian 12's fd 8.6 does not know it (outside a git repository .gitignore files then do not
// apply, as in fd's default).
std::vector<std::string> FdArgs(std::string_view pattern, const std::string& real_dir);

// The lines fd printed, without empty ones, a trailing "\r" or a leading "./".
std::vector<std::string> FdLines(std::string_view output);

// The first of `names` found as an executable in `agent_bin` (where Pi downloads its tools), then
// in the directories of `path_var`; empty when none is.
std::string FindExecutable(const std::vector<std::string>& names, const std::string& agent_bin,
                           std::string_view path_var);

}  // namespace pi_fusion::child
