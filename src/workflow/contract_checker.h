// Internal to the workflow layer: the walk shared by the closed JSON contracts models must meet
// (the evaluation, its validation accounting, the validation reviewers' reports). It collects
// every violation with its JSON path, in document order, instead of stopping at the first, so one
// repair can be told everything at once.
//
// Thread-compatible: one checker per validation.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "workflow/evaluation_contract.h"

namespace pi_fusion::workflow {

// "$.findings" + 2 -> "$.findings[2]".
std::string JsonIndex(const std::string& path, size_t i);

class ContractChecker {
 public:
  std::vector<EvaluationError> errors;
  // Keys Object() does not report as unsupported because another rule reports them already.
  std::function<bool(std::string_view)> reported_elsewhere;

  // `record`: the model-text-free form (EvaluationError::record) when `path` or `message` quote
  // the output.
  void Fail(std::string path, std::string message, std::string record = "") {
    errors.push_back({std::move(path), std::move(message), std::move(record)});
  }

  // A closed object with exactly `keys` plus any of `optional`. False when not an object.
  bool Object(const nlohmann::json& value, const std::string& path,
              std::initializer_list<const char*> keys,
              std::initializer_list<const char*> optional = {});

  // Field `key` of `object`, if present (a missing key is reported by Object()).
  static const nlohmann::json* Field(const nlohmann::json& object, const char* key);

  // Reports a non-string or a string that is blank after Unicode trimming. True when fine.
  bool NonBlank(const nlohmann::json& value, const std::string& path);
  void NonBlankField(const nlohmann::json& object, const std::string& path, const char* key);

  // A string field whose value is one of `allowed`; the value, or nullptr.
  const std::string* EnumField(const nlohmann::json& object, const std::string& path,
                               const char* key, std::initializer_list<std::string_view> allowed);

  // An array field; calls `item(element, path)` for each element. The array, or nullptr.
  const nlohmann::json* ArrayField(
      const nlohmann::json& object, const std::string& path, const char* key,
      const std::function<void(const nlohmann::json&, const std::string&)>& item);

  void StringArrayField(const nlohmann::json& object, const std::string& path, const char* key);

  // The schema_version field must be exactly `schema`.
  void SchemaVersion(const nlohmann::json& root, std::string_view schema);
};

}  // namespace pi_fusion::workflow
