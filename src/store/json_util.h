// JSON helpers shared by the store's writers and readers. Internal to the store layer.
//
// CanonicalBytes() never throws: nlohmann_json refuses invalid UTF-8 with an exception, which
// must not escape the core. FieldReader parses a closed object with core's ClosedObjectReader
// (every key read is remembered, the first problem is kept, and Finish() also refuses keys nobody
// read, so each artifact parser states its shape once) and words its problems for artifacts.
//
// Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/closed_object.h"
#include "pi_fusion/status.h"

namespace pi_fusion::store {

// CanonicalJson(value), or kArtifactError naming `what` (for example a string that is not UTF-8).
Result<std::string> CanonicalBytes(const nlohmann::json& value, std::string_view what);

// Parses `bytes` as one JSON value, or kArtifactError naming `what`; an object that repeats a
// key is refused (core/json_text.h, ParseUniqueKeyJson), so every store reader sees the bytes as
// any other reader would.
Result<nlohmann::json> ParseJson(std::string_view bytes, std::string_view what);

class FieldReader {
 public:
  // `where` names the object in messages ("manifest.json attempts[2]").
  FieldReader(const nlohmann::json& object, std::string where);

  std::string String(const char* key);
  // Absent is refused; null gives nullopt.
  std::optional<std::string> NullableString(const char* key);
  uint64_t Count(const char* key);
  std::optional<uint64_t> NullableCount(const char* key);
  bool Bool(const char* key);
  // The member, or JSON null when it is absent or mistyped (the problem is kept).
  // REQUIRES for the returned reference: the object read outlives its use.
  const nlohmann::json& Object(const char* key);
  const nlohmann::json& Array(const char* key);
  // Any JSON value, present.
  const nlohmann::json& Value(const char* key);
  bool Has(const char* key) const;

  // Records a problem found by the caller (a bad enum value, a wrong schema id).
  void Fail(const std::string& problem);
  const std::string& where() const { return where_; }

  // ok, or kArtifactError with the first problem, unknown keys included.
  Status Finish();

 private:
  ClosedObjectReader fields_;
  std::string where_;
};

}  // namespace pi_fusion::store
