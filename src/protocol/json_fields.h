// FieldReader: reads one closed JSON object field by field, for the frame parsers.
//
// Internal to the protocol layer. The mechanics (keys read, first problem kept, unknown keys
// refused by Finish(), reads that go on after a problem) are core's ClosedObjectReader; this
// adapter adds the frame-only checks (enums, sha256 references, the default 4096-byte string
// limit) and words every problem as "<what> <problem>" with child_event_invalid.
// Not thread-safe; one reader per object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/closed_object.h"
#include "pi_fusion/status.h"

namespace pi_fusion::protocol {

class FieldReader {
 public:
  // `what` names the object in error messages ("metadata frame"). `value` must outlive the reader.
  FieldReader(const nlohmann::json& value, std::string what);

  std::string String(std::string_view key, size_t max_bytes = 4096);
  std::optional<std::string> NullableString(std::string_view key, size_t max_bytes = 4096);
  // One of `allowed`.
  std::string Enum(std::string_view key, const std::vector<std::string_view>& allowed);
  std::optional<std::string> NullableEnum(std::string_view key,
                                          const std::vector<std::string_view>& allowed);
  // A "sha256:<64 lowercase hex>" reference.
  std::string Sha256(std::string_view key);
  std::optional<std::string> NullableSha256(std::string_view key);
  // An integer in [min, max]; 0 on a problem.
  int64_t Int(std::string_view key, int64_t min = 0, int64_t max = INT64_MAX);
  std::optional<int64_t> NullableInt(std::string_view key, int64_t min = 0,
                                     int64_t max = INT64_MAX);
  bool Bool(std::string_view key);
  // The raw member (for nested objects and arrays); nullptr when absent or mistyped (a problem).
  const nlohmann::json* Member(std::string_view key, JsonShape shape);
  // The member, or nullptr when it is JSON null.
  const nlohmann::json* NullableMember(std::string_view key, JsonShape shape);

  void Fail(const std::string& message);
  // Checks that no unread key remains; returns the first failure or ok.
  Status Finish();
  Status status() const;
  bool ok() const { return fields_.ok(); }

 private:
  ClosedObjectReader fields_;
  std::string what_;
};

bool IsSha256Ref(std::string_view text);

}  // namespace pi_fusion::protocol
