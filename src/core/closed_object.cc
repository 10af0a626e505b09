#include "core/closed_object.h"

#include <utility>

namespace pi_fusion {

using nlohmann::json;

namespace {

bool HasShape(const json& value, JsonShape shape) {
  switch (shape) {
    case JsonShape::kString:
      return value.is_string();
    case JsonShape::kInteger:
      return value.is_number_integer();  // signed or unsigned; 1.0 is a float
    case JsonShape::kBoolean:
      return value.is_boolean();
    case JsonShape::kObject:
      return value.is_object();
    case JsonShape::kArray:
      return value.is_array();
  }
  return false;
}

}  // namespace

ClosedObjectReader::ClosedObjectReader(const json& object) : object_(object) {
  if (!object_.is_object()) Fail(FieldProblem{.kind = FieldProblem::Kind::kNotObject});
}

void ClosedObjectReader::Fail(FieldProblem problem) {
  if (!problem_) problem_ = std::move(problem);
}

void ClosedObjectReader::Fail(std::string text) {
  Fail(FieldProblem{.kind = FieldProblem::Kind::kOther, .text = std::move(text)});
}

const json* ClosedObjectReader::Value(std::string_view key) {
  read_.emplace(key);
  if (!object_.is_object()) return nullptr;  // already the problem
  auto it = object_.find(key);
  if (it == object_.end()) {
    Fail(FieldProblem{.kind = FieldProblem::Kind::kMissing, .key = std::string(key)});
    return nullptr;
  }
  return &*it;
}

const json* ClosedObjectReader::Lookup(std::string_view key, JsonShape shape, bool nullable) {
  const json* value = Value(key);
  if (value == nullptr || (nullable && value->is_null())) return nullptr;
  if (!HasShape(*value, shape)) {
    Fail(FieldProblem{.kind = FieldProblem::Kind::kWrongType,
                      .key = std::string(key),
                      .expected = shape,
                      .nullable = nullable});
    return nullptr;
  }
  return value;
}

const json* ClosedObjectReader::Member(std::string_view key, JsonShape shape) {
  return Lookup(key, shape, /*nullable=*/false);
}

const json* ClosedObjectReader::NullableMember(std::string_view key, JsonShape shape) {
  return Lookup(key, shape, /*nullable=*/true);
}

std::optional<std::string> ClosedObjectReader::Text(std::string_view key, size_t max_bytes,
                                                    bool nullable) {
  const json* value = Lookup(key, JsonShape::kString, nullable);
  if (value == nullptr) return std::nullopt;
  const std::string& text = value->get_ref<const std::string&>();
  if (text.size() > max_bytes) {
    Fail(FieldProblem{.kind = FieldProblem::Kind::kTooLong, .key = std::string(key)});
  }
  return text;
}

std::optional<std::string> ClosedObjectReader::String(std::string_view key, size_t max_bytes) {
  return Text(key, max_bytes, /*nullable=*/false);
}

std::optional<std::string> ClosedObjectReader::NullableString(std::string_view key,
                                                              size_t max_bytes) {
  return Text(key, max_bytes, /*nullable=*/true);
}

template <typename T>
std::optional<T> ClosedObjectReader::Integer(std::string_view key, T min, T max, bool nullable) {
  const json* value = Lookup(key, JsonShape::kInteger, nullable);
  if (value == nullptr) return std::nullopt;
  // Parsed JSON holds a non-negative integer as unsigned and a negative one as signed; the
  // mixed-sign comparisons keep INT64_MAX + 1 and -1 from wrapping into range.
  const auto within = [&](auto n) {
    return std::cmp_greater_equal(n, min) && std::cmp_less_equal(n, max);
  };
  bool in_range = false;
  T number{};
  if (value->is_number_unsigned()) {
    const uint64_t u = value->get<uint64_t>();
    in_range = within(u);
    number = static_cast<T>(u);
  } else {
    const int64_t n = value->get<int64_t>();
    in_range = within(n);
    number = static_cast<T>(n);
  }
  if (!in_range) {
    Fail(FieldProblem{.kind = FieldProblem::Kind::kOutOfRange,
                      .key = std::string(key),
                      .expected = JsonShape::kInteger,
                      .nullable = nullable});
    return std::nullopt;
  }
  return number;
}

std::optional<int64_t> ClosedObjectReader::Int(std::string_view key, int64_t min, int64_t max) {
  return Integer<int64_t>(key, min, max, /*nullable=*/false);
}

std::optional<int64_t> ClosedObjectReader::NullableInt(std::string_view key, int64_t min,
                                                       int64_t max) {
  return Integer<int64_t>(key, min, max, /*nullable=*/true);
}

std::optional<uint64_t> ClosedObjectReader::Uint(std::string_view key, uint64_t max) {
  return Integer<uint64_t>(key, 0, max, /*nullable=*/false);
}

std::optional<uint64_t> ClosedObjectReader::NullableUint(std::string_view key, uint64_t max) {
  return Integer<uint64_t>(key, 0, max, /*nullable=*/true);
}

std::optional<bool> ClosedObjectReader::Bool(std::string_view key) {
  const json* value = Member(key, JsonShape::kBoolean);
  if (value == nullptr) return std::nullopt;
  return value->get<bool>();
}

bool ClosedObjectReader::Has(std::string_view key) const {
  return object_.is_object() && object_.find(key) != object_.end();
}

const std::optional<FieldProblem>& ClosedObjectReader::Finish() {
  if (problem_ || !object_.is_object()) return problem_;
  for (auto it = object_.begin(); it != object_.end(); ++it) {
    if (read_.find(it.key()) == read_.end()) {
      Fail(FieldProblem{.kind = FieldProblem::Kind::kUnknownKey, .key = it.key()});
      break;
    }
  }
  return problem_;
}

}  // namespace pi_fusion
