#include "protocol/json_fields.h"

#include <algorithm>

#include "protocol/constants.h"

namespace pi_fusion::protocol {

using nlohmann::json;

bool IsSha256Ref(std::string_view text) {
  constexpr std::string_view kPrefix = "sha256:";
  if (text.size() != kPrefix.size() + 64 || text.substr(0, kPrefix.size()) != kPrefix) {
    return false;
  }
  return std::all_of(text.begin() + kPrefix.size(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

FieldReader::FieldReader(const json& value, std::string what)
    : value_(value), what_(std::move(what)) {
  if (!value_.is_object()) Fail("is not a JSON object");
}

void FieldReader::Fail(const std::string& message) {
  if (status_.ok()) {
    status_ = Status::Error(std::string(kChildEventInvalid), what_ + " " + message);
  }
}

const json* FieldReader::Find(std::string_view key) {
  if (!ok()) return nullptr;
  read_.emplace(key);
  auto it = value_.find(std::string(key));
  if (it == value_.end()) {
    Fail("is missing key \"" + std::string(key) + "\"");
    return nullptr;
  }
  return &*it;
}

const json* FieldReader::Member(std::string_view key, json::value_t type) {
  const json* member = Find(key);
  if (member == nullptr) return nullptr;
  const bool is_number = member->is_number_integer();
  const bool matches = member->type() == type ||
                       (type == json::value_t::number_integer && is_number) ||
                       (type == json::value_t::number_unsigned && is_number);
  if (!matches) {
    Fail("has a wrong type for \"" + std::string(key) + "\"");
    return nullptr;
  }
  return member;
}

const json* FieldReader::NullableMember(std::string_view key, json::value_t type) {
  const json* member = Find(key);
  if (member == nullptr || member->is_null()) return nullptr;
  read_.erase(std::string(key));  // Member() re-adds it
  return Member(key, type);
}

std::string FieldReader::String(std::string_view key, size_t max_bytes) {
  const json* member = Member(key, json::value_t::string);
  if (member == nullptr) return {};
  const std::string& text = member->get_ref<const std::string&>();
  if (text.size() > max_bytes) Fail("has an over-long \"" + std::string(key) + "\"");
  return text;
}

std::optional<std::string> FieldReader::NullableString(std::string_view key, size_t max_bytes) {
  const json* member = NullableMember(key, json::value_t::string);
  if (member == nullptr) return std::nullopt;
  const std::string& text = member->get_ref<const std::string&>();
  if (text.size() > max_bytes) Fail("has an over-long \"" + std::string(key) + "\"");
  return text;
}

std::string FieldReader::Enum(std::string_view key, const std::vector<std::string_view>& allowed) {
  std::string text = String(key);
  if (ok() && std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
    Fail("has an unknown \"" + std::string(key) + "\": \"" + text + "\"");
  }
  return text;
}

std::optional<std::string> FieldReader::NullableEnum(std::string_view key,
                                                     const std::vector<std::string_view>& allowed) {
  std::optional<std::string> text = NullableString(key);
  if (text && std::find(allowed.begin(), allowed.end(), *text) == allowed.end()) {
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

namespace {

// Integers only: a frame never carries a fractional count, and 1.0 is not written by the child.
std::optional<int64_t> AsInt(const json& value) {
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (value.is_number_integer()) return value.get<int64_t>();
  return std::nullopt;
}

}  // namespace

int64_t FieldReader::Int(std::string_view key, int64_t min, int64_t max) {
  const json* member = Member(key, json::value_t::number_integer);
  if (member == nullptr) return 0;
  std::optional<int64_t> number = AsInt(*member);
  if (!number || *number < min || *number > max) {
    Fail("has an out-of-range \"" + std::string(key) + "\"");
    return 0;
  }
  return *number;
}

std::optional<int64_t> FieldReader::NullableInt(std::string_view key, int64_t min, int64_t max) {
  const json* member = NullableMember(key, json::value_t::number_integer);
  if (member == nullptr) return std::nullopt;
  std::optional<int64_t> number = AsInt(*member);
  if (!number || *number < min || *number > max) {
    Fail("has an out-of-range \"" + std::string(key) + "\"");
    return std::nullopt;
  }
  return number;
}

bool FieldReader::Bool(std::string_view key) {
  const json* member = Member(key, json::value_t::boolean);
  return member != nullptr && member->get<bool>();
}

Status FieldReader::Finish() {
  if (!ok()) return status_;
  for (auto it = value_.begin(); it != value_.end(); ++it) {
    if (read_.find(it.key()) == read_.end()) {
      Fail("has an unknown key \"" + it.key() + "\"");
      break;
    }
  }
  return status_;
}

}  // namespace pi_fusion::protocol
