// ClosedObjectReader: reads one closed JSON object key by key.
//
// Every lookup remembers its key; the first problem is kept and later ones are dropped; Finish()
// then also refuses the first key nobody read. So a parser states its object's shape once, reads
// straight through and checks one result at the end. Lookups go on after a problem and return
// what is there (or nothing), never throw.
//
// Problems are plain values (kind + key + what was expected), not texts: the protocol and the store
// word them differently and attach their own error codes, each in a thin adapter
// (protocol/json_fields.h, store/json_util.h).
//
// Not thread-safe; one reader per object. The object must outlive the reader.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pi_fusion {

// The JSON type a lookup asks for. kInteger is any integer, signed or unsigned, never a float.
enum class JsonShape { kString, kInteger, kBoolean, kObject, kArray };

struct FieldProblem {
  enum class Kind {
    kNotObject,   // the value read is not an object at all
    kMissing,     // `key` is absent
    kWrongType,   // `key` is not `expected` (null is wrong unless the lookup was nullable)
    kOutOfRange,  // `key` is an integer outside the lookup's range
    kTooLong,     // `key` is a string over the lookup's byte limit
    kUnknownKey,  // `key` was never looked up (found by Finish)
    kOther,       // the caller's own finding, worded in `text`
  };
  Kind kind = Kind::kOther;
  std::string key;
  JsonShape expected = JsonShape::kString;  // kWrongType, kOutOfRange
  bool nullable = false;                    // the lookup also allowed null
  std::string text;                         // kOther

  friend bool operator==(const FieldProblem&, const FieldProblem&) = default;
};

class ClosedObjectReader {
 public:
  explicit ClosedObjectReader(const nlohmann::json& object);

  // The member, whatever its type (null included); nullptr when absent.
  const nlohmann::json* Value(std::string_view key);
  // The member if it has `shape`; nullptr when absent or of another type.
  const nlohmann::json* Member(std::string_view key, JsonShape shape);
  // As Member(), but JSON null is allowed and gives nullptr.
  const nlohmann::json* NullableMember(std::string_view key, JsonShape shape);

  // A string; one over `max_bytes` is a problem but still returned.
  std::optional<std::string> String(std::string_view key, size_t max_bytes = SIZE_MAX);
  std::optional<std::string> NullableString(std::string_view key, size_t max_bytes = SIZE_MAX);
  // An integer in [min, max]; an unsigned value above INT64_MAX is out of range.
  std::optional<int64_t> Int(std::string_view key, int64_t min, int64_t max);
  std::optional<int64_t> NullableInt(std::string_view key, int64_t min, int64_t max);
  // An integer in [0, max]; a negative one is out of range.
  std::optional<uint64_t> Uint(std::string_view key, uint64_t max = UINT64_MAX);
  std::optional<uint64_t> NullableUint(std::string_view key, uint64_t max = UINT64_MAX);
  std::optional<bool> Bool(std::string_view key);

  // Whether `key` is present. Does not count as reading it.
  bool Has(std::string_view key) const;

  // Keeps `problem` unless an earlier one is kept.
  void Fail(FieldProblem problem);
  // The caller's own finding (a bad enum value, a wrong schema id).
  void Fail(std::string text);

  const std::optional<FieldProblem>& problem() const { return problem_; }
  bool ok() const { return !problem_.has_value(); }

  // The first problem, else the first key (in the object's order) that was never looked up, which
  // is then kept as the problem; nullopt when the object was read exactly.
  const std::optional<FieldProblem>& Finish();

 private:
  const nlohmann::json* Lookup(std::string_view key, JsonShape shape, bool nullable);
  template <typename T>
  std::optional<T> Integer(std::string_view key, T min, T max, bool nullable);
  std::optional<std::string> Text(std::string_view key, size_t max_bytes, bool nullable);

  const nlohmann::json& object_;
  std::set<std::string, std::less<>> read_;
  std::optional<FieldProblem> problem_;
};

}  // namespace pi_fusion
