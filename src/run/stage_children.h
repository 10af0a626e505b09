// The stage children of a run after preflight, as its sequences start them: each one's command
// (its system prompt, its input, its signs of life while it runs) and the start of the candidate
// stage both sequences share, which arms the evaluator and the merger to start warm.
//
// The child builders only read the context: CandidateChild runs on candidate and reviewer threads
// too. StartCandidateStage runs on the run's own thread.
#pragma once

#include <string>

#include "run/child_stage.h"
#include "run/run_context.h"

namespace pi_fusion::run {

// Whether the run's evaluator has tools (policy.evaluator_tools on an investigate, research or
// validate run): its attempt 1 then runs with the candidates' tools, and the evaluation is v2.
bool EvaluatorTools(const RunContext& ctx);

// The later stages' system prompts: final before any candidate ends (they do not depend on the
// candidates' answers).
std::string EvaluatorPrompt(const RunContext& ctx);
std::string RepairPrompt(const RunContext& ctx);
std::string MergerPrompt(const RunContext& ctx);

// Candidate (or reviewer) `slot`, with its share of a capped run's cost cap.
StageChild CandidateChild(const RunContext& ctx, int slot);
// An order-check call (order_stage.h) at `attempt` of the order_check stage, on the evaluator's
// route; measured against the repair's budget (its input is the candidates and the conflicts).
StageChild OrderCheckChild(const RunContext& ctx, int attempt, std::string system_prompt,
                           std::string input);

// The evaluator (attempt 1; with the candidates' tools under EvaluatorTools) or its repair
// (attempt 2, never with tools).
StageChild EvaluatorChild(const RunContext& ctx, int attempt, std::string system_prompt,
                          std::string input);
StageChild MergerChild(const RunContext& ctx, std::string system_prompt, std::string input);
// An adaptive run's agreement check (attempt 1) or its repair (attempt 2), on the evaluator's
// route (agreement_stage.h).
StageChild AgreementChild(const RunContext& ctx, int attempt, std::string system_prompt,
                          std::string input);

// The run enters candidates_running and says so; the evaluator and the merger are armed to start
// warm once the candidates are past their start-up, and a capped run's candidates get their
// shares. False once a failure to record the transition is recorded as the run's.
bool StartCandidateStage(RunContext& ctx);

}  // namespace pi_fusion::run
