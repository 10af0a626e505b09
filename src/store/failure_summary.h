// failure-summary.json (pi-background-tasks.fusion-failure-summary.v1): what a failed or
// cancelled run achieved, as evidence metadata, never as an answer.
//
// Built only from a terminal manifest, so it can contain nothing the manifest does not: no
// candidate, evaluator or merger response text, no partial output, no tool results, no fetched
// content. Response bytes are only referenced by the manifest-bound evidence refs. The summary
// never hashes manifest.json (the manifest binds the summary, not the other way round).
//
//   answer            {present:false, reason:"run_did_not_commit"}: the closed no-answer assertion
//   terminal_error    {code, message (<= kTerminalMessageMaxBytes), message_bytes, stage, slot,
//                      attempt}
//   progress          children_started plus per stage {attempts, completed, failed, cancelled,
//                      interrupted, not_started}, counted per slot by its latest attempt
//   usage             the cumulative Pi Usage of every attempt
//   usage_by_role     usage, cost and model requests per role (store/role_usage.h)
//   model_requests    the model requests of every attempt, or null when a count is unknown
//   attempts          <= kSummaryMaxAttempts rows {stage, slot, attempt, state, started_at,
//                      ended_at, error_code, total_tokens, cost_total}; the oldest are omitted
//   evidence          <= kSummaryMaxEvidence manifest refs, by name
//   classifications   {failure_class, cancelled, before_any_child}
//   remediation_ids   stable identifiers of what to do next (docs/artifacts.md lists them)
//   omitted           {attempts, evidence, terminal_message_bytes}: what the caps removed
//
// Schema: schemas/artifacts/fusion-failure-summary.v1.json. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "store/manifest.h"

namespace pi_fusion::store {

// The summary of `terminal`, stamped `created_at`.
// REQUIRES: terminal.state is failed or cancelled.
nlohmann::json BuildFailureSummary(const Manifest& terminal, const std::string& created_at);

// The summary's `progress`: children_started plus, per stage (candidates, evaluation, merge),
// {attempts, completed, failed, cancelled, interrupted, not_started} counted per slot by its
// latest attempt. Failure notices state the same facts.
nlohmann::json FailureProgress(const Manifest& m);

// The summary's `model_requests`: ModelRequests(m), or null when unknown.
nlohmann::json RequestsJson(const Manifest& m);

// The remediation ids for an error code in a failed or cancelled run. A `resumable` run
// (CheckResumable) gets resume_run instead of retry_run, and resume_run last when the code's ids
// hold no retry_run.
std::vector<std::string> RemediationIds(std::string_view code, bool cancelled,
                                        bool resumable = false);

// The failure class of an error code ("budget", "child_process", ...).
std::string_view FailureClass(std::string_view code);

// Checks that a parsed summary belongs to `manifest` and keeps the no-answer assertion: the
// schema id, run_id, workflow and state, answer.present == false, and the top-level key set.
// kArtifactError "failure-summary.json …" otherwise.
Status CheckFailureSummary(const nlohmann::json& summary, const Manifest& manifest);

}  // namespace pi_fusion::store
