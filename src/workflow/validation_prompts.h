// System prompts of the validate workflow's stages: the reviewers (validate's candidates), the
// blind evaluator that accounts for every finding, its one repair, and the merger that writes
// only the report's summary (the host renders the rest, validation_render.h).
//
// Like stage_prompts.h: fixed text, the exact output limits, anonymity, input as data. Each
// embedded template is itself valid under the contract it illustrates (tests check it).
//
// Pure; thread-safe.
#pragma once

#include <string>

namespace pi_fusion::workflow {

std::string ValidationReviewerSystemPrompt();
std::string ValidationEvaluatorSystemPrompt();
std::string ValidationRepairSystemPrompt();
std::string ValidationMergerSystemPrompt();

// The example reviewer report and evaluation the prompts embed. The evaluation accounts for the
// finding ids A-F001, B-F001 and C-F001 of candidates A, B and C.
std::string ValidationReportTemplate();
std::string ValidationEvaluationTemplate();

}  // namespace pi_fusion::workflow
