// Every stable error code a Status can carry, spelled once. A user or a program sees these as
// Status::code() (and as a JS Error's `.code`); the layer that produces a code names it from here
// rather than writing the literal, so a code cannot drift between producer, checker and test.
#pragma once

namespace pi_fusion {

// The spec's codes (spec/CONTRACTS.md, "Error codes").
inline constexpr char kConfigInvalid[] = "config_invalid";
inline constexpr char kConfigConflict[] = "config_conflict";
inline constexpr char kModelUnavailable[] = "model_unavailable";
inline constexpr char kContextCaptureFailed[] = "context_capture_failed";
inline constexpr char kContextPolicyUnsupportedBlock[] = "context_policy_unsupported_block";
inline constexpr char kPromptBudgetExceededForecast[] = "prompt_budget_exceeded_forecast";
inline constexpr char kPromptBudgetExceededMeasured[] = "prompt_budget_exceeded_measured";
inline constexpr char kModelCapacityUnknown[] = "model_capacity_unknown";
inline constexpr char kChildSpawnFailed[] = "child_spawn_failed";
inline constexpr char kChildStdinFailed[] = "child_stdin_failed";
inline constexpr char kChildEventInvalid[] = "child_event_invalid";
inline constexpr char kChildExitFailed[] = "child_exit_failed";
inline constexpr char kChildRuntimeLimitExceeded[] = "child_runtime_limit_exceeded";
inline constexpr char kChildRuntimePayloadInvalid[] = "child_runtime_payload_invalid";
inline constexpr char kChildCachePolicyInvalid[] = "child_cache_policy_invalid";
inline constexpr char kChildTimeout[] = "child_timeout";
inline constexpr char kChildOutputCap[] = "child_output_cap";
inline constexpr char kChildCancelled[] = "child_cancelled";
inline constexpr char kEvaluationInvalid[] = "evaluation_invalid";
// Any artifact write or verification failure.
inline constexpr char kArtifactError[] = "artifact_error";
inline constexpr char kStateTransitionInvalid[] = "state_transition_invalid";
inline constexpr char kOrchestrationFailed[] = "orchestration_failed";

// The workflows' codes (seed-fusion-subsystem.md).
// A tool-enabled child's audit log or seal is missing, malformed, not bound, over a cap, or shows
// an executed tool outside the workflow's allowlist. Fatal in every workflow.
inline constexpr char kToolAuditInvalid[] = "tool_audit_invalid";
inline constexpr char kValidationReportsInvalid[] = "validation_reports_invalid";

// Tool arguments that break a tool's contract (the schema layer's texts).
inline constexpr char kInvalidArguments[] = "invalid_arguments";
// A run whose owning host process ended before the run did, finalized by a later host.
inline constexpr char kHostEnded[] = "host_ended";
// The kernel could not supply random bytes (a run cannot start without them).
inline constexpr char kRandomUnavailable[] = "random_unavailable";
// The run's expected cost (preflight) or its measured spend plus the expected cost of the stages
// still to run (before each later stage) exceeds fusion-models.json's policy.max_cost_usd.
inline constexpr char kCostCapExceeded[] = "cost_cap_exceeded";
// /fusion-resume refused: the run completed, still runs, has no verified candidate answer, its
// files fail verification, or its routes are no longer admitted (the message says which).
inline constexpr char kRunNotResumable[] = "run_not_resumable";
// A stage child made no progress (no output, no tool call, no model-stream event) for the
// policy's stall_seconds (fusion-models.v3; the default rule otherwise); the message names the
// slot, the model and the seconds.
inline constexpr char kChildStalled[] = "child_stalled";

// The fetcher's codes (seed-fusion_research.md, "Fetch hygiene"): `pi-fusion fetch` reports them,
// fusion_web_fetch hands them to the research candidate as `<code>: <message>`.
inline constexpr char kInvalidUrl[] = "invalid_url";
inline constexpr char kUnsupportedScheme[] = "unsupported_scheme";
inline constexpr char kBlockedAddress[] = "blocked_address";
inline constexpr char kDnsFailure[] = "dns_failure";
inline constexpr char kRedirectLimit[] = "redirect_limit";
inline constexpr char kRedirectBlocked[] = "redirect_blocked";
inline constexpr char kResponseTooLarge[] = "response_too_large";
inline constexpr char kUnsupportedContentType[] = "unsupported_content_type";
inline constexpr char kRequestTimeout[] = "request_timeout";
inline constexpr char kNetworkError[] = "network_error";
inline constexpr char kExtractionFailed[] = "extraction_failed";
inline constexpr char kHttpError[] = "http_error";
// `pi-fusion fetch` itself: a malformed --stdio request line, a bad command-line argument, and a
// failure of the process's own setup (its resource limits).
inline constexpr char kInvalidRequest[] = "invalid_request";
inline constexpr char kInvalidArgument[] = "invalid_argument";
inline constexpr char kInternalError[] = "internal_error";
// A run's source-policy file (the declared URLs a research child may fetch) is unreadable or wrong.
inline constexpr char kSourcePolicyInvalid[] = "source_policy_invalid";
// fusion_web_fetch in a research child: a URL the run did not declare (no request made), a fetch
// past the attempt's cap, and a fetcher process that ended without a well-formed answer.
inline constexpr char kSourceNotDeclared[] = "source_not_declared";
inline constexpr char kFetchLimitExceeded[] = "fetch_limit_exceeded";
inline constexpr char kFetchProcessFailed[] = "fetch_process_failed";

// A file the CLI reads or writes failed; also the file-system seam's code for any errno without a
// code of its own (core/file_system.h kFsIoError).
inline constexpr char kIoError[] = "io_error";

}  // namespace pi_fusion
