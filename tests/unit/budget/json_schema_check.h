// Test helper: checks a JSON value against the subset of JSON Schema our artifact and config
// schema files use, so tests can prove that what the code writes matches the closed schema file
// (the single source in schemas/).
//
// Understood keywords: type (a name or a list; "integer" means a JSON integer), properties,
// required, additionalProperties (false only), items, enum, const, minimum, maximum, minItems,
// maxItems, minLength, $ref ("#/$defs/<name>"), $defs; $schema, $id, title and description are
// annotations. Any other keyword is itself reported as an error, so a schema file cannot rely on
// a rule this checker would silently skip.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pi_fusion::testing {

// Every violation as "<json pointer>: <rule>"; empty when `value` conforms.
std::vector<std::string> CheckAgainstSchema(const nlohmann::json& schema,
                                            const nlohmann::json& value);

// Reads and parses a file below the source tree (PI_FUSION_SOURCE_DIR/<relative>); throws on error.
nlohmann::json LoadSourceJson(const std::string& relative);

}  // namespace pi_fusion::testing
