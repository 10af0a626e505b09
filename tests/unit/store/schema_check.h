// A small JSON Schema checker for the store tests: validates written artifacts against their
// closed schemas in schemas/artifacts/. Understands the subset those files use: "$ref" to
// "#/$defs/…", type (string or list), const, enum, properties, required, additionalProperties
// (false or a schema), items, minItems, maxItems, minLength, maxLength (code points), minimum,
// pattern (ECMAScript), anyOf, allOf. Any other keyword is reported, so a schema cannot silently
// use something this checker ignores. Test-only.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pi_fusion::store::testing {

// Parses schemas/artifacts/<file> from the source tree.
nlohmann::json LoadArtifactSchema(const std::string& file);

// Violations of `value` as "<json path>: <problem>"; empty when it conforms.
std::vector<std::string> SchemaViolations(const nlohmann::json& schema,
                                          const nlohmann::json& value);

}  // namespace pi_fusion::store::testing
