#include "workflow/evaluation_contract.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/utf8.h"
#include "workflow/citation_refs.h"
#include "workflow/contract_checker.h"
#include "workflow/strict_json.h"
#include "workflow/validation_accounting.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

bool IsForbiddenKey(std::string_view key) {
  std::string lower(key);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view word : {"score", "rank", "winner", "best"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

std::string IdList(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

class Checker : public ContractChecker {
 public:
  explicit Checker(const EvaluationScope& scope) : scope_(scope) {
    reported_elsewhere = IsForbiddenKey;
  }

  // Reports forbidden keys anywhere in the document, inside unsupported keys included.
  void ForbiddenKeys(const json& value, const std::string& path) {
    if (value.is_object()) {
      for (const auto& [key, child] : value.items()) {
        if (IsForbiddenKey(key)) {
          // The path may run through keys the model made up.
          Fail(path + "." + key, "forbidden key: a blind evaluation has no score, rank or winner",
               "a forbidden key: a blind evaluation has no score, rank or winner");
        }
        ForbiddenKeys(child, path + "." + key);
      }
    } else if (value.is_array()) {
      for (size_t i = 0; i < value.size(); ++i) ForbiddenKeys(value[i], JsonIndex(path, i));
    }
  }

  // The object's candidate_id when it is one of the scope's candidates.
  std::optional<std::string> CandidateId(const json& object, const std::string& path) {
    const json* v = Field(object, "candidate_id");
    if (v == nullptr) return std::nullopt;
    const std::string p = path + ".candidate_id";
    if (!v->is_string()) {
      Fail(p, "expected a string");
      return std::nullopt;
    }
    const std::string& id = v->get_ref<const std::string&>();
    const std::vector<std::string>& ids = scope_.candidate_ids;
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      Fail(p, "must be one of " + IdList(ids));
      return std::nullopt;
    }
    return id;
  }

  void Assessments(const json& root) {
    const std::string path = "$.candidate_assessments";
    std::set<std::string> seen;
    const json* list =
        ArrayField(root, "$", "candidate_assessments", [&](const json& v, const std::string& p) {
          if (!Object(v, p,
                      {"candidate_id", "summary", "strengths", "limitations",
                       "useful_contributions", "risks"})) {
            return;
          }
          if (std::optional<std::string> id = CandidateId(v, p); id && !seen.insert(*id).second) {
            Fail(p + ".candidate_id", "duplicate assessment for candidate " + *id);
          }
          NonBlankField(v, p, "summary");
          for (const char* key : {"strengths", "limitations", "useful_contributions", "risks"}) {
            StringArrayField(v, p, key);
          }
        });
    if (list == nullptr) return;
    for (const std::string& id : scope_.candidate_ids) {
      if (!seen.contains(id)) Fail(path, "missing assessment for candidate " + id);
    }
  }

  void Positions(const json& conflict, const std::string& path) {
    std::set<std::string> seen;
    const json* list =
        ArrayField(conflict, path, "positions", [&](const json& v, const std::string& p) {
          if (!Object(v, p, {"candidate_id", "position"})) return;
          if (std::optional<std::string> id = CandidateId(v, p); id && !seen.insert(*id).second) {
            Fail(p + ".candidate_id", "duplicate position for candidate " + *id);
          }
          NonBlankField(v, p, "position");
        });
    if (list != nullptr && seen.size() < 2) {
      Fail(path + ".positions", "a conflict needs positions from at least 2 distinct candidates");
    }
  }

  void Conflicts(const json& root) {
    ArrayField(root, "$", "conflicts", [&](const json& v, const std::string& p) {
      if (!Object(v, p, {"topic", "positions", "resolution"})) return;
      NonBlankField(v, p, "topic");
      Positions(v, p);
      NonBlankField(v, p, "resolution");
    });
  }

  void SynthesisPlan(const json& root) {
    const json* plan = Field(root, "synthesis_plan");
    const std::string path = "$.synthesis_plan";
    if (plan == nullptr || !Object(*plan, path, {"must_include", "must_resolve", "must_avoid"})) {
      return;
    }
    ArrayField(*plan, path, "must_include", [&](const json& v, const std::string& p) {
      if (!Object(v, p, {"candidate_id", "contribution"})) return;
      CandidateId(v, p);
      NonBlankField(v, p, "contribution");
    });
    StringArrayField(*plan, path, "must_resolve");
    StringArrayField(*plan, path, "must_avoid");
  }

  // One evidence string: exactly one line citation, nothing around it.
  void Evidence(const json& value, const std::string& path) {
    if (!NonBlank(value, path)) return;
    const std::string& text = value.get_ref<const std::string&>();
    const std::vector<CitationRef> refs = ExtractCitations(text);
    if (refs.size() != 1 || refs[0].Ref() != text) {
      Fail(path, "must be exactly one line citation path:line or path:line-line",
           "an evidence string is not exactly one line citation");
    }
  }

  void CheckedClaims(const json& root) {
    const std::string path = "$.checked_claims";
    const json* list =
        ArrayField(root, "$", "checked_claims", [&](const json& v, const std::string& p) {
          if (!Object(v, p, {"claim", "verdict", "evidence"})) return;
          NonBlankField(v, p, "claim");
          const json* claim = Field(v, "claim");
          if (claim != nullptr && claim->is_string() &&
              claim->get_ref<const std::string&>().size() > kMaxCheckedClaimBytes) {
            Fail(p + ".claim", "longer than " + std::to_string(kMaxCheckedClaimBytes) + " bytes");
          }
          const std::string* verdict =
              EnumField(v, p, "verdict", {"supported", "refuted", "unclear"});
          const json* evidence = ArrayField(
              v, p, "evidence", [&](const json& e, const std::string& ep) { Evidence(e, ep); });
          if (evidence == nullptr) return;
          if (evidence->size() > kMaxClaimEvidence) {
            Fail(p + ".evidence", "more than " + std::to_string(kMaxClaimEvidence) + " citations");
          }
          if (evidence->empty() && verdict != nullptr && *verdict != "unclear") {
            Fail(p + ".evidence", "a supported or refuted claim needs at least one citation");
          }
        });
    if (list != nullptr && list->size() > kMaxCheckedClaims) {
      Fail(path, "more than " + std::to_string(kMaxCheckedClaims) + " checked claims");
    }
  }

  void Root(const json& root) {
    ForbiddenKeys(root, "$");
    const bool validate = scope_.source_finding_ids.has_value();
    // checked_claims is a key of v2 only: a v1 evaluation reports it as any unknown key.
    const bool closed = scope_.checked_claims
                            ? Object(root, "$",
                                     {"schema_version", "candidate_assessments", "agreements",
                                      "conflicts", "synthesis_plan"},
                                     {"validation_accounting", "checked_claims"})
                            : Object(root, "$",
                                     {"schema_version", "candidate_assessments", "agreements",
                                      "conflicts", "synthesis_plan"},
                                     {"validation_accounting"});
    if (!closed) return;
    SchemaVersion(root, scope_.checked_claims ? kEvaluationV2Schema : kEvaluationSchema);
    Assessments(root);
    StringArrayField(root, "$", "agreements");
    Conflicts(root);
    SynthesisPlan(root);
    const json* accounting = Field(root, "validation_accounting");
    if (!validate && accounting != nullptr) {
      Fail("$.validation_accounting", "unsupported key: only validate runs account for findings");
    } else if (validate && accounting == nullptr) {
      Fail("$.validation_accounting", "missing required key");
    } else if (validate) {
      for (EvaluationError& e : CheckValidationAccounting(*accounting, *scope_.source_finding_ids,
                                                          "$.validation_accounting")) {
        errors.push_back(std::move(e));
      }
    }
    if (scope_.checked_claims && Field(root, "checked_claims") == nullptr) {
      Fail("$.checked_claims", "missing required key");
    } else if (scope_.checked_claims) {
      CheckedClaims(root);
    }
  }

 private:
  const EvaluationScope& scope_;
};

std::string Capped(const std::string& text, size_t max) {
  return text.size() <= max ? text : TruncateUtf8(text, max - 3) + "...";
}

}  // namespace

EvaluationCheck ValidateEvaluation(std::string_view output, const EvaluationScope& scope) {
  Checker checker(scope);
  StrictJson parsed = ParseStrictJson(output, "evaluator output");
  if (parsed.ok()) {
    checker.Root(parsed.value);
  } else {
    checker.Fail("$", parsed.error);
  }
  EvaluationCheck out;
  out.errors = std::move(checker.errors);
  if (out.errors.empty()) out.evaluation = std::move(parsed.value);
  return out;
}

std::vector<std::string> CapValidationErrors(const std::vector<EvaluationError>& errors) {
  std::vector<std::string> all;
  size_t total = 0;
  for (const EvaluationError& e : errors) {
    all.push_back(Capped(e.ToString(), kRepairMaxErrorBytes));
    total += all.back().size();
  }
  if (all.size() <= kRepairMaxErrors && total <= kRepairMaxTotalBytes) return all;
  // Room for the note; it is at most ~45 bytes for any realistic count.
  constexpr size_t kNoteReserve = 64;
  std::vector<std::string> out;
  total = 0;
  for (std::string& e : all) {
    if (out.size() == kRepairMaxErrors || total + e.size() > kRepairMaxTotalBytes - kNoteReserve) {
      break;
    }
    total += e.size();
    out.push_back(std::move(e));
  }
  out.push_back("[" + std::to_string(errors.size() - out.size()) +
                " more validation error(s) omitted]");
  return out;
}

Status EvaluationInvalid(const std::vector<EvaluationError>& errors, const EvaluationScope& scope) {
  std::string message =
      "evaluator output does not match " +
      std::string(scope.checked_claims ? kEvaluationV2Schema : kEvaluationSchema) + ": " +
      Capped(errors.front().Record(), kRepairMaxErrorBytes);
  if (errors.size() > 1) message += " (and " + std::to_string(errors.size() - 1) + " more)";
  return Status::Error(std::string(kEvaluationInvalid), message);
}

}  // namespace pi_fusion::workflow
