// A small JSON Schema checker for tests: validates produced documents against the closed schemas
// in schemas/artifacts/. Understands the subset those files use: $ref to "#/$defs/…", type
// (string or list), const, enum, properties, required, additionalProperties (false or a schema),
// items, minItems, maxItems, minLength, minimum, maximum, pattern (ECMAScript), oneOf.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pi_fusion::workflow::testing {

// Parses schemas/artifacts/<file> from the source tree.
nlohmann::json LoadArtifactSchema(const std::string& file);

// Violations of `value` against `schema` as "<path>: <problem>"; empty when it conforms.
std::vector<std::string> SchemaViolations(const nlohmann::json& schema,
                                          const nlohmann::json& value);

// Reads a file of the source tree (relative to the repository root).
std::string ReadSourceFile(const std::string& relative_path);

}  // namespace pi_fusion::workflow::testing
