#include "store/json_util.h"

#include "core/durable_file.h"
#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

const json& NullJson() {
  static const json kNull;
  return kNull;
}

// Parsed JSON holds non-negative integers as unsigned; values built in C++ may be signed.
bool IsCountValue(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

// A key for an error message: short, and never invalid UTF-8 (messages end up in JSON).
std::string KeyForMessage(const std::string& key) {
  if (!IsValidUtf8(key)) return "(not UTF-8)";
  return "\"" + TruncateUtf8(key, 64) + "\"";
}

}  // namespace

Result<std::string> CanonicalBytes(const json& value, std::string_view what) {
  try {
    return CanonicalJson(value);
  } catch (const json::exception& e) {
    return Status::Error(kArtifactError,
                         std::string(what) + " cannot be serialized: " + std::string(e.what()));
  }
}

Result<json> ParseJson(std::string_view bytes, std::string_view what) {
  json value = json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    return Status::Error(kArtifactError, std::string(what) + " is not valid JSON");
  }
  return value;
}

FieldReader::FieldReader(const json& object, std::string where)
    : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) Fail("is not an object");
}

const json* FieldReader::Get(const char* key) {
  read_.insert(key);
  if (!object_.is_object()) return nullptr;
  auto it = object_.find(key);
  if (it == object_.end()) {
    Fail(std::string("is missing \"") + key + "\"");
    return nullptr;
  }
  return &*it;
}

std::string FieldReader::String(const char* key) {
  const json* v = Get(key);
  if (v == nullptr) return {};
  if (!v->is_string()) {
    Fail(std::string("\"") + key + "\" is not a string");
    return {};
  }
  return v->get<std::string>();
}

std::optional<std::string> FieldReader::NullableString(const char* key) {
  const json* v = Get(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_string()) {
    Fail(std::string("\"") + key + "\" is not a string or null");
    return std::nullopt;
  }
  return v->get<std::string>();
}

uint64_t FieldReader::Count(const char* key) {
  const json* v = Get(key);
  if (v == nullptr) return 0;
  if (!IsCountValue(*v)) {
    Fail(std::string("\"") + key + "\" is not a non-negative integer");
    return 0;
  }
  return v->get<uint64_t>();
}

std::optional<uint64_t> FieldReader::NullableCount(const char* key) {
  const json* v = Get(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!IsCountValue(*v)) {
    Fail(std::string("\"") + key + "\" is not a non-negative integer or null");
    return std::nullopt;
  }
  return v->get<uint64_t>();
}

bool FieldReader::Bool(const char* key) {
  const json* v = Get(key);
  if (v == nullptr) return false;
  if (!v->is_boolean()) {
    Fail(std::string("\"") + key + "\" is not a boolean");
    return false;
  }
  return v->get<bool>();
}

const json& FieldReader::Object(const char* key) {
  const json* v = Get(key);
  if (v == nullptr) return NullJson();
  if (!v->is_object()) Fail(std::string("\"") + key + "\" is not an object");
  return *v;
}

const json& FieldReader::Array(const char* key) {
  const json* v = Get(key);
  if (v == nullptr) return NullJson();
  if (!v->is_array()) Fail(std::string("\"") + key + "\" is not an array");
  return *v;
}

const json& FieldReader::Value(const char* key) {
  const json* v = Get(key);
  return v == nullptr ? NullJson() : *v;
}

bool FieldReader::Has(const char* key) const {
  return object_.is_object() && object_.contains(key);
}

void FieldReader::Fail(const std::string& problem) {
  if (problem_.empty()) problem_ = problem;
}

Status FieldReader::Finish() const {
  std::string problem = problem_;
  if (problem.empty() && object_.is_object()) {
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      if (read_.count(it.key()) == 0) {
        problem = "has an unknown key " + KeyForMessage(it.key());
        break;
      }
    }
  }
  if (problem.empty()) return Status::Ok();
  return Status::Error(kArtifactError, where_ + " " + problem);
}

}  // namespace pi_fusion::store
