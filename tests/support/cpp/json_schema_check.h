// Test-only JSON Schema checker shared by the unit tests: proves that what the code writes matches
// the closed schema files in schemas/ (the single source of each shape).
//
// It understands the subset of JSON Schema (draft 2020-12) those files use:
//   type         a name or a list of names; "integer" means a JSON integer token (1.0 is not one)
//   const, enum  JSON equality
//   properties, required, additionalProperties (false, true or a schema)
//   items        one schema for every element (the array form is not supported)
//   minItems, maxItems
//   minLength, maxLength   counted in Unicode code points
//   pattern      ECMAScript regular expression, searched anywhere in the string (unanchored)
//   minimum, maximum       inclusive
//   exclusiveMinimum       the number form (draft 2020-12): the value must be greater
//   oneOf (exactly one matches), anyOf (at least one), allOf (all)
//   $ref         only "#/$defs/<name>"; its sibling keywords apply too
//   $defs        definitions for $ref
// true and false are accepted as schemas. $schema, $id, $comment, title, description and examples
// are annotations and are ignored. Every other keyword anywhere in the schema, an unresolvable
// $ref, an unknown type name and an invalid pattern are themselves reported as violations, so a
// schema file cannot rely on a rule this checker would silently skip.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pi_fusion::testing {

// Every violation as "<json pointer>: <problem>", e.g. "/stages/0: unexpected key \"extra\"",
// "/policy: missing required key \"x\"" or "/stages/3/slot: above maximum 3" (tests match these
// phrases); problems of the schema itself as "schema #<pointer>: <problem>". Empty when `value`
// conforms to `schema`.
std::vector<std::string> CheckAgainstSchema(const nlohmann::json& schema,
                                            const nlohmann::json& value);

// Reads a file of the source tree (PI_FUSION_SOURCE_DIR/<relative>) byte for byte; throws
// std::runtime_error when it cannot be read.
std::string ReadSourceFile(const std::string& relative);

// The source tree's files under `relative_dir` ending in `suffix`, as paths relative to the
// source tree, sorted.
std::vector<std::string> ListSourceFiles(const std::string& relative_dir,
                                         const std::string& suffix);

// Reads and parses a JSON file of the source tree; throws on a read or parse error.
nlohmann::json LoadSourceJson(const std::string& relative);

// Reads and parses schemas/artifacts/<file> from the source tree.
nlohmann::json LoadArtifactSchema(const std::string& file);

}  // namespace pi_fusion::testing
