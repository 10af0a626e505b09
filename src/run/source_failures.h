// Research's declared sources that could not be fetched, made visible (issue "spend and trust,
// visible", item 5): a research answer whose sources failed is not a plain "completed".
//
// Each research candidate's verified audit log records every fetch of a declared source with its
// `url` and, when it failed, its `error_code` (docs/protocol.md). A declared source is failed when
// at least one candidate tried it and none fetched it; one failed source among several is still
// said (each has its own warning), and a source no candidate tried is not a fetch failure. The
// rows go into the result details (`source_failures`) and every view says them with
// SourceFailureLines: the TUI block, bg_result's text, print mode's stderr and json mode's entry.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/tool_audit.h"
#include "workflow/result_details.h"

namespace pi_fusion::workflow {

// One fetch of a declared source by a candidate.
struct SourceFetch {
  std::string url;
  bool fetched = false;
  std::string code;  // the error code when it failed
};

// The fetches of declared sources in `records` (records with a provenance `url`), in order.
std::vector<SourceFetch> SourceFetchesOf(const std::vector<protocol::ToolCallRecord>& records);

// The sources tried and never fetched in `fetches` (every candidate's), ordered by URL, each with
// its first failed fetch's code.
std::vector<SourceFailureRow> FailedSources(const std::vector<SourceFetch>& fetches);

// One sentence per row of a `source_failures` JSON array (result details):
//   "Warning: the declared source https://example.com/a could not be fetched (dns_failure); no
//    candidate read it."
// Empty when it is absent, empty or not such an array.
std::vector<std::string> SourceFailureLines(const nlohmann::json& source_failures);

// "1 declared source failed", "2 declared sources failed": what a completed run's status adds.
std::string SourceFailureCount(size_t failed);

}  // namespace pi_fusion::workflow
