// The evaluator's `validation_accounting` in a validate run: how every host-assigned source
// finding (validation_findings.h) ends up in the report.
//
//   {findings:  [every source finding id, as strings],
//    decisions: [{source_id, disposition: "include"|"exclude", rationale, group_id?}],
//    groups:    [{group_id, source_ids[], severity, location, evidence, impact, summary,
//                 rationale}]}
//
// Rules, each reported with its JSON path so the one repair can fix them all:
//   - `findings` lists every source id exactly once and nothing else;
//   - every source id has exactly one decision; an included one names an existing group_id,
//     an excluded one names none;
//   - group_id is any non-blank string, unique among groups; every group lists at least one
//     source id; each listed id is known, included, decided into that very group, and listed in
//     no other group;
//   - severity is critical, high or minor; every other string is non-blank.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workflow/evaluation_contract.h"

namespace pi_fusion::workflow {

// Every violation of `accounting` against `source_ids`, paths under `path`
// ("$.validation_accounting"), in document order.
std::vector<EvaluationError> CheckValidationAccounting(const nlohmann::json& accounting,
                                                       const std::vector<std::string>& source_ids,
                                                       const std::string& path);

struct AccountingDecision {
  std::string source_id;
  bool include = false;
  std::string rationale;
  std::optional<std::string> group_id;  // set iff include
};

struct AccountingGroup {
  std::string group_id;
  std::vector<std::string> source_ids;
  std::string severity, location, evidence, impact, summary, rationale;
};

struct ValidationAccounting {
  std::vector<AccountingDecision> decisions;  // as the evaluator listed them
  std::vector<AccountingGroup> groups;
};

// REQUIRES: CheckValidationAccounting(accounting, …) found nothing.
ValidationAccounting AccountingFromJson(const nlohmann::json& accounting);

}  // namespace pi_fusion::workflow
