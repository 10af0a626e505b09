#include "workflow/contract_checker.h"

#include <algorithm>

#include "schema/schema_walker.h"

namespace pi_fusion::workflow {

using nlohmann::json;

std::string JsonIndex(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

bool ContractChecker::Object(const json& value, const std::string& path,
                             std::initializer_list<const char*> keys,
                             std::initializer_list<const char*> optional) {
  if (!value.is_object()) {
    Fail(path, "expected an object");
    return false;
  }
  const auto listed = [](std::initializer_list<const char*> list, const std::string& key) {
    return std::any_of(list.begin(), list.end(), [&key](const char* k) { return key == k; });
  };
  for (const auto& [key, child] : value.items()) {
    if (listed(keys, key) || listed(optional, key)) continue;
    if (reported_elsewhere && reported_elsewhere(key)) continue;
    Fail(path + "." + key, "unsupported key", path + ": an unsupported key");
  }
  for (const char* key : keys) {
    if (!value.contains(key)) Fail(path + "." + key, "missing required key");
  }
  return true;
}

const json* ContractChecker::Field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool ContractChecker::NonBlank(const json& value, const std::string& path) {
  if (!value.is_string()) {
    Fail(path, "expected a string");
    return false;
  }
  if (schema::TrimUnicodeSpace(value.get_ref<const std::string&>()).empty()) {
    Fail(path, "must not be blank");
    return false;
  }
  return true;
}

void ContractChecker::NonBlankField(const json& object, const std::string& path, const char* key) {
  if (const json* v = Field(object, key)) NonBlank(*v, path + "." + key);
}

const std::string* ContractChecker::EnumField(const json& object, const std::string& path,
                                              const char* key,
                                              std::initializer_list<std::string_view> allowed) {
  const json* v = Field(object, key);
  if (v == nullptr) return nullptr;
  const std::string p = path + "." + key;
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (std::find(allowed.begin(), allowed.end(), s) != allowed.end()) return &s;
  }
  std::string list;
  for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  Fail(p, "must be one of " + list);
  return nullptr;
}

const json* ContractChecker::ArrayField(
    const json& object, const std::string& path, const char* key,
    const std::function<void(const json&, const std::string&)>& item) {
  const json* v = Field(object, key);
  if (v == nullptr) return nullptr;
  if (!v->is_array()) {
    Fail(path + "." + key, "expected an array");
    return nullptr;
  }
  for (size_t i = 0; i < v->size(); ++i) item((*v)[i], JsonIndex(path + "." + key, i));
  return v;
}

void ContractChecker::StringArrayField(const json& object, const std::string& path,
                                       const char* key) {
  ArrayField(object, path, key, [&](const json& v, const std::string& p) { NonBlank(v, p); });
}

void ContractChecker::SchemaVersion(const json& root, std::string_view schema) {
  const json* version = Field(root, "schema_version");
  if (version != nullptr &&
      (!version->is_string() || version->get_ref<const std::string&>() != schema)) {
    Fail("$.schema_version", "must be \"" + std::string(schema) + "\"");
  }
}

}  // namespace pi_fusion::workflow
