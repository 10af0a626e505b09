// Canonical JSON: object keys sorted recursively by their UTF-8 bytes, no insignificant
// whitespace, strings escaped as JSON requires (non-ASCII kept as UTF-8). This is the byte form
// that every hash in a Fusion run covers, so it must never change for equal values.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pi_fusion {

// REQUIRES: `value` holds no NaN or infinity and only valid UTF-8 strings.
std::string CanonicalJson(const nlohmann::json& value);

// Size of `text` once rendered as a JSON string literal body (escapes counted, quotes not):
// the measure the spec's output caps use ("JSON-rendered UTF-8 bytes").
size_t JsonRenderedBytes(const std::string& text);

}  // namespace pi_fusion
