// Research's declared sources that could not be fetched, made visible (issue "spend and trust,
// visible", item 5): a research answer whose sources failed is not a plain "completed".
//
// Each research candidate's verified audit log records every fetch of a declared source with its
// `url` and, when it failed, its `error_code` (docs/protocol.md). A declared source is failed when
// at least one candidate tried it and none fetched it; one failed source among several is still
// said (each has its own warning), and a source no candidate tried is not a fetch failure. The
// rows go into the result details (`source_failures`) and every view says them with
// SourceWarningLines: the TUI block, bg_result's text, print mode's stderr and json mode's entry.
//
// A research run in which no declared source was fetched at all (none tried, or every try failed
// or was refused) is flagged too (`no_source_fetched: true` in the details): its answer rests on
// the candidates' own knowledge, not on the sources the caller declared, and no view may show it
// as a plain "completed".
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "protocol/tool_audit.h"
#include "workflow/result_details.h"

namespace pi_fusion::run {

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
std::vector<workflow::SourceFailureRow> FailedSources(const std::vector<SourceFetch>& fetches);

// True when no fetch in `fetches` (every candidate's) fetched its declared source.
bool NoSourceFetched(const std::vector<SourceFetch>& fetches);

// The source warnings of result details (or any object holding its `source_failures` and
// `no_source_fetched` keys): one sentence per failed source,
//   "Warning: the declared source https://example.com/a could not be fetched (dns_failure); no
//    candidate read it."
// then, when no source was fetched, kNoSourceFetchedWarning. Malformed rows are skipped; empty
// for anything else.
std::vector<std::string> SourceWarningLines(const nlohmann::json& details);

// What a completed run's status adds: "1 declared source failed", "2 declared sources failed",
// "no declared source fetched" (which wins); empty when there is nothing to say.
std::string SourceWarningStatus(const nlohmann::json& details);

inline constexpr char kNoSourceFetchedWarning[] =
    "Warning: no declared source was fetched by any candidate; the answer rests on the "
    "candidates' own knowledge and the project's files, not on the declared sources.";

}  // namespace pi_fusion::run
