#include "schema_check.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace pi_fusion::store::testing {
namespace {

using nlohmann::json;

const std::set<std::string>& KnownKeywords() {
  static const std::set<std::string> kKeys = {
      "$schema", "$id",      "$defs",    "title",      "description", "$ref",
      "type",    "const",    "enum",     "properties", "required",    "additionalProperties",
      "items",   "minItems", "maxItems", "minLength",  "maxLength",   "minimum",
      "pattern", "anyOf",    "allOf"};
  return kKeys;
}

bool HasType(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  if (type == "number") return v.is_number();
  if (type == "integer") {
    return v.is_number_integer() ||
           (v.is_number_float() &&
            v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  }
  return false;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

class Checker {
 public:
  explicit Checker(const json& root) : root_(root) {}

  void Check(const json& schema, const json& v, const std::string& path) {
    for (auto it = schema.begin(); it != schema.end(); ++it) {
      if (KnownKeywords().count(it.key()) == 0)
        Add(path, "schema uses unsupported keyword " + it.key());
    }
    if (schema.contains("$ref")) return Check(Resolve(schema["$ref"]), v, path);
    if (schema.contains("type") && !TypeMatches(schema["type"], v))
      return Add(path, "has the wrong type");
    if (schema.contains("const") && schema["const"] != v)
      Add(path, "is not " + schema["const"].dump());
    if (schema.contains("enum") &&
        std::find(schema["enum"].begin(), schema["enum"].end(), v) == schema["enum"].end()) {
      Add(path, "is not one of " + schema["enum"].dump());
    }
    if (schema.contains("anyOf")) CheckAnyOf(schema["anyOf"], v, path);
    if (schema.contains("allOf")) {
      for (const json& sub : schema["allOf"]) Check(sub, v, path);
    }
    if (v.is_object()) CheckObject(schema, v, path);
    if (v.is_array()) CheckArray(schema, v, path);
    if (v.is_string()) CheckString(schema, v.get<std::string>(), path);
    if (v.is_number() && schema.contains("minimum") &&
        v.get<double>() < schema["minimum"].get<double>()) {
      Add(path, "is below the minimum");
    }
  }

  std::vector<std::string> problems;

 private:
  const json& Resolve(const json& ref) {
    const std::string r = ref.get<std::string>();
    const std::string prefix = "#/$defs/";
    if (r.rfind(prefix, 0) != 0 || !root_["$defs"].contains(r.substr(prefix.size()))) {
      throw std::runtime_error("unresolvable $ref " + r);
    }
    return root_["$defs"][r.substr(prefix.size())];
  }

  bool TypeMatches(const json& type, const json& v) {
    if (type.is_string()) return HasType(v, type.get<std::string>());
    for (const json& t : type) {
      if (HasType(v, t.get<std::string>())) return true;
    }
    return false;
  }

  void CheckAnyOf(const json& options, const json& v, const std::string& path) {
    for (const json& option : options) {
      Checker sub(root_);
      sub.Check(option, v, path);
      if (sub.problems.empty()) return;
    }
    Add(path, "matches no anyOf option");
  }

  void CheckObject(const json& schema, const json& v, const std::string& path) {
    for (const json& key : schema.value("required", json::array())) {
      if (!v.contains(key.get<std::string>())) Add(path, "is missing " + key.get<std::string>());
    }
    const json props = schema.value("properties", json::object());
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string child = path + "." + it.key();
      if (props.contains(it.key())) {
        Check(props[it.key()], it.value(), child);
      } else if (schema.contains("additionalProperties")) {
        const json& extra = schema["additionalProperties"];
        if (extra.is_boolean()) {
          if (!extra.get<bool>()) Add(child, "is not allowed");
        } else {
          Check(extra, it.value(), child);
        }
      }
    }
  }

  void CheckArray(const json& schema, const json& v, const std::string& path) {
    if (schema.contains("minItems") && v.size() < schema["minItems"].get<size_t>())
      Add(path, "has too few items");
    if (schema.contains("maxItems") && v.size() > schema["maxItems"].get<size_t>())
      Add(path, "has too many items");
    if (!schema.contains("items")) return;
    for (size_t i = 0; i < v.size(); ++i)
      Check(schema["items"], v[i], path + "[" + std::to_string(i) + "]");
  }

  void CheckString(const json& schema, const std::string& s, const std::string& path) {
    if (schema.contains("minLength") && CodePoints(s) < schema["minLength"].get<size_t>())
      Add(path, "is too short");
    if (schema.contains("maxLength") && CodePoints(s) > schema["maxLength"].get<size_t>())
      Add(path, "is too long");
    if (schema.contains("pattern") &&
        !std::regex_search(s, std::regex(schema["pattern"].get<std::string>()))) {
      Add(path, "does not match " + schema["pattern"].get<std::string>());
    }
  }

  void Add(const std::string& path, const std::string& problem) {
    problems.push_back(path + ": " + problem);
  }

  const json& root_;
};

}  // namespace

json LoadArtifactSchema(const std::string& file) {
  std::ifstream in(std::string(PI_FUSION_SOURCE_DIR) + "/schemas/artifacts/" + file);
  if (!in) throw std::runtime_error("cannot open schema " + file);
  std::stringstream buf;
  buf << in.rdbuf();
  return json::parse(buf.str());
}

std::vector<std::string> SchemaViolations(const json& schema, const json& value) {
  Checker checker(schema);
  checker.Check(schema, value, "$");
  return checker.problems;
}

}  // namespace pi_fusion::store::testing
