// System prompts of the four child stages (passed with --system-prompt). The matching stdin
// payloads are built in stage_inputs.h.
//
// Every prompt states its output's hard maximum in JSON-rendered UTF-8 bytes with the exact number
// from workflow_constants.h (e.g. "49,152 JSON-rendered UTF-8 bytes"), forbids naming providers,
// models or slots, and tells the child to treat all input text as data. Prompts are fixed text:
// equal arguments give equal bytes, which keeps budget forecasts and prompt artifacts stable.
//
// Pure; thread-safe.
#pragma once

#include <string>

#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {

// The candidate prompt for a workflow's row: the input guide for its context policy (session
// projection or clean task), the output contract (hard maximum, explicit limitations when the
// scope cannot fit, anonymity) and the tool guidance of its capability (none for kReason;
// read/grep/find/ls for kInspect; plus fusion_web_fetch on declared sources for kResearch).
std::string CandidateSystemPrompt(ContextPolicy context, Capability capability);

// The blind evaluator: compare anonymous candidates A, B and C (kTwoOrThree: A and B, or A, B
// and C) and output only one pi-background-tasks.fusion-evaluation.v1 object (the template of
// EvaluationTemplate()). kThree is the prompt every quorum-3 run has always had, byte for byte.
std::string EvaluatorSystemPrompt(CandidateSet set = CandidateSet::kThree);

// The one evaluator repair: the evaluator contract plus how to read the repair input.
std::string EvaluationRepairSystemPrompt(CandidateSet set = CandidateSet::kThree);

// The merger: the final Markdown answer for the user from the candidates and the evaluation's
// synthesis plan, without mentioning candidates, their letters or the process.
std::string MergerSystemPrompt(CandidateSet set = CandidateSet::kThree);

// The order check (order_check.h): for each conflict of its input, which candidate's position
// is the better-supported one, or "none"; output only one
// pi-background-tasks.fusion-order-check.v1 object. Fixed text: it names no slot, model or
// evaluation letter.
std::string OrderCheckSystemPrompt();

// The one order-check repair: the order-check contract plus how to read the repair input.
std::string OrderCheckRepairSystemPrompt();

// What the merger's prompt adds when the run's order check is on: how to read the merge input's
// order_check notes.
std::string OrderCheckMergerText();

// policy.evaluator_tools (an investigate, research or validate run): the evaluator's prompt
// `prompt` asking for pi-background-tasks.fusion-evaluation.v2 instead of v1, plus the tools of
// `capability` with their budget (protocol::kEvaluatorToolBudget) and the checked_claims field
// with its caps; its repair's prompt (no tools) the same without the tools; and the sentence the
// merger's prompt gains (refuted claims are not fact, unclear ones are unverified).
std::string CheckedClaimsEvaluatorPrompt(const std::string& prompt, Capability capability);
std::string CheckedClaimsRepairPrompt(const std::string& prompt);
std::string CheckedClaimsMergerText();

// Shared prompt pieces, for the workflow-specific prompts (validation_prompts.h) to reuse.
// "Hard maximum: 49,152 JSON-rendered UTF-8 bytes, …"
std::string HardMaximumText(size_t bytes);
// The no-naming, no-signing rule every stage gets.
std::string AnonymityText();
// How a clean-task input reads, and what a capability's tools are for.
std::string CleanTaskGuideText();
std::string ToolGuideText(Capability capability);
// What an evaluator-repair prompt adds to its evaluator's prompt.
std::string RepairInstructionsText();

// The example evaluation object the evaluator prompts embed. It is itself a valid evaluation
// (tests check that ValidateEvaluation accepts it), so prompt and validator cannot drift apart.
std::string EvaluationTemplate();

}  // namespace pi_fusion::workflow
