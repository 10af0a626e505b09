// Validate's hostile model outputs: a reviewer's report and the evaluator's findings accounting.
// The same bytes are read as a reviewer's stdout and as a validate evaluation over reviewers A
// and B with source findings A-F001, A-F002 and B-F001. Invariants: a usable report prints back
// to a report that reads the same; an accepted accounting decides every source finding exactly
// once, and every included finding sits in the one group its decision names.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "workflow/evaluation_contract.h"
#include "workflow/validation_accounting.h"
#include "workflow/validation_report.h"

namespace {

using namespace pi_fusion::workflow;

void CheckReport(std::string_view output) {
  const ReportReading reading = ReadValidationReport(output);
  FUZZ_CHECK(reading.ok() == reading.errors.empty());
  if (!reading.ok()) return;
  const ReportReading again = ReadValidationReport(ValidationReportToJson(*reading.report).dump());
  FUZZ_CHECK(again.ok() && !again.fence_body && *again.report == *reading.report);
}

void CheckAccounting(std::string_view output) {
  const std::vector<std::string> sources = {"A-F001", "A-F002", "B-F001"};
  const EvaluationCheck check = ValidateEvaluation(output, EvaluationScope{{"A", "B"}, sources});
  if (!check.ok()) {
    FUZZ_CHECK(!EvaluationInvalid(check.errors).ok());
    return;
  }
  const ValidationAccounting accounting =
      AccountingFromJson(check.evaluation->at("validation_accounting"));
  std::map<std::string, std::string> group_of;  // included source id -> its decision's group
  std::set<std::string> decided;
  for (const AccountingDecision& decision : accounting.decisions) {
    FUZZ_CHECK(decided.insert(decision.source_id).second);
    FUZZ_CHECK(decision.include == decision.group_id.has_value());
    if (decision.include) group_of[decision.source_id] = *decision.group_id;
  }
  FUZZ_CHECK(decided == std::set<std::string>(sources.begin(), sources.end()));
  std::set<std::string> grouped;
  for (const AccountingGroup& group : accounting.groups) {
    FUZZ_CHECK(!group.source_ids.empty());
    for (const std::string& id : group.source_ids) {
      FUZZ_CHECK(group_of.count(id) == 1 && group_of[id] == group.group_id);
      FUZZ_CHECK(grouped.insert(id).second);
    }
  }
  FUZZ_CHECK(grouped.size() == group_of.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view output(reinterpret_cast<const char*>(data), size);
  CheckReport(output);
  CheckAccounting(output);
  return 0;
}
