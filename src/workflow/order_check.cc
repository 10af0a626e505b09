#include "workflow/order_check.h"

#include <algorithm>
#include <utility>

#include "core/utf8.h"
#include "workflow/contract_checker.h"
#include "workflow/strict_json.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

std::string LetterAt(size_t i) { return std::string(kCandidateIds[i]); }

// The validated evaluation's conflicts under `relabelling`, positions in letter order.
json RelabelConflicts(const json& conflicts, const Relabelling& relabelling) {
  json out = json::array();
  for (const json& conflict : conflicts) {
    std::vector<std::pair<std::string, std::string>> positions;
    for (const json& p : conflict.at("positions")) {
      positions.emplace_back(relabelling.To(p.at("candidate_id").get<std::string>()),
                             p.at("position").get<std::string>());
    }
    std::sort(positions.begin(), positions.end());
    json list = json::array();
    for (auto& [id, position] : positions) {
      list.push_back({{"candidate_id", std::move(id)}, {"position", std::move(position)}});
    }
    out.push_back({{"topic", conflict.at("topic")}, {"positions", std::move(list)}});
  }
  return out;
}

}  // namespace

std::string Relabelling::To(std::string_view id) const {
  for (size_t i = 0; i < letters.size() && i < kCandidateCount; ++i) {
    if (kCandidateIds[i] == id) return letters[i];
  }
  return "";
}

std::string Relabelling::From(std::string_view id) const {
  for (size_t i = 0; i < letters.size() && i < kCandidateCount; ++i) {
    if (letters[i] == id) return LetterAt(i);
  }
  return "";
}

std::vector<Relabelling> OrderCheckRelabellings(size_t count) {
  if (count == 2) return {Relabelling{{"A", "B"}}, Relabelling{{"B", "A"}}};
  return {Relabelling{{"B", "C", "A"}}, Relabelling{{"C", "A", "B"}}};
}

Result<CanonicalDocument> BuildOrderCheckInput(const CanonicalDocument& canonical_input,
                                               const std::vector<AnonymousCandidate>& candidates,
                                               const json& conflicts,
                                               const Relabelling& relabelling) {
  std::vector<AnonymousCandidate> relabelled;
  for (const AnonymousCandidate& c : candidates) {
    const std::string to = relabelling.To(c.candidate_id);
    if (to.empty()) {
      return Status::Error(std::string(kOrchestrationFailed),
                           "the order check has no letter for a candidate");
    }
    relabelled.push_back({to, c.response});
  }
  Result<json> list = CandidateArray(std::move(relabelled), candidates.size());
  if (!list.ok()) return list.status();
  json input = {{"schema_version", kOrderCheckInputSchema},
                {"canonical_input", canonical_input.value},
                {"candidates", std::move(list).value()},
                {"conflicts", RelabelConflicts(conflicts, relabelling)}};
  return MakeCanonicalDocument(std::move(input), kOrchestrationFailed, "the order-check input");
}

Result<CanonicalDocument> BuildOrderCheckRepairInput(const CanonicalDocument& original_input,
                                                     const std::string& invalid_output,
                                                     const std::vector<EvaluationError>& errors) {
  json input = {{"schema_version", kOrderCheckRepairInputSchema},
                {"original_input", original_input.value},
                {"invalid_output", RepairUtf8(invalid_output)},
                {"validation_errors", CapValidationErrors(errors)}};
  return MakeCanonicalDocument(std::move(input), kOrchestrationFailed,
                               "the order-check repair input");
}

OrderCheckCheck ValidateOrderCheck(std::string_view output, const json& input,
                                   const Relabelling& relabelling) {
  ContractChecker c;
  OrderCheckVerdicts verdicts;
  const StrictJson parsed = ParseStrictJson(output, "order-check output");
  const json& conflicts = input.at("conflicts");
  std::vector<std::string> ids;
  for (const json& candidate : input.at("candidates")) {
    ids.push_back(candidate.at("candidate_id").get<std::string>());
  }
  std::string allowed;
  for (const std::string& id : ids) allowed += id + ", ";
  allowed += "or \"" + std::string(kFavouredNone) + "\"";
  if (!parsed.ok()) {
    c.Fail("$", parsed.error);
  } else if (c.Object(parsed.value, "$", {"schema_version", "verdicts"})) {
    c.SchemaVersion(parsed.value, kOrderCheckSchema);
    size_t index = 0;
    const json* list =
        c.ArrayField(parsed.value, "$", "verdicts", [&](const json& v, const std::string& p) {
          const size_t i = index++;
          if (!c.Object(v, p, {"topic", "favoured"})) return;
          const json* topic = ContractChecker::Field(v, "topic");
          if (topic != nullptr && i < conflicts.size() && *topic != conflicts[i].at("topic")) {
            c.Fail(p + ".topic",
                   "must be the topic of conflict " + std::to_string(i) + " of the input, " +
                       conflicts[i].at("topic").dump(),
                   "a topic that is not its conflict's (verdicts follow the input's order)");
          }
          const json* favoured = ContractChecker::Field(v, "favoured");
          if (favoured == nullptr) return;
          const bool known =
              favoured->is_string() &&
              (favoured->get<std::string>() == kFavouredNone ||
               std::find(ids.begin(), ids.end(), favoured->get<std::string>()) != ids.end());
          if (!known) {
            c.Fail(p + ".favoured", "must be one of " + allowed);
            return;
          }
          const std::string& id = favoured->get_ref<const std::string&>();
          verdicts.favoured.push_back(id == kFavouredNone ? std::nullopt
                                                          : std::optional(relabelling.From(id)));
        });
    if (list != nullptr && list->size() != conflicts.size()) {
      c.Fail("$.verdicts", "must hold exactly one verdict per conflict (" +
                               std::to_string(conflicts.size()) +
                               "), in the input's order; found " + std::to_string(list->size()));
    }
  }
  OrderCheckCheck out;
  out.errors = std::move(c.errors);
  if (out.errors.empty()) out.verdicts = std::move(verdicts);
  return out;
}

std::vector<ConflictOrder> JudgeOrder(const json& conflicts,
                                      const std::vector<OrderCheckVerdicts>& passes) {
  std::vector<ConflictOrder> out;
  for (size_t i = 0; i < conflicts.size(); ++i) {
    ConflictOrder conflict;
    conflict.topic = conflicts[i].at("topic").get<std::string>();
    for (const OrderCheckVerdicts& pass : passes) {
      conflict.favoured.push_back(i < pass.favoured.size() ? pass.favoured[i] : std::nullopt);
    }
    for (const std::optional<std::string>& f : conflict.favoured) {
      if (f != conflict.favoured.front()) conflict.stable = false;
    }
    out.push_back(std::move(conflict));
  }
  return out;
}

size_t OrderSensitiveCount(const std::vector<ConflictOrder>& conflicts) {
  return static_cast<size_t>(std::count_if(conflicts.begin(), conflicts.end(),
                                           [](const ConflictOrder& c) { return !c.stable; }));
}

std::string OrderSensitiveLine(size_t sensitive, size_t total) {
  if (sensitive == 0) return "";
  return "order-sensitive: " + std::to_string(sensitive) + " of " + std::to_string(total) +
         (total == 1 ? " conflict" : " conflicts");
}

json MergeOrderNotes(const std::vector<ConflictOrder>& conflicts) {
  json out = json::array();
  for (const ConflictOrder& c : conflicts) {
    out.push_back(
        {{"topic", c.topic},
         {"instruction", c.stable ? kOrderStableInstruction : kOrderSensitiveInstruction}});
  }
  return out;
}

json OrderCheckRecord(const std::vector<ConflictOrder>& conflicts, const AnonymousMap& map) {
  json list = json::array();
  size_t passes = 0;
  for (const ConflictOrder& c : conflicts) {
    json slots = json::array();
    for (const std::optional<std::string>& f : c.favoured) {
      slots.push_back(f ? json(map.SlotOf(*f)) : json(nullptr));
    }
    passes = c.favoured.size();
    list.push_back({{"favoured_slots", std::move(slots)}, {"stable", c.stable}});
  }
  return {{"passes", passes},
          {"order_sensitive", OrderSensitiveCount(conflicts)},
          {"conflicts", std::move(list)}};
}

}  // namespace pi_fusion::workflow
