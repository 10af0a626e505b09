// What this project's earlier runs used, per role and route: the evidence the cost estimate's
// expected figures come from once there is enough of it (budget/cost_forecast.h, ObservedTokens).
//
// A sample is one earlier completed run of the same workflow in the same project (<cwd>/.pi/fusion)
// in which a role ran a child of its own on a route: a candidate's first attempt (every candidate
// slot on the route counts as a sample of "a candidate on that route"), the evaluation's first
// attempt (the evaluator), the merge (the merger). Its tokens are the attempt's usage: input with
// cache reads and writes, and output, summed over every model request the child made (so a
// tool-using candidate's many turns are in it). Reused attempts (no child ran) and attempts without
// usage are no samples. The newest kHistoryMaxRuns runs are read; a role and route with samples
// from at least kHistoryMinRuns runs gets the median of each figure.
//
// An estimate only: the manifests are read as they are (a planted manifest can move an estimate,
// never a cap, which binds measured spend) and nothing is verified by hash.
//
// Thread-safe (reads only).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "budget/cost_forecast.h"
#include "core/file_system.h"
#include "store/manifest.h"

namespace pi_fusion::run {

// One role's use of one route in one earlier run.
struct RoleSample {
  std::string run_id;      // the run it is of
  bool candidate = false;  // else `stage` names the role
  Stage stage = Stage::kCandidate;
  std::string route;  // "provider/model"
  int64_t input = 0;
  int64_t output = 0;
};

// The samples of one completed manifest (none for any other state).
std::vector<RoleSample> SamplesOf(const store::Manifest& manifest);

// Per route role (kAllSlots order, routes given as "provider/model"): the median of the
// matching samples, when they come from at least budget::kHistoryMinRuns runs (ObservedTokens::runs
// counts those runs). Pure.
budget::ObservedRoles ObservedFrom(const std::vector<RoleSample>& samples,
                                   const std::array<std::string, 5>& routes);

// The newest budget::kHistoryMaxRuns completed runs of `workflow` under <cwd>/.pi/fusion, read
// for ObservedFrom. Unreadable directories and manifests are skipped.
std::vector<RoleSample> ProjectSamples(FileSystem& fs, const std::string& cwd,
                                       std::string_view workflow);

}  // namespace pi_fusion::run
