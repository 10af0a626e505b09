// Normalizes a JSON value against one of our closed tool schemas.
//
// Pi validates arguments against the schema before `execute`, but whitespace-only strings pass
// `minLength` and a lone string is coerced into an array, so the core checks everything again:
// objects are closed (unsupported and missing keys are reported with the contract's exact texts),
// strings are trimmed and must not be blank, array items are trimmed, arrays with `minItems`
// must not be empty, enums are enforced, and absent optional arrays become []. A lone string
// where an array of strings is expected is taken as a one-item array, as Pi itself does.
//
// Only the subset of JSON Schema our files use is understood: type object/array/string,
// properties, required, additionalProperties:false, items, minItems, minLength, enum.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error_codes.h"
#include "pi_fusion/status.h"

namespace pi_fusion::schema {

// Returns the normalized value or an `invalid_arguments` Status whose message is one of:
//   "<label> contains unsupported key(s): a, b"   (keys sorted)
//   "<label> missing required key(s): a, b"       (schema order)
//   "<label> must not be blank" / "<label> must not be empty"
//   "<label> must be a string|an array|an object" / "<label> must be one of: x, y"
// `root_label` names the top-level value (the tool name); nested labels are paths such as
// "sources[1].url".
Result<nlohmann::json> NormalizeAgainstSchema(const nlohmann::json& schema,
                                              const nlohmann::json& value,
                                              std::string_view root_label);

// Trims Unicode white space (the characters JavaScript's String.prototype.trim removes) from
// both ends of a UTF-8 string.
std::string TrimUnicodeSpace(std::string_view text);

}  // namespace pi_fusion::schema
