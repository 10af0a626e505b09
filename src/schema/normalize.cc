#include "schema/normalize.h"

#include "pi_fusion/canonical_json.h"
#include "schema/schema_walker.h"
#include "schema/tool_catalog.h"

namespace pi_fusion::schema {

Result<nlohmann::json> NormalizeToolArguments(std::string_view tool, const nlohmann::json& args) {
  const nlohmann::json* schema = ToolParameters(tool);
  if (schema == nullptr) {
    return Status::Error(kInvalidArguments, "unknown tool: " + std::string(tool));
  }
  return NormalizeAgainstSchema(*schema, args, tool);
}

Result<NormalizedRequest> NormalizeFusionCall(std::string_view tool, const nlohmann::json& args) {
  const ToolSpec* spec = FindTool(tool);
  if (spec == nullptr || !spec->workflow) {
    return Status::Error(kInvalidArguments, "not a Fusion tool: " + std::string(tool));
  }
  // The legacy free-form prompt gets a migration message rather than a bare unsupported-key error.
  if (spec->legacy_prompt_message && args.is_object() && args.contains("prompt")) {
    return Status::Error(kInvalidArguments, spec->legacy_prompt_message);
  }
  Result<nlohmann::json> request = NormalizeToolArguments(tool, args);
  if (!request.ok()) return request.status();
  if (spec->extra_rules) {
    if (Status rules = spec->extra_rules(request.value()); !rules.ok()) return rules;
  }
  NormalizedRequest out{spec->name, *spec->workflow, std::move(request).value(), ""};
  out.canonical = CanonicalJson(out.request);
  return out;
}

}  // namespace pi_fusion::schema
