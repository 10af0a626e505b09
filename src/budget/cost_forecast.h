// Cost forecast: what a run is expected to spend, before any child starts, from the budget plan
// and each route's prices. A range per stage and for the run, labelled an estimate everywhere it
// is shown:
//
//   worst case  input  = the plan's forecast: known prompt + every reserved upstream output at
//                        its cap, one token per byte (StageForecast::estimate.tokens);
//               output = the stage's output cap (candidate 48 KiB, evaluator and repair 64 KiB,
//                        merger 64 KiB), one token per byte: the largest answer the stage accepts.
//   expected    from this project's earlier runs when there are enough (ObservedTokens: the
//               median input and output tokens the same role used on the same route, over at
//               least kHistoryMinRuns runs of the same workflow; run/cost_history.h reads them);
//               before that, the share-of-cap rule:
//               output = a quarter of that cap (kExpectedOutputShareX10000), at the route
//                        family's configured bytes per token (anthropic 1.73, openai-codex 2.89,
//                        unknown 1.00);
//               input  = the known prompt (StageForecast::input_tokens) + a quarter of the
//                        reserved upstream outputs, at the same family rate.
//               Every text and JSON form says which basis each stage's expected figure has.
//   cost        = input tokens x input price + output tokens x output price (per million
//                 tokens), all input priced uncached: a prompt-cache hit only lowers it.
// Beside the range, each priced stage has a minimum (minimum_usd): its first model request at the
// least the hard cost cap admits, the known prompt at one token per byte at the highest input
// price plus kMinUsefulOutputTokens at the output price (core/request_cost.h). The cap refuses a
// run only below the sum of those (cost_cap.h).
// The run's expected figures leave out the conditional evaluation repair (it runs only after an
// invalid evaluation); its worst case includes it. Neither counts a tool-using candidate's extra
// model requests (each re-sends the conversation), the compression turn of an oversized
// candidate answer, or reasoning tokens a provider bills as output: docs/budget.md ("Cost
// estimate") says why these are left out and how to read the range.
// A policy's checks on the evaluator's route (JudgeChecks) are rows of their own after the plan's
// stages: the adaptive panel's agreement check (expected: it runs; the figures assume candidates 1
// and 2 agree, so candidate 3 becomes conditional) and the order check's two calls (conditional:
// only when the evaluation names conflicts). A check's input is the evaluation's known prompt plus
// the answers it reads at their caps (worst) or a quarter of them (expected); its output is the
// evaluator's cap (worst) or kCheckExpectedOutputBytes (expected: a short JSON verdict).
//
// Pure functions on values; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "budget/planner.h"
#include "core/request_cost.h"

namespace pi_fusion::budget {

// The expected answer of a stage, as a share of its output cap (basis points).
inline constexpr int64_t kExpectedOutputShareX10000 = 2500;

// Earlier runs needed before a role's expected figure comes from them, and the most read.
inline constexpr int kHistoryMinRuns = 3;
inline constexpr int kHistoryMaxRuns = 9;

// What one role used on one route in earlier runs: the median of each (input tokens counting
// cache reads and writes, all priced as uncached input), and how many runs the samples are of.
struct ObservedTokens {
  int64_t input = 0;
  int64_t output = 0;
  int runs = 0;

  bool operator==(const ObservedTokens&) const = default;
};
// Per route role (kAllSlots order); nullopt: fewer than kHistoryMinRuns runs to learn from.
using ObservedRoles = std::array<std::optional<ObservedTokens>, 5>;

// A route's prices in US dollars per million tokens (Pi's model.cost).
struct TokenPrices {
  double input = 0;
  double output = 0;
  double cache_read = 0;
  double cache_write = 0;

  bool operator==(const TokenPrices&) const = default;
};

struct RoutePricing {
  std::optional<TokenPrices> prices;  // nullopt: Pi gave no prices for the route
  // The route is a subscription login: its use is counted against the subscription, not billed
  // per token (the dollar figures are what the catalog prices would make of it).
  bool subscription = false;
};

struct TokenRange {
  int64_t expected = 0;
  int64_t worst = 0;

  bool operator==(const TokenRange&) const = default;
};

struct UsdRange {
  double expected = 0;
  double worst = 0;

  bool operator==(const UsdRange&) const = default;
};

struct StageCost {
  Role stage = Role::kCandidate;
  // Set on a policy check's row (Stage::kAgreement or Stage::kOrderCheck); `stage` is then
  // Role::kEvaluator and `calls` how many requests the row counts.
  std::optional<Stage> check;
  int calls = 1;
  int slot = 0;                    // 1-3 for candidates, 0 otherwise
  Slot route = Slot::kCandidate1;  // the configured route the stage runs on
  // Runs only sometimes: the evaluation repair, an adaptive run's candidate 3, the order check.
  bool conditional = false;
  // The expected figures are the median of earlier runs (ObservedTokens), not the share of cap.
  bool from_history = false;
  int history_runs = 0;  // how many runs that median is of; 0 unless from_history
  TokenRange input;
  TokenRange output;
  std::optional<UsdRange> usd;        // nullopt when the route has no prices
  std::optional<TokenPrices> prices;  // the route's, when it has them
  // The stage's first request at the least the cost cap admits; nullopt when unpriced.
  std::optional<double> minimum_usd;
  bool subscription = false;
};

struct CostForecast {
  std::vector<StageCost> stages;  // plan order
  // Run totals: expected over the non-conditional stages, worst case over all of them. `usd`
  // sums the priced stages only; `unpriced_stages` says how many had no prices.
  TokenRange input;
  TokenRange output;
  UsdRange usd;
  double minimum_usd = 0;  // over the non-conditional priced stages
  int unpriced_stages = 0;
  int subscription_stages = 0;
  int history_stages = 0;  // stages whose expected figures come from earlier runs
};

// The checks a run's policy adds on the evaluator's route (fusion shape only).
struct JudgeChecks {
  bool adaptive = false;     // policy.panel "adaptive", candidates 1 and 2 not both reused
  bool order_check = false;  // policy.order_check "on_conflict", the evaluation not reused

  bool operator==(const JudgeChecks&) const = default;
};

// A check's expected answer: a JSON verdict, a few short lines.
inline constexpr int64_t kCheckExpectedOutputBytes = 2048;
// The order check asks under two relabellings (run/order_stage.h).
inline constexpr int kOrderCheckCalls = 2;

// The output cap of `stage` in bytes (core/limits.h): its worst-case output at one token a byte.
int64_t StageOutputCapBytes(Role stage);

// The highest price any input token of a route may be billed at (uncached, cache read or cache
// write), and its output price: what the hard cost cap counts a request's worst case at.
WorstCasePrices WorstPricesOf(const TokenPrices& prices);

// The least a first request of `prompt_bytes` known bytes can be admitted for: the bytes as
// input tokens plus kMinUsefulOutputTokens, at WorstPricesOf(prices).
double StageMinimumUsd(int64_t prompt_bytes, const TokenPrices& prices);

// The forecast of `plan` with `pricing[i]` for route kAllSlots[i], and `observed[i]` (when set)
// as the expected tokens of the non-conditional stage on that route. The worst case never
// changes: earlier runs say what is likely, not what is possible (a tool-using candidate's
// expected input can lie above its worst case, which does not count tool turns).
// `checks` adds their rows (above), derived from the plan's evaluation stage; a plan without one
// (a resumed run reusing its evaluation) gets none.
CostForecast ForecastCost(const BudgetPlan& plan, const std::array<RoutePricing, 5>& pricing,
                          const ObservedRoles& observed = {}, const JudgeChecks& checks = {});

// The expected cost of the stages still to run once the run is about to start `next`: every
// non-conditional stage at or after `next` in stage order (candidate, evaluation,
// evaluation_repair, merge), plus the repair itself when `next` is the repair. Unpriced stages
// add nothing.
double ExpectedCostFrom(const CostForecast& forecast, Role next);

}  // namespace pi_fusion::budget
