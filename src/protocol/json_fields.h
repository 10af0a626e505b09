// FieldReader: reads one closed JSON object field by field, for the frame parsers.
//
// Internal to the protocol layer. Every accessor records the key as known; Finish() then fails if
// the object had keys nobody asked for. The first failure wins and later reads return defaults,
// so a parser reads all fields straight through and checks status() once at the end.
// Not thread-safe; one reader per object.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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
  // An integer in [min, max].
  int64_t Int(std::string_view key, int64_t min = 0, int64_t max = INT64_MAX);
  std::optional<int64_t> NullableInt(std::string_view key, int64_t min = 0,
                                     int64_t max = INT64_MAX);
  bool Bool(std::string_view key);
  // The raw member (for nested objects and arrays); nullptr when absent (already a failure).
  const nlohmann::json* Member(std::string_view key, nlohmann::json::value_t type);
  // The member, or nullptr when it is JSON null.
  const nlohmann::json* NullableMember(std::string_view key, nlohmann::json::value_t type);

  void Fail(const std::string& message);
  // Checks that no unread key remains; returns the first failure or ok.
  Status Finish();
  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }

 private:
  const nlohmann::json* Find(std::string_view key);

  const nlohmann::json& value_;
  std::string what_;
  std::set<std::string, std::less<>> read_;
  Status status_;
};

bool IsSha256Ref(std::string_view text);

}  // namespace pi_fusion::protocol
