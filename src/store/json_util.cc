#include "store/json_util.h"

#include "core/durable_file.h"
#include "core/json_text.h"
#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"

namespace pi_fusion::store {

using nlohmann::json;

Result<std::string> CanonicalBytes(const json& value, std::string_view what) {
  try {
    return CanonicalJson(value);
  } catch (const json::exception& e) {
    return Status::Error(kArtifactError,
                         std::string(what) + " cannot be serialized: " + std::string(e.what()));
  }
}

Result<json> ParseJson(std::string_view bytes, std::string_view what) {
  return ParseUniqueKeyJson(bytes, what, kArtifactError);
}

namespace {

const json& NullJson() {
  static const json kNull;
  return kNull;
}

// A key for an error message: short, and never invalid UTF-8 (messages end up in JSON).
std::string KeyForMessage(const std::string& key) {
  if (!IsValidUtf8(key)) return "(not UTF-8)";
  return "\"" + TruncateUtf8(key, 64) + "\"";
}

// What a mistyped member should have been. The store reads integers only as counts, so an out-of-
// range integer (a negative one) gets the same words as a mistyped one.
std::string Expected(JsonShape shape) {
  switch (shape) {
    case JsonShape::kString:
      return "a string";
    case JsonShape::kInteger:
      return "a non-negative integer";
    case JsonShape::kBoolean:
      return "a boolean";
    case JsonShape::kObject:
      return "an object";
    case JsonShape::kArray:
      return "an array";
  }
  return "valid";
}

// The artifact wording: "<where> <problem>", the key first when the problem is its value.
std::string Describe(const FieldProblem& p) {
  using Kind = FieldProblem::Kind;
  switch (p.kind) {
    case Kind::kNotObject:
      return "is not an object";
    case Kind::kMissing:
      return "is missing \"" + p.key + "\"";
    case Kind::kWrongType:
    case Kind::kOutOfRange:
      return "\"" + p.key + "\" is not " + Expected(p.expected) + (p.nullable ? " or null" : "");
    case Kind::kTooLong:  // not produced: the store reads strings without a byte limit
      return "\"" + p.key + "\" is too long";
    case Kind::kUnknownKey:
      return "has an unknown key " + KeyForMessage(p.key);
    case Kind::kOther:
      return p.text;
  }
  return p.text;
}

}  // namespace

FieldReader::FieldReader(const json& object, std::string where)
    : fields_(object), where_(std::move(where)) {}

std::string FieldReader::String(const char* key) { return fields_.String(key).value_or(""); }

std::optional<std::string> FieldReader::NullableString(const char* key) {
  return fields_.NullableString(key);
}

uint64_t FieldReader::Count(const char* key) { return fields_.Uint(key).value_or(0); }

std::optional<uint64_t> FieldReader::NullableCount(const char* key) {
  return fields_.NullableUint(key);
}

bool FieldReader::Bool(const char* key) { return fields_.Bool(key).value_or(false); }

const json& FieldReader::Object(const char* key) {
  const json* v = fields_.Member(key, JsonShape::kObject);
  return v == nullptr ? NullJson() : *v;
}

const json& FieldReader::Array(const char* key) {
  const json* v = fields_.Member(key, JsonShape::kArray);
  return v == nullptr ? NullJson() : *v;
}

const json& FieldReader::Value(const char* key) {
  const json* v = fields_.Value(key);
  return v == nullptr ? NullJson() : *v;
}

bool FieldReader::Has(const char* key) const { return fields_.Has(key); }

void FieldReader::Fail(const std::string& problem) { fields_.Fail(problem); }

Status FieldReader::Finish() {
  const std::optional<FieldProblem>& problem = fields_.Finish();
  if (!problem) return Status::Ok();
  return Status::Error(kArtifactError, where_ + " " + Describe(*problem));
}

}  // namespace pi_fusion::store
