#include "schema_check.h"

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace pi_fusion::workflow::testing {
namespace {

using nlohmann::json;

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

  void Check(const json& schema, const json& value, const std::string& path,
             std::vector<std::string>& out) {
    if (schema.contains("$ref")) {
      const std::string ref = schema["$ref"];
      const std::string prefix = "#/$defs/";
      if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("unsupported $ref " + ref);
      return Check(root_["$defs"][ref.substr(prefix.size())], value, path, out);
    }
    if (schema.contains("oneOf")) return OneOf(schema["oneOf"], value, path, out);
    if (schema.contains("type")) {
      const json& t = schema["type"];
      bool ok = false;
      for (const json& one : t.is_array() ? t : json::array({t})) ok = ok || HasType(value, one);
      if (!ok) return out.push_back(path + ": expected type " + t.dump());
    }
    if (schema.contains("const") && value != schema["const"]) {
      out.push_back(path + ": expected " + schema["const"].dump());
    }
    if (schema.contains("enum")) {
      bool found = false;
      for (const json& e : schema["enum"]) found = found || e == value;
      if (!found) out.push_back(path + ": not in enum " + schema["enum"].dump());
    }
    if (value.is_string()) Strings(schema, value.get<std::string>(), path, out);
    if (value.is_number()) Numbers(schema, value, path, out);
    if (value.is_array()) Arrays(schema, value, path, out);
    if (value.is_object()) Objects(schema, value, path, out);
  }

 private:
  void OneOf(const json& options, const json& value, const std::string& path,
             std::vector<std::string>& out) {
    int matches = 0;
    for (const json& option : options) {
      std::vector<std::string> sub;
      Check(option, value, path, sub);
      matches += sub.empty();
    }
    if (matches != 1) out.push_back(path + ": matches " + std::to_string(matches) + " of oneOf");
  }

  void Strings(const json& schema, const std::string& s, const std::string& path,
               std::vector<std::string>& out) {
    if (schema.contains("minLength") && s.size() < schema["minLength"].get<size_t>()) {
      out.push_back(path + ": shorter than minLength");
    }
    if (schema.contains("pattern") &&
        !std::regex_search(s, std::regex(schema["pattern"].get<std::string>()))) {
      out.push_back(path + ": does not match " + schema["pattern"].get<std::string>());
    }
  }

  void Numbers(const json& schema, const json& v, const std::string& path,
               std::vector<std::string>& out) {
    if (schema.contains("minimum") && v.get<double>() < schema["minimum"].get<double>()) {
      out.push_back(path + ": below minimum");
    }
    if (schema.contains("maximum") && v.get<double>() > schema["maximum"].get<double>()) {
      out.push_back(path + ": above maximum");
    }
  }

  void Arrays(const json& schema, const json& v, const std::string& path,
              std::vector<std::string>& out) {
    if (schema.contains("minItems") && v.size() < schema["minItems"].get<size_t>()) {
      out.push_back(path + ": fewer than minItems");
    }
    if (schema.contains("maxItems") && v.size() > schema["maxItems"].get<size_t>()) {
      out.push_back(path + ": more than maxItems");
    }
    if (!schema.contains("items")) return;
    for (size_t i = 0; i < v.size(); ++i) {
      Check(schema["items"], v[i], path + "[" + std::to_string(i) + "]", out);
    }
  }

  void Objects(const json& schema, const json& v, const std::string& path,
               std::vector<std::string>& out) {
    const json properties = schema.value("properties", json::object());
    for (const json& key : schema.value("required", json::array())) {
      if (!v.contains(key.get<std::string>())) out.push_back(path + ": missing " + key.dump());
    }
    for (const auto& [key, child] : v.items()) {
      if (properties.contains(key)) {
        Check(properties[key], child, path + "." + key, out);
      } else if (schema.contains("additionalProperties")) {
        const json& extra = schema["additionalProperties"];
        if (extra.is_boolean() && !extra.get<bool>()) {
          out.push_back(path + ": unexpected key " + key);
        } else if (extra.is_object()) {
          Check(extra, child, path + "." + key, out);
        }
      }
    }
  }

  const json& root_;
};

}  // namespace

std::string ReadSourceFile(const std::string& relative_path) {
  std::ifstream in(std::string(PI_FUSION_SOURCE_DIR) + "/" + relative_path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + relative_path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json LoadArtifactSchema(const std::string& file) {
  return json::parse(ReadSourceFile("schemas/artifacts/" + file));
}

std::vector<std::string> SchemaViolations(const json& schema, const json& value) {
  std::vector<std::string> out;
  Checker(schema).Check(schema, value, "$", out);
  return out;
}

}  // namespace pi_fusion::workflow::testing
