#include "workflow/evaluation_contract.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>

#include "schema/schema_walker.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

// Deeper nesting than any valid evaluation needs; refusing it keeps the recursive walks bounded.
constexpr int kMaxDepth = 32;

bool IsForbiddenKey(std::string_view key) {
  std::string lower(key);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view word : {"score", "rank", "winner", "best"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

bool IsOneOf(const std::string& key, std::initializer_list<const char*> keys) {
  return std::any_of(keys.begin(), keys.end(), [&key](const char* k) { return key == k; });
}

std::string_view TrimJsonSpace(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::string Index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

class Checker {
 public:
  std::vector<EvaluationError> errors;

  void Fail(std::string path, std::string message) {
    errors.push_back({std::move(path), std::move(message)});
  }

  // Reports forbidden keys anywhere in the document, inside unsupported keys included.
  void ForbiddenKeys(const json& value, const std::string& path) {
    if (value.is_object()) {
      for (const auto& [key, child] : value.items()) {
        if (IsForbiddenKey(key)) {
          Fail(path + "." + key, "forbidden key: a blind evaluation has no score, rank or winner");
        }
        ForbiddenKeys(child, path + "." + key);
      }
    } else if (value.is_array()) {
      for (size_t i = 0; i < value.size(); ++i) ForbiddenKeys(value[i], Index(path, i));
    }
  }

  // A closed object with exactly `keys`. Returns false when `value` is not an object.
  bool Object(const json& value, const std::string& path, std::initializer_list<const char*> keys) {
    if (!value.is_object()) {
      Fail(path, "expected an object");
      return false;
    }
    for (const auto& [key, child] : value.items()) {
      if (!IsOneOf(key, keys) && !IsForbiddenKey(key)) Fail(path + "." + key, "unsupported key");
    }
    for (const char* key : keys) {
      if (!value.contains(key)) Fail(path + "." + key, "missing required key");
    }
    return true;
  }

  void NonBlank(const json& value, const std::string& path) {
    if (!value.is_string()) return Fail(path, "expected a string");
    if (schema::TrimUnicodeSpace(value.get_ref<const std::string&>()).empty()) {
      Fail(path, "must not be blank");
    }
  }

  // Field `key` of `object`, if present (a missing key is reported by Object()).
  const json* Field(const json& object, const char* key) {
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
  }

  void NonBlankField(const json& object, const std::string& path, const char* key) {
    if (const json* v = Field(object, key)) NonBlank(*v, path + "." + key);
  }

  // An array field; calls `item` for each element. Returns the array, or nullptr.
  template <typename F>
  const json* ArrayField(const json& object, const std::string& path, const char* key, F item) {
    const json* v = Field(object, key);
    if (v == nullptr) return nullptr;
    if (!v->is_array()) {
      Fail(path + "." + key, "expected an array");
      return nullptr;
    }
    for (size_t i = 0; i < v->size(); ++i) item((*v)[i], Index(path + "." + key, i));
    return v;
  }

  void StringArrayField(const json& object, const std::string& path, const char* key) {
    ArrayField(object, path, key, [&](const json& v, const std::string& p) { NonBlank(v, p); });
  }

  // The object's candidate_id when it is one of A, B, C.
  std::optional<std::string> CandidateId(const json& object, const std::string& path) {
    const json* v = Field(object, "candidate_id");
    if (v == nullptr) return std::nullopt;
    const std::string p = path + ".candidate_id";
    if (!v->is_string()) {
      Fail(p, "expected a string");
      return std::nullopt;
    }
    const std::string& id = v->get_ref<const std::string&>();
    if (std::find(kCandidateIds.begin(), kCandidateIds.end(), id) == kCandidateIds.end()) {
      Fail(p, "must be one of A, B, C");
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
    for (std::string_view id : kCandidateIds) {
      if (!seen.contains(std::string(id))) {
        Fail(path, "missing assessment for candidate " + std::string(id));
      }
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

  void Root(const json& root) {
    ForbiddenKeys(root, "$");
    if (!Object(root, "$",
                {"schema_version", "candidate_assessments", "agreements", "conflicts",
                 "synthesis_plan"})) {
      return;
    }
    const json* version = Field(root, "schema_version");
    if (version != nullptr &&
        (!version->is_string() || version->get_ref<const std::string&>() != kEvaluationSchema)) {
      Fail("$.schema_version", "must be \"" + std::string(kEvaluationSchema) + "\"");
    }
    Assessments(root);
    StringArrayField(root, "$", "agreements");
    Conflicts(root);
    SynthesisPlan(root);
  }
};

// Strict parse: one JSON value, no duplicate keys, bounded depth.
std::optional<json> Parse(std::string_view text, Checker& checker) {
  if (text.empty()) {
    checker.Fail("$", "the evaluator output is empty");
    return std::nullopt;
  }
  if (text.starts_with("```")) {
    checker.Fail("$",
                 "the output must be one bare JSON object; Markdown code fences are not allowed");
    return std::nullopt;
  }
  std::vector<std::set<std::string>> keys;
  std::optional<std::string> duplicate;
  bool too_deep = false;
  const json::parser_callback_t track = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxDepth) too_deep = true;
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second && !duplicate) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  try {
    json value = json::parse(text, track);
    if (too_deep) checker.Fail("$", "JSON nesting deeper than " + std::to_string(kMaxDepth));
    if (duplicate) checker.Fail("$", "duplicate key \"" + *duplicate + "\" in one object");
    if (too_deep || duplicate) return std::nullopt;
    return value;
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (const size_t cut = what.find("] "); cut != std::string::npos) what.erase(0, cut + 2);
    checker.Fail("$", "not a single JSON value: " + what);
    return std::nullopt;
  }
}

// The longest prefix of `text` of at most `max` bytes that ends on a UTF-8 boundary.
std::string Utf8Prefix(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

std::string Capped(const std::string& text, size_t max) {
  return text.size() <= max ? text : Utf8Prefix(text, max - 3) + "...";
}

}  // namespace

EvaluationCheck ValidateEvaluation(std::string_view output) {
  Checker checker;
  std::optional<json> value = Parse(TrimJsonSpace(output), checker);
  if (value) checker.Root(*value);
  EvaluationCheck out;
  out.errors = std::move(checker.errors);
  if (out.errors.empty()) out.evaluation = std::move(value);
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

Status EvaluationInvalid(const std::vector<EvaluationError>& errors) {
  std::string message = "evaluator output does not match " + std::string(kEvaluationSchema) + ": " +
                        Capped(errors.front().ToString(), kRepairMaxErrorBytes);
  if (errors.size() > 1) message += " (and " + std::to_string(errors.size() - 1) + " more)";
  return Status::Error(std::string(kEvaluationInvalid), message);
}

}  // namespace pi_fusion::workflow
