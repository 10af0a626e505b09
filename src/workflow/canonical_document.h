// A JSON value together with its canonical bytes (pi_fusion::CanonicalJson).
//
// Every document this layer hands to the orchestrator (canonical inputs, the context ledger, stage
// inputs) travels in this form, so the bytes that are written, hashed and piped to a child are
// computed once, here, and never re-serialized differently elsewhere.
//
// Plain value; thread-compatible. Pure code.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::workflow {

struct CanonicalDocument {
  nlohmann::json value;
  std::string bytes;  // CanonicalJson(value)
};

// Serializes `value`. A value that cannot be rendered canonically (a string that is not valid
// UTF-8) fails with `error_code` and a message naming `what`.
Result<CanonicalDocument> MakeCanonicalDocument(nlohmann::json value, std::string_view error_code,
                                                std::string_view what);

}  // namespace pi_fusion::workflow
