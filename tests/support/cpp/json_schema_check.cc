#include "json_schema_check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace pi_fusion::testing {
namespace {

using nlohmann::json;

// Keywords the checker enforces.
const std::set<std::string> kAssertions = {
    "type",    "const",           "enum",     "properties", "required",  "additionalProperties",
    "items",   "minItems",        "maxItems", "minLength",  "maxLength", "pattern",
    "minimum", "maximum",         "oneOf",    "anyOf",      "allOf",     "$ref",
    "$defs",   "exclusiveMinimum"};

// Keywords that carry no rule.
const std::set<std::string> kAnnotations = {"$schema", "$id",         "$comment",
                                            "title",   "description", "examples"};

const std::set<std::string> kTypeNames = {"object", "array",   "string", "integer",
                                          "number", "boolean", "null"};

const std::string kRefPrefix = "#/$defs/";

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

std::string TypeName(const json& value) {
  return value.is_number_integer() ? "integer" : value.type_name();
}

// A JSON pointer reference token: "~" and "/" escaped.
std::string Token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xc0) != 0x80;
  return n;
}

class Checker {
 public:
  explicit Checker(const json& root) : root_(root) {}

  // Walks the whole schema once, reporting what the checker would otherwise skip or misread.
  void Audit(const json& schema, const std::string& at, std::vector<std::string>& out) {
    if (schema.is_boolean()) return;
    if (!schema.is_object()) return Bad(at, "is neither an object nor a boolean", out);
    for (const auto& [key, rule] : schema.items()) {
      const std::string here = at + "/" + Token(key);
      if (kAnnotations.count(key)) continue;
      if (!kAssertions.count(key)) {
        Bad(at, "uses unsupported keyword \"" + key + "\"", out);
      } else if (key == "properties" || key == "$defs") {
        if (!rule.is_object()) {
          Bad(here, "is not an object", out);
          continue;
        }
        for (const auto& [name, sub] : rule.items()) Audit(sub, here + "/" + Token(name), out);
      } else if (key == "items" || key == "additionalProperties") {
        Audit(rule, here, out);
      } else if (key == "oneOf" || key == "anyOf" || key == "allOf") {
        if (!rule.is_array() || rule.empty()) {
          Bad(here, "is not a non-empty array", out);
          continue;
        }
        for (size_t i = 0; i < rule.size(); ++i) {
          Audit(rule[i], here + "/" + std::to_string(i), out);
        }
      } else if (key == "$ref") {
        if (Resolve(rule) == nullptr) Bad(here, "cannot resolve " + rule.dump(), out);
      } else if (key == "type") {
        for (const json& name : rule.is_array() ? rule : json::array({rule})) {
          if (!name.is_string() || !kTypeNames.count(name.get<std::string>())) {
            Bad(here, "names unknown type " + name.dump(), out);
          }
        }
      } else if (key == "pattern") {
        AuditPattern(rule, here, out);
      }
    }
  }

  void Check(const json& schema, const json& value, const std::string& at,
             std::vector<std::string>& out) {
    if (schema.is_boolean()) {
      if (!schema.get<bool>()) Fail(at, "not allowed (the schema is false)", out);
      return;
    }
    if (!schema.is_object()) return;  // Reported by Audit.
    if (schema.contains("$ref")) {
      if (const json* target = Resolve(schema["$ref"])) Check(*target, value, at, out);
    }
    if (schema.contains("type") && !TypeMatches(schema["type"], value)) {
      return Fail(
          at,
          "has the wrong type (want " + schema["type"].dump() + ", got " + TypeName(value) + ")",
          out);
    }
    if (schema.contains("const") && value != schema["const"]) {
      Fail(at, "must equal the const " + schema["const"].dump(), out);
    }
    if (schema.contains("enum")) {
      const json& options = schema["enum"];
      if (std::find(options.begin(), options.end(), value) == options.end()) {
        Fail(at, "not one of the enum values " + options.dump(), out);
      }
    }
    if (schema.contains("oneOf")) OneOf(schema["oneOf"], value, at, out);
    if (schema.contains("anyOf")) AnyOf(schema["anyOf"], value, at, out);
    if (schema.contains("allOf")) {
      for (const json& sub : schema["allOf"]) Check(sub, value, at, out);
    }
    if (value.is_string()) Strings(schema, value.get<std::string>(), at, out);
    if (value.is_number()) Numbers(schema, value, at, out);
    if (value.is_array()) Arrays(schema, value, at, out);
    if (value.is_object()) Objects(schema, value, at, out);
  }

 private:
  static void Bad(const std::string& at, const std::string& what, std::vector<std::string>& out) {
    out.push_back("schema " + at + ": " + what);
  }

  static void Fail(const std::string& at, const std::string& what, std::vector<std::string>& out) {
    out.push_back((at.empty() ? "(root)" : at) + ": " + what);
  }

  const json* Resolve(const json& ref) const {
    if (!ref.is_string()) return nullptr;
    const std::string text = ref.get<std::string>();
    if (text.rfind(kRefPrefix, 0) != 0) return nullptr;
    const auto defs = root_.find("$defs");
    if (defs == root_.end() || !defs->is_object()) return nullptr;
    const auto target = defs->find(text.substr(kRefPrefix.size()));
    return target == defs->end() ? nullptr : &*target;
  }

  void AuditPattern(const json& rule, const std::string& at, std::vector<std::string>& out) {
    if (!rule.is_string()) return Bad(at, "is not a string", out);
    const std::string text = rule.get<std::string>();
    if (patterns_.count(text)) return;
    try {
      patterns_.emplace(text, std::regex(text, std::regex::ECMAScript));
    } catch (const std::regex_error& e) {
      Bad(at, "is not a valid ECMAScript pattern (" + std::string(e.what()) + ")", out);
    }
  }

  static bool TypeMatches(const json& type, const json& value) {
    for (const json& name : type.is_array() ? type : json::array({type})) {
      if (name.is_string() && HasType(value, name.get<std::string>())) return true;
    }
    return false;
  }

  void OneOf(const json& options, const json& value, const std::string& at,
             std::vector<std::string>& out) {
    int matches = 0;
    for (const json& option : options) {
      std::vector<std::string> sub;
      Check(option, value, at, sub);
      matches += sub.empty();
    }
    if (matches != 1) {
      Fail(at, "matches " + std::to_string(matches) + " oneOf options, want exactly 1", out);
    }
  }

  void AnyOf(const json& options, const json& value, const std::string& at,
             std::vector<std::string>& out) {
    for (const json& option : options) {
      std::vector<std::string> sub;
      Check(option, value, at, sub);
      if (sub.empty()) return;
    }
    Fail(at, "matches no anyOf option", out);
  }

  void Strings(const json& schema, const std::string& s, const std::string& at,
               std::vector<std::string>& out) {
    if (schema.contains("minLength") && CodePoints(s) < schema["minLength"].get<size_t>()) {
      Fail(at, "shorter than minLength " + schema["minLength"].dump(), out);
    }
    if (schema.contains("maxLength") && CodePoints(s) > schema["maxLength"].get<size_t>()) {
      Fail(at, "longer than maxLength " + schema["maxLength"].dump(), out);
    }
    if (schema.contains("pattern") && schema["pattern"].is_string()) {
      const auto pattern = patterns_.find(schema["pattern"].get<std::string>());
      if (pattern != patterns_.end() && !std::regex_search(s, pattern->second)) {
        Fail(at, "does not match pattern " + schema["pattern"].dump(), out);
      }
    }
  }

  static void Numbers(const json& schema, const json& value, const std::string& at,
                      std::vector<std::string>& out) {
    if (schema.contains("minimum") && value < schema["minimum"]) {
      Fail(at, "below minimum " + schema["minimum"].dump(), out);
    }
    if (schema.contains("exclusiveMinimum") && value <= schema["exclusiveMinimum"]) {
      Fail(at, "not above exclusiveMinimum " + schema["exclusiveMinimum"].dump(), out);
    }
    if (schema.contains("maximum") && value > schema["maximum"]) {
      Fail(at, "above maximum " + schema["maximum"].dump(), out);
    }
  }

  void Arrays(const json& schema, const json& value, const std::string& at,
              std::vector<std::string>& out) {
    if (schema.contains("minItems") && value.size() < schema["minItems"].get<size_t>()) {
      Fail(at, "fewer than minItems " + schema["minItems"].dump(), out);
    }
    if (schema.contains("maxItems") && value.size() > schema["maxItems"].get<size_t>()) {
      Fail(at, "more than maxItems " + schema["maxItems"].dump(), out);
    }
    if (!schema.contains("items")) return;
    for (size_t i = 0; i < value.size(); ++i) {
      Check(schema["items"], value[i], at + "/" + std::to_string(i), out);
    }
  }

  void Objects(const json& schema, const json& value, const std::string& at,
               std::vector<std::string>& out) {
    for (const json& key : schema.value("required", json::array())) {
      if (!value.contains(key.get<std::string>()))
        Fail(at, "missing required key " + key.dump(), out);
    }
    const json properties = schema.value("properties", json::object());
    for (const auto& [key, child] : value.items()) {
      const std::string here = at + "/" + Token(key);
      if (properties.contains(key)) {
        Check(properties[key], child, here, out);
      } else if (schema.contains("additionalProperties")) {
        const json& extra = schema["additionalProperties"];
        if (extra == false) {
          Fail(at, "unexpected key \"" + key + "\"", out);
        } else {
          Check(extra, child, here, out);
        }
      }
    }
  }

  const json& root_;
  std::map<std::string, std::regex> patterns_;  // Compiled by Audit.
};

}  // namespace

std::vector<std::string> CheckAgainstSchema(const json& schema, const json& value) {
  std::vector<std::string> out;
  Checker checker(schema);
  checker.Audit(schema, "#", out);
  checker.Check(schema, value, "", out);
  return out;
}

std::vector<std::string> ListSourceFiles(const std::string& relative_dir,
                                         const std::string& suffix) {
  const std::filesystem::path root(PI_FUSION_SOURCE_DIR);
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / relative_dir)) {
    const std::string path = entry.path().string();
    if (entry.is_regular_file() && path.size() >= suffix.size() &&
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(std::filesystem::relative(entry.path(), root).string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadSourceFile(const std::string& relative) {
  std::ifstream in(std::string(PI_FUSION_SOURCE_DIR) + "/" + relative, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json LoadSourceJson(const std::string& relative) { return json::parse(ReadSourceFile(relative)); }

json LoadArtifactSchema(const std::string& file) {
  return LoadSourceJson("schemas/artifacts/" + file);
}

}  // namespace pi_fusion::testing
