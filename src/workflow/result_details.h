// The `details` object of a completed run, `pi-background-tasks.fusion-result.v6`
// (schemas/artifacts/fusion-result.v6.json; docs/workflow.md, "Result details"). The store wraps
// it in fusion-committed-result.v1 together with the merged answer.
//
//   {"anonymous_map":{"A":2,"B":1,"C":3},
//    "artifacts":{"<name>":{"byte_length":…,"path":…,"sha256":"sha256:<hex>"},…},
//    "attempts":{"candidate":3,"evaluation":1,"evaluation_repair":0,"merge":1,"total":5},
//    "models":{"candidates":["p/m","p/m","p/m"],"evaluator":"p/m","merger":"p/m",
//              "thinking_level":"high"},
//    "run_id":"reason-<32 hex>","schema_version":"pi-background-tasks.fusion-result.v6",
//    "usage":{…Pi Usage totals…},"model_requests":8,
//    "usage_by_role":[{"role":"candidate","slot":1,"model":"p/m","attempts":1,"requests":2,
//                      "usage":{…}},…,{"role":"merger",…}],"warnings":[{"kind":"budget","message":…,"stage":"merge"}],
//    "tool_refusals":[{"by_code":{"path_outside_project":2},"count":2,"slot":2}],
//    "workflow":"reason"}
// plus "child_wrapper":"<absolute path>" (and a warning of kind child_wrapper) for a run whose
// children ran through PI_FUSION_CHILD_WRAPPER (workflow/child_wrapper.h).
//
// research runs whose declared sources failed to fetch add
// "source_failures":[{"code":"dns_failure","url":"https://…"}] (run/source_failures.h).
//
// validate runs add "dropped_reviewers":[{"code":…,"message":…,"slot":2}] (the reviewer left out
// under the minority rule; [] when none).
//
// A quorum-2 run that answered from two candidates adds "degraded":{"slot":3,"model":"p/m",
// "reason":"failed"|"cut_after_grace","code":"child_exit_failed"|null,"grace_seconds":N|null},
// the manifest's record (store/manifest.h DegradedRecord).
//
// A resumed run adds "resumed_from":"<run id>", the run whose verified stages it reused.
//
// Every run the commit judged adds "agreement":{"agreements":N,"conflicts":M,"panel":
// "one_model"|"one_family"|"distinct"}; investigate, research and validate add "citations":
// {"checked":N,"broken":[{"ref","reason","detail","in"}],"files":[…],"unchecked"?}
// (docs/citations.md).
//
// A run whose evaluator had tools (policy.evaluator_tools) adds "checked_claims":[{"claim",
// "verdict":"supported"|"refuted"|"unclear","evidence":["path:line",…]}], its evaluation's
// (fusion-evaluation.v2) list as it is.
//
// Pure; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "workflow/anonymize.h"

namespace pi_fusion::workflow {

// Resolved routes as "provider/model"; slot i of `candidates` is candidate slot i + 1.
struct ModelsUsed {
  std::array<std::string, 3> candidates;
  std::string evaluator;
  std::string merger;
  std::string thinking_level;  // the parent's level every child used, e.g. "high" or "off"
};

// Child processes the run started, per stage (spawn retries included). total is derived.
struct AttemptCounts {
  int candidate = 0;
  int evaluation = 0;
  int evaluation_repair = 0;  // 0 or 1
  int merge = 0;
};

// A reference to a run artifact, as the store recorded it.
struct ResultArtifact {
  std::string name;  // key in `artifacts`, e.g. "merged.md"
  std::string path;  // relative to the run directory
  uint64_t byte_length = 0;
  std::string sha256;  // "sha256:<64 lowercase hex>"
};

struct ResultWarning {
  std::string kind;                  // "budget" | "calibration" | "child_wrapper"
  std::optional<std::string> stage;  // "candidate" | "evaluation" | "evaluation_repair" | "merge"
  std::string message;               // non-empty, e.g. the progress line's text
};

// A candidate whose file-tool calls the child's walls refused (audit records with status "error"
// and a path_* error_code), counted over its verified audit logs.
struct ToolRefusalRow {
  int slot = 0;                            // 1..3
  std::map<std::string, int64_t> by_code;  // error_code -> calls, every count >= 1
};

// research: a declared source that no candidate fetched, though at least one tried: its canonical
// URL and the error code of its first failed fetch.
struct SourceFailureRow {
  std::string url;
  std::string code;
};

// A validate reviewer dropped under the minority rule: its slot and why.
struct DroppedReviewerRow {
  int slot = 0;  // 1..3
  std::string code;
  std::string message;
};

struct ResultDetailsInput {
  std::string run_id;    // ^(reason|investigate|research|validate)-[0-9a-f]{32}$
  std::string workflow;  // must match the run id's prefix
  ModelsUsed models;
  AnonymousMap anonymous_map;
  // Cumulative Pi Usage of every attempt: input, output, cacheRead, cacheWrite, totalTokens,
  // cost{input, output, cacheRead, cacheWrite, total[, totalFromProvider]}, optional
  // cacheWrite1h and reasoning. Copied verbatim; no other keys allowed.
  nlohmann::json usage;
  // store::UsageByRoleJson of the manifest: usage, cost and model requests per role. Written as
  // `usage_by_role` when it is an array (rows checked as the store writes them).
  nlohmann::json usage_by_role;
  // The run's model requests (store::ModelRequests): `model_requests`, when known.
  std::optional<uint64_t> model_requests;
  AttemptCounts attempts;
  std::vector<ResultArtifact> artifacts;      // names unique
  std::vector<ResultWarning> warnings;        // in the order they were raised
  std::vector<ToolRefusalRow> tool_refusals;  // candidates with a refusal, by slot
  // validate only: written as `dropped_reviewers` (at most one row); absent for other workflows.
  std::optional<std::vector<DroppedReviewerRow>> dropped_reviewers;
  // A degraded run's `degraded` object (store::DegradedToJson); null: no key.
  nlohmann::json degraded;
  // An adaptive run's `adaptive` object (store::AdaptiveToJson); null: no key.
  nlohmann::json adaptive;
  // A resumed run: the id of the run it resumed (/fusion-resume); none: no key.
  std::optional<std::string> resumed_from;
  // research: written as `source_failures` when not empty (absent otherwise), ordered by URL.
  std::vector<SourceFailureRow> source_failures;
  // research: no declared source was fetched by any candidate; written as
  // `no_source_fetched: true` when set (absent otherwise).
  bool no_source_fetched = false;
  // The run's cost estimate from preflight (budget::EstimateSummaryJson), so every completed view
  // can show the bill beside it: `estimate`; null: no key.
  nlohmann::json estimate;
  // PI_FUSION_CHILD_WRAPPER the children ran through (absolute); empty: none, and no key.
  std::string child_wrapper;
  // The citation check (run/citation_check.h; investigate, research, validate): `citations`;
  // null: no key (reason runs).
  nlohmann::json citations;
  // The panel's agreement (run/judgment_text.h): `agreement`; null: no key.
  nlohmann::json agreement;
  // The order check's record (store::IsOrderCheckRecord): `order_check`; null: no key (the check
  // was off, or the evaluation had no conflicts).
  nlohmann::json order_check;
  // The evaluation's checked_claims (fusion-evaluation.v2): `checked_claims`; null: no key.
  nlohmann::json checked_claims;
};

// The `tool_refusals` JSON of `rows`: [{slot, count (the sum of by_code), by_code}].
nlohmann::json ToolRefusalsJson(const std::vector<ToolRefusalRow>& rows);

// Builds the details object; orchestration_failed names the first field that breaks the shape.
Result<nlohmann::json> BuildResultDetails(const ResultDetailsInput& input);

}  // namespace pi_fusion::workflow
