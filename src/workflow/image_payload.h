// Base64 decoding of Pi image blocks (`ImageContent.data`), so image markers and ledger rows can
// state the size and SHA-256 of the image itself rather than of its transport encoding.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pi_fusion::workflow {

// Decodes standard base64 (RFC 4648 §4; `=` padding optional, as Node's Buffer accepts it).
// Returns nullopt for any other character, a misplaced `=` or a dangling single character.
std::optional<std::string> DecodeBase64(std::string_view text);

}  // namespace pi_fusion::workflow
