// Normalization of a public Fusion tool call: the closed-schema checks of schema_walker.h plus
// each workflow's own rules (fusion_validate's verification contract and `prompt` migration,
// fusion_research's declared-source policy). The result is the request every later stage uses;
// its canonical JSON is the form that is hashed and stored.
//
// Thread-safe; pure.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/workflow_id.h"
#include "pi_fusion/status.h"

namespace pi_fusion::schema {

struct NormalizedRequest {
  std::string tool;  // "fusion_research"
  Workflow workflow = Workflow::kReason;
  nlohmann::json request;  // normalized arguments: trimmed, optional arrays present
  std::string canonical;   // CanonicalJson(request)
};

// Normalizes the arguments of one of the four fusion_* tools. Errors carry the spec's codes:
// `invalid_arguments` for contract violations, and for fusion_research sources the URL policy's
// `invalid_url`, `unsupported_scheme` or `blocked_address`.
Result<NormalizedRequest> NormalizeFusionCall(std::string_view tool, const nlohmann::json& args);

// Normalizes arguments of any registered tool (bg_* included) against its schema only.
Result<nlohmann::json> NormalizeToolArguments(std::string_view tool, const nlohmann::json& args);

}  // namespace pi_fusion::schema
