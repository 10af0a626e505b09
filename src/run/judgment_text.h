// What a completed run says of its own judgment (docs/citations.md): the citation check's record
// (run/citation_check.h) and the panel's agreement, as the lines every view shows right after
// its header: the TUI block, bg_result's text for the agent, print mode's stderr.
//
// The agreement record (result details and manifest `agreement`):
//   {"agreements": N, "conflicts": M, "panel": "one_model"|"one_family"|"distinct"}
// N and M count the evaluation's agreements[] and conflicts[]; `panel` says how independent the
// candidates that answered were: all one route ("one_model"), one provider with more than one
// model ("one_family"), or more than one provider ("distinct"). Agreement among one model's three
// answers is weaker evidence than among three families'; the line says which it is.
//
// Model- and file-derived text in these lines is shown with terminal controls neutralized.
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pi_fusion::run {

// "one_model", "one_family" or "distinct" for the routes ("provider/model") that answered.
std::string PanelKind(const std::vector<std::string>& candidate_routes);

// The agreement record of `evaluation` (fusion-evaluation.v1) and the routes that answered.
nlohmann::json AgreementRecord(const nlohmann::json& evaluation,
                               const std::vector<std::string>& candidate_routes);

// "Panel: 3 agreements, 1 conflict; candidates from one model." "" when `agreement` is not
// such a record (a run from before it).
std::string AgreementLine(const nlohmann::json& agreement);

// "order-sensitive: 1 of 3 conflicts" when the order check (Manifest::order_check) found any;
// "order check: 3 conflicts stable" when it found none; "" when `record` is not such a record.
std::string OrderCheckLine(const nlohmann::json& record);
// "checked claims: 3 (2 supported, 1 refuted)" for a v2 evaluation's checked_claims (the
// verdicts with none left out; "checked claims: 0" for an empty list); "" when `claims` is not a
// list (a run without policy.evaluator_tools).
std::string CheckedClaimsLine(const nlohmann::json& claims);
// One line per checked claim: "- [refuted] <claim> (evidence: src/a.c:3, src/b.c:4-6)"; the
// claim and its evidence with terminal controls neutralized. For the expanded view.
std::vector<std::string> CheckedClaimLines(const nlohmann::json& claims);

// "citations: 14 checked, 1 broken — src/lexer.c:900 is past the end (612 lines)"; with more
// broken, the first and "(+N more)". "" when `citations` is not a record (reason runs, older runs).
std::string CitationsLine(const nlohmann::json& citations);

// One line per broken citation: "- src/lexer.c:900 is past the end (612 lines) [past_end; in
// candidate 2, answer]". For the agent's text and the expanded view.
std::vector<std::string> BrokenCitationLines(const nlohmann::json& citations);

}  // namespace pi_fusion::run
