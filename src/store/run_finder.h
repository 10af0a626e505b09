// The one walk of a project's run store: every reader that looks a run up by id, lists a
// project's runs or samples its earlier runs starts here (bg_result and bg_status for runs of
// earlier Pi processes, the session views, `pi-fusion runs` and `verify`, the cost history).
//
//   <cwd>/.pi/fusion/<session-dir>/<run-id>/
//
// Only names that are valid run ids (run_id.h) and are directories count; nothing is read
// inside them, so a run whose manifest is broken is still found (and reported by its reader).
// Read-only; thread-safe as far as `fs` is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/file_system.h"

namespace pi_fusion::store {

struct FoundRun {
  std::string run_id;  // the directory's name
  std::string dir;     // its path
};

// Every run directory of the project at `cwd`, in the file system's listing order; empty when
// the project has no run store.
std::vector<FoundRun> FindRuns(FileSystem& fs, const std::string& cwd);

// The runs `query` names (RunIdMatches: the id, a prefix of it or its short form): the one whose
// id is `query` when there is one, else every match. Empty for an empty query.
std::vector<FoundRun> RunsNamed(std::vector<FoundRun> runs, std::string_view query);

}  // namespace pi_fusion::store
