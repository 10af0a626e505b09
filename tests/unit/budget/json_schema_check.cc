#include "json_schema_check.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace pi_fusion::testing {

namespace {

using nlohmann::json;

const std::set<std::string> kKeywords = {
    "type",    "properties", "required", "additionalProperties",
    "items",   "enum",       "const",    "minimum",
    "maximum", "minItems",   "maxItems", "minLength",
    "$ref",    "$defs",      "$schema",  "$id",
    "title",   "description"};

bool HasType(const json& value, const std::string& type) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  return false;
}

class Checker {
 public:
  explicit Checker(const json& root) : root_(root) {}

  void Check(const json& schema, const json& value, const std::string& at) {
    for (const auto& item : schema.items()) {
      if (!kKeywords.count(item.key())) Fail(at, "schema uses unsupported keyword " + item.key());
    }
    if (schema.contains("$ref")) return Check(Resolve(schema["$ref"]), value, at);
    if (schema.contains("type")) CheckType(schema["type"], value, at);
    if (schema.contains("const") && value != schema["const"]) Fail(at, "must equal the const");
    if (schema.contains("enum")) {
      const json& options = schema["enum"];
      if (std::find(options.begin(), options.end(), value) == options.end()) {
        Fail(at, "not one of the enum values");
      }
    }
    if (value.is_number()) CheckNumber(schema, value, at);
    if (value.is_string() && schema.contains("minLength") &&
        value.get<std::string>().size() < schema["minLength"].get<size_t>()) {
      Fail(at, "shorter than minLength");
    }
    if (value.is_array()) CheckArray(schema, value, at);
    if (value.is_object()) CheckObject(schema, value, at);
  }

  std::vector<std::string> errors;

 private:
  void Fail(const std::string& at, const std::string& what) {
    errors.push_back((at.empty() ? "/" : at) + ": " + what);
  }

  const json& Resolve(const json& ref) {
    const std::string prefix = "#/$defs/";
    const std::string text = ref.get<std::string>();
    if (text.rfind(prefix, 0) != 0 || !root_["$defs"].contains(text.substr(prefix.size()))) {
      throw std::runtime_error("unresolvable $ref " + text);
    }
    return root_["$defs"][text.substr(prefix.size())];
  }

  void CheckType(const json& type, const json& value, const std::string& at) {
    const std::vector<std::string> types = type.is_array()
                                               ? type.get<std::vector<std::string>>()
                                               : std::vector<std::string>{type.get<std::string>()};
    for (const std::string& t : types) {
      if (HasType(value, t)) return;
    }
    Fail(at, "has the wrong type (want " + type.dump() + ")");
  }

  void CheckNumber(const json& schema, const json& value, const std::string& at) {
    if (schema.contains("minimum") && value < schema["minimum"]) Fail(at, "below minimum");
    if (schema.contains("maximum") && value > schema["maximum"]) Fail(at, "above maximum");
  }

  void CheckArray(const json& schema, const json& value, const std::string& at) {
    if (schema.contains("minItems") && value.size() < schema["minItems"].get<size_t>()) {
      Fail(at, "fewer than minItems");
    }
    if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<size_t>()) {
      Fail(at, "more than maxItems");
    }
    if (!schema.contains("items")) return;
    for (size_t i = 0; i < value.size(); ++i) {
      Check(schema["items"], value[i], at + "/" + std::to_string(i));
    }
  }

  void CheckObject(const json& schema, const json& value, const std::string& at) {
    const json properties = schema.value("properties", json::object());
    for (const json& key : schema.value("required", json::array())) {
      if (!value.contains(key.get<std::string>())) Fail(at, "missing required key " + key.dump());
    }
    for (const auto& item : value.items()) {
      if (properties.contains(item.key())) {
        Check(properties[item.key()], item.value(), at + "/" + item.key());
      } else if (schema.contains("additionalProperties") &&
                 schema["additionalProperties"] == false) {
        Fail(at, "unexpected key \"" + item.key() + "\"");
      }
    }
  }

  const json& root_;
};

}  // namespace

std::vector<std::string> CheckAgainstSchema(const json& schema, const json& value) {
  Checker checker(schema);
  checker.Check(schema, value, "");
  return checker.errors;
}

json LoadSourceJson(const std::string& relative) {
  std::ifstream in(std::string(PI_FUSION_SOURCE_DIR) + "/" + relative);
  if (!in) throw std::runtime_error("cannot open " + relative);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return json::parse(buffer.str());
}

}  // namespace pi_fusion::testing
