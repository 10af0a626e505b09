// The citation check of a completed investigate, research or validate run (docs/citations.md):
// every `path:line` its candidate answers, its answer and its findings' locations cite is
// resolved against the project as it is when the run ends, through the walls the candidates'
// file tools had (child/core/file_wall.h: the same FileWall, the same places, so a protected path
// is "not checkable" and never read), and the broken ones are listed.
//
// The record (result details and manifest `citations`):
//   {"checked": N, "broken": [{"ref", "reason": missing_file|past_end|quote_not_found|
//    not_checkable, "detail", "in": ["candidate 2", "answer", "finding A-F001", …]}],
//    "files": [{"path", "sha256", "lines", "changed_during_run"}], "unchecked": M (when > 0)}
// `files` holds each cited file that was read: the hash of the bytes read, so a later reader can
// tell that the file is no longer the one checked; `changed_during_run` when it was modified
// after the run started (its broken citations say so too).
//
// Bounded: at most kMaxCitationsChecked distinct citations per run (the rest are counted in
// `unchecked`), kMaxCitedFileBytes read per file (a line past them is not_checkable) and
// kMaxCitedBytesPerRun read in all (a file cited after that is not_checkable).
//
// Thread-safety: none needed; the run's own thread calls it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pi_fusion::run {

inline constexpr size_t kMaxCitationsChecked = 500;
inline constexpr size_t kMaxCitedFileBytes = size_t{4} << 20;
inline constexpr size_t kMaxCitedBytesPerRun = size_t{64} << 20;

// One text whose citations are checked, and where it is from ("candidate 2", "answer",
// "finding A-F001").
struct CitedText {
  std::string where;
  std::string text;
};

struct CitationCheckInput {
  std::string cwd;          // the project: what candidates could read
  std::string home;         // as the candidates resolved "~"
  std::string agent_dir;    // Pi's agent directory (protected)
  std::string session_dir;  // the parent's session directory (protected; PI_FUSION_SESSION_DIR)
  std::vector<std::string> environment;  // "NAME=value" of the host, as the children inherit it
  // When the run started (ms since the epoch): a file modified later changed during the run.
  std::optional<int64_t> started_unix_ms;
  std::vector<CitedText> texts;
};

// The record above. Never fails: a file that cannot be read makes its citations not_checkable.
nlohmann::json CheckCitations(const CitationCheckInput& input);

}  // namespace pi_fusion::run
