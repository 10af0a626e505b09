#include "schema/schema_walker.h"

#include "core/error_codes.h"

#include <algorithm>
#include <vector>

namespace pi_fusion::schema {
namespace {

using nlohmann::json;

Status Invalid(const std::string& label, const std::string& what) {
  return Status::Error(kInvalidArguments, label + " " + what);
}

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += sep;
    out += item;
  }
  return out;
}

// Length in bytes of the white-space code point starting at text[i], or 0.
size_t SpaceAt(std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c == ' ' || (c >= 0x09 && c <= 0x0d)) return 1;
  auto starts = [&](std::string_view seq) { return text.substr(i, seq.size()) == seq; };
  // U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF.
  static constexpr std::string_view kTwo[] = {"\xc2\xa0"};
  static constexpr std::string_view kThree[] = {"\xe1\x9a\x80", "\xe2\x80\xa8", "\xe2\x80\xa9",
                                                "\xe2\x80\xaf", "\xe2\x81\x9f", "\xe3\x80\x80",
                                                "\xef\xbb\xbf"};
  for (std::string_view s : kTwo) {
    if (starts(s)) return 2;
  }
  for (std::string_view s : kThree) {
    if (starts(s)) return 3;
  }
  if (c == 0xe2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x80) {
    const auto third = static_cast<unsigned char>(text[i + 2]);
    if (third >= 0x80 && third <= 0x8a) return 3;  // U+2000..U+200A
  }
  return 0;
}

// Length in bytes of a white-space code point ending at text[end-1], or 0.
size_t SpaceBefore(std::string_view text, size_t end) {
  for (size_t len = 1; len <= 3 && len <= end; ++len) {
    if (SpaceAt(text, end - len) == len) return len;
  }
  return 0;
}

class Walker {
 public:
  Result<json> Walk(const json& schema, const json& value, const std::string& label) {
    const std::string type = schema.value("type", "");
    if (type == "object") return WalkObject(schema, value, label);
    if (type == "array") return WalkArray(schema, value, label);
    if (type == "string") return WalkString(schema, value, label);
    return Status::Error(kOrchestrationFailed, "schema type not supported: " + type);
  }

 private:
  Result<json> WalkObject(const json& schema, const json& value, const std::string& label) {
    if (!value.is_object()) return Invalid(label, "must be an object");
    const json& props = schema.at("properties");
    std::vector<std::string> unsupported;
    for (const auto& [key, unused] : value.items()) {
      if (!props.contains(key)) unsupported.push_back(key);
    }
    if (!unsupported.empty()) {
      std::sort(unsupported.begin(), unsupported.end());
      return Invalid(label, "contains unsupported key(s): " + Join(unsupported, ", "));
    }
    std::vector<std::string> missing;
    const json required = schema.value("required", json::array());
    for (const json& key : required) {
      if (!value.contains(key.get<std::string>())) missing.push_back(key.get<std::string>());
    }
    if (!missing.empty()) return Invalid(label, "missing required key(s): " + Join(missing, ", "));

    json out = json::object();
    for (const auto& [key, prop] : props.items()) {
      const std::string child = label_is_root_ ? key : label + "." + key;
      if (!value.contains(key)) {
        if (prop.value("type", "") == "array") out[key] = json::array();
        continue;
      }
      const bool was_root = label_is_root_;
      label_is_root_ = false;
      Result<json> normalized = Walk(prop, value.at(key), child);
      label_is_root_ = was_root;
      if (!normalized.ok()) return normalized.status();
      out[key] = std::move(normalized).value();
    }
    return out;
  }

  Result<json> WalkArray(const json& schema, const json& value, const std::string& label) {
    // Pi coerces a lone string into a one-item array; accept the same form so a direct call and a
    // call through Pi's validator normalize identically (the item is still checked).
    if (value.is_string() && schema.at("items").value("type", "") == "string") {
      return WalkArray(schema, json::array({value}), label);
    }
    if (!value.is_array()) return Invalid(label, "must be an array");
    json out = json::array();
    for (size_t i = 0; i < value.size(); ++i) {
      const bool was_root = label_is_root_;
      label_is_root_ = false;
      Result<json> item = Walk(schema.at("items"), value[i], label + "[" + std::to_string(i) + "]");
      label_is_root_ = was_root;
      if (!item.ok()) return item.status();
      out.push_back(std::move(item).value());
    }
    if (out.size() < schema.value("minItems", 0u)) return Invalid(label, "must not be empty");
    return out;
  }

  Result<json> WalkString(const json& schema, const json& value, const std::string& label) {
    if (!value.is_string()) return Invalid(label, "must be a string");
    std::string trimmed = TrimUnicodeSpace(value.get<std::string>());
    if (trimmed.empty() && schema.value("minLength", 0) > 0) {
      return Invalid(label, "must not be blank");
    }
    if (schema.contains("enum")) {
      std::vector<std::string> allowed;
      for (const json& e : schema.at("enum")) allowed.push_back(e.get<std::string>());
      if (std::find(allowed.begin(), allowed.end(), trimmed) == allowed.end()) {
        return Invalid(label, "must be one of: " + Join(allowed, ", "));
      }
    }
    return json(std::move(trimmed));
  }

  bool label_is_root_ = true;
};

}  // namespace

std::string TrimUnicodeSpace(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end) {
    const size_t n = SpaceAt(text, begin);
    if (n == 0) break;
    begin += n;
  }
  while (end > begin) {
    const size_t n = SpaceBefore(text.substr(0, end), end);
    if (n == 0) break;
    end -= n;
  }
  return std::string(text.substr(begin, end - begin));
}

Result<nlohmann::json> NormalizeAgainstSchema(const nlohmann::json& schema,
                                              const nlohmann::json& value,
                                              std::string_view root_label) {
  Walker walker;
  return walker.Walk(schema, value, std::string(root_label));
}

}  // namespace pi_fusion::schema
