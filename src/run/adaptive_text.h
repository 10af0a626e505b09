// An adaptive run said in every view (fusion-models.json `policy.panel: "adaptive"`): the one
// sentence built here from the `adaptive` record of its result details or manifest
// (store/manifest.h AdaptiveRecord) — the TUI block, bg_result's text, print mode's stderr (the
// run's progress note), and the run lists. An adaptive run whose candidates agreed answered from
// two candidates by design: it is labelled adaptive, never degraded.
//
// Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pi_fusion::run {

// "Adaptive: 2 of 3 asked: candidates 1 and 2 agreed (agreement check, $0.0021)." /
// "…agreed (identical answers, no check)." / "Adaptive: 3 of 3 asked: candidates 1 and 2 did not
// agree (2 differences), so candidate 3 was asked." "" when `adaptive` is not such a record.
std::string AdaptiveSentence(const nlohmann::json& adaptive);

// The run lists' word for it: "adaptive (2 of 3 asked)" or "adaptive (3 of 3 asked)"; "" when
// `adaptive` is not such a record.
std::string AdaptiveStatus(const nlohmann::json& adaptive);

}  // namespace pi_fusion::run
