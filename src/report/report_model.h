// Everything the HTML run report shows (docs/cli/report.md), gathered from one run directory into
// plain values. The report is built only from verified artifacts: every artifact the manifest
// binds is re-read and checked against its ref (store::VerifyArtifact), and only bytes that
// verified are ever read as content; one that fails is listed as failed and its content is left
// out. manifest.json is the root the refs hang from and is parsed strictly.
//
// ReadReportModel reads through the FileSystem seam and writes nothing (no usage claim, no lock,
// no finalization of an interrupted run). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "run/tool_call_list.h"
#include "store/usage.h"

namespace pi_fusion::report {

// Caps that bound the report's size (docs/cli/report.md, "Size"): what is past them is counted.
inline constexpr size_t kReportCallsMax = 100;   // tool calls listed per candidate
inline constexpr size_t kReportSourcesMax = 50;  // fetched sources listed per candidate

struct ArtifactRow {
  std::string name;
  uint64_t byte_length = 0;  // as the manifest records it
  std::string sha256;        // as the manifest records it
  bool verified = false;     // re-read now and equal to its ref
  std::string problem;       // why not ("" when verified)
};

struct FetchedSource {
  std::string url;      // the final URL (the requested one when there was no redirect)
  std::string outcome;  // "200", "refused", an error code
  uint64_t bytes = 0;   // response bytes
};

struct CandidateReport {
  int slot = 0;          // 1..3
  std::string letter;    // "A", "B", "C" as the evaluator saw it; "" before the map was drawn
  std::string model;     // "provider/model"
  std::string thinking;  // the thinking level its child ran with
  std::string state;     // its last attempt's state; "not started" without one
  int attempts = 0;
  std::optional<int64_t> duration_ms;     // its last attempt's start to its end
  std::optional<store::Usage> usage;      // summed over its attempts
  std::string reused_from;                // a resumed run's candidate copied from that run
  std::vector<run::ShownToolCall> calls;  // the first kReportCallsMax
  size_t calls_total = 0;
  size_t refusals = 0;                 // calls that were refused or failed
  int64_t tool_ms = 0;                 // the summed duration_ms of its calls
  std::vector<FetchedSource> sources;  // the first kReportSourcesMax
  size_t sources_total = 0;
  std::optional<std::string> answer;  // its verified answer
  std::string answer_note;            // why there is none ("" when there is)
};

// One tool call on a lane, from its journal record's started_at and duration_ms.
struct TimelineCall {
  int64_t start_ms = 0;  // since the run's created_at
  int64_t duration_ms = 0;
  bool refused = false;  // status "error": refused, invalid, unknown, or the tool failed

  bool operator==(const TimelineCall&) const = default;
};

// One child on the timeline. Times are milliseconds since the run's created_at.
struct TimelineLane {
  std::string label;  // "candidate 2", "evaluator", "repair", "merger", "warm merger"
  std::string role;   // candidate | evaluator | repair | merger (the lane's colour)
  int64_t start_ms = 0;
  std::optional<int64_t> end_ms;  // when its attempt ended (its verified answer, or failure)
  std::string end_state;          // completed | failed | cancelled | running | unused | replaced
  size_t tool_calls = 0;
  int64_t tool_ms = 0;  // the summed duration_ms of its calls
  // Drawn only when the run recorded them (manifests and journals written before these fields
  // have none): the attempt's first_output_at, its exit's exited_at and how it exited, and the
  // journal records that carry a started_at.
  std::optional<int64_t> first_output_ms;
  std::optional<int64_t> exit_ms;
  std::string exit_note;  // "exit code 0", "signal 9 (stopped: after_answer)"
  std::vector<TimelineCall> calls;
};

// The quorum's grace window: from the second verified candidate answer to the cut.
struct GraceWindow {
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int cut_slot = 0;  // the candidate left out
};

struct RoleCost {
  std::string label;  // as the lane's
  std::string role;
  uint64_t tokens = 0;
  double cost_usd = 0;
};

struct ReportModel {
  std::string run_id;
  std::string workflow;
  std::string state;  // the manifest's, "interrupted" or "unreadable"
  std::string created_at;
  std::string updated_at;
  std::vector<std::string> notices;   // what a reader must know first: failed, degraded, …
  std::vector<std::string> problems;  // what failed verification (the run as `verify` sees it)
  nlohmann::json request;             // canonical-input.json `request`; null when unverified
  std::optional<std::string> merged;  // the verified merged answer
  std::vector<CandidateReport> candidates;
  nlohmann::json evaluation;  // the verified evaluation.json; null when none
  nlohmann::json citations;   // result details `citations`; null when not recorded
  nlohmann::json warnings;    // result details `warnings`; null when none
  std::vector<TimelineLane> lanes;
  std::optional<GraceWindow> grace;
  int64_t span_ms = 0;  // the timeline's length
  std::vector<RoleCost> costs;
  std::optional<store::Usage> total_usage;
  std::vector<ArtifactRow> artifacts;
};

// The run in `run_dir`, verified artifact by artifact.
ReportModel ReadReportModel(FileSystem& fs, const std::string& run_dir);

}  // namespace pi_fusion::report
