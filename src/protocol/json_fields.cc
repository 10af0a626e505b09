#include "protocol/json_fields.h"

#include <algorithm>

#include "protocol/constants.h"

namespace pi_fusion::protocol {

using nlohmann::json;

namespace {

bool IsAllowed(const std::vector<std::string_view>& allowed, std::string_view text) {
  return std::find(allowed.begin(), allowed.end(), text) != allowed.end();
}

std::string Quoted(const std::string& key) { return "\"" + key + "\""; }

// The frame wording: one phrase per kind, whatever type the lookup expected.
std::string Describe(const FieldProblem& p) {
  using Kind = FieldProblem::Kind;
  switch (p.kind) {
    case Kind::kNotObject:
      return "is not a JSON object";
    case Kind::kMissing:
      return "is missing key " + Quoted(p.key);
    case Kind::kWrongType:
      return "has a wrong type for " + Quoted(p.key);
    case Kind::kOutOfRange:
      return "has an out-of-range " + Quoted(p.key);
    case Kind::kTooLong:
      return "has an over-long " + Quoted(p.key);
    case Kind::kUnknownKey:
      return "has an unknown key " + Quoted(p.key);
    case Kind::kOther:
      return p.text;
  }
  return p.text;
}

}  // namespace

bool IsSha256Ref(std::string_view text) {
  constexpr std::string_view kPrefix = "sha256:";
  if (text.size() != kPrefix.size() + 64 || text.substr(0, kPrefix.size()) != kPrefix) {
    return false;
  }
  return std::all_of(text.begin() + kPrefix.size(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

FieldReader::FieldReader(const json& value, std::string what)
    : fields_(value), what_(std::move(what)) {}

void FieldReader::Fail(const std::string& message) { fields_.Fail(message); }

Status FieldReader::status() const {
  if (fields_.ok()) return Status::Ok();
  return Status::Error(std::string(kChildEventInvalid), what_ + " " + Describe(*fields_.problem()));
}

Status FieldReader::Finish() {
  fields_.Finish();
  return status();
}

const json* FieldReader::Member(std::string_view key, JsonShape shape) {
  return fields_.Member(key, shape);
}

const json* FieldReader::NullableMember(std::string_view key, JsonShape shape) {
  return fields_.NullableMember(key, shape);
}

std::string FieldReader::String(std::string_view key, size_t max_bytes) {
  return fields_.String(key, max_bytes).value_or("");
}

std::optional<std::string> FieldReader::NullableString(std::string_view key, size_t max_bytes) {
  return fields_.NullableString(key, max_bytes);
}

std::string FieldReader::Enum(std::string_view key, const std::vector<std::string_view>& allowed) {
  std::string text = String(key);
  if (ok() && !IsAllowed(allowed, text)) {
    Fail("has an unknown \"" + std::string(key) + "\": \"" + text + "\"");
  }
  return text;
}

std::optional<std::string> FieldReader::NullableEnum(std::string_view key,
                                                     const std::vector<std::string_view>& allowed) {
  std::optional<std::string> text = NullableString(key);
  if (text && !IsAllowed(allowed, *text)) {
    Fail("has an unknown \"" + std::string(key) + "\": \"" + *text + "\"");
  }
  return text;
}

std::string FieldReader::Sha256(std::string_view key) {
  std::string text = String(key);
  if (ok() && !IsSha256Ref(text)) Fail("has a malformed hash in \"" + std::string(key) + "\"");
  return text;
}

std::optional<std::string> FieldReader::NullableSha256(std::string_view key) {
  std::optional<std::string> text = NullableString(key);
  if (text && !IsSha256Ref(*text)) Fail("has a malformed hash in \"" + std::string(key) + "\"");
  return text;
}

int64_t FieldReader::Int(std::string_view key, int64_t min, int64_t max) {
  return fields_.Int(key, min, max).value_or(0);
}

std::optional<int64_t> FieldReader::NullableInt(std::string_view key, int64_t min, int64_t max) {
  return fields_.NullableInt(key, min, max);
}

bool FieldReader::Bool(std::string_view key) { return fields_.Bool(key).value_or(false); }

}  // namespace pi_fusion::protocol
