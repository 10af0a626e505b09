// Internal to the budget layer: the human texts of warnings, blockers and remediation, kept
// apart from the arithmetic so planner.cc reads as the algorithm. Every text names the stage,
// the slot label and the route, because users act on them through /fusion-models.
#pragma once

#include <cstdint>
#include <string>

#include "budget/planner.h"
#include "budget/route_capacity.h"

namespace pi_fusion::budget {

// "candidate 2", "evaluation", "evaluation repair", "merge".
std::string StageLabel(Role stage, int slot);
// "Candidate 2 route openai-codex/gpt-5.5".
std::string RouteText(const RouteCapacity& route);
// 8123 -> "81.23%".
std::string FormatBasisPoints(int64_t basis_points);

std::string BlockerText(const StageForecast& stage, const RouteCapacity& route);
std::string RepairInputText(const StageForecast& stage, const RouteCapacity& route);
std::string ReservationText(const StageForecast& stage, const RouteCapacity& route);
std::string UtilizationText(const StageForecast& stage, const RouteCapacity& route);

std::string ShortenRequestText(int64_t request_bytes);
std::string ReduceHistoryText(int64_t history_bytes);
std::string LargerModelText(const StageForecast& stage, const RouteCapacity& route,
                            bool had_history);

// A sentence (with a leading space) explaining a dense-ASCII or multibyte-heavy estimate, or "".
std::string ByteClassDiagnostic(const TokenEstimate& estimate);

}  // namespace pi_fusion::budget
