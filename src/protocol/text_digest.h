// What the child protocol hashes about an assistant message's text, computed identically by the
// child (from Pi's message) and the parent (from the captured stdout).
//
// Pi's text mode prints the final assistant message as each text block followed by "\n"
// (spec/PI_HOST.md §1). That printed form is what the aggregate hash covers, so the parent can
// rebuild and compare stdout byte for byte. The answer a caller uses, and the size the output caps
// measure, is the printed form without the one "\n" Pi appends to the last block (the blocks
// joined by "\n").
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pi_fusion::protocol {

struct TextBlockDigest {
  uint64_t bytes = 0;  // UTF-8 bytes of the block's text
  std::string sha256;  // "sha256:<hex>" of those bytes

  bool operator==(const TextBlockDigest&) const = default;
};

struct TextDigest {
  std::vector<TextBlockDigest> blocks;
  uint64_t printed_bytes = 0;      // bytes of PrintedText(blocks)
  std::string printed_sha256;      // "sha256:<hex>" of PrintedText(blocks)
  uint64_t answer_json_bytes = 0;  // AnswerJsonBytes of the answer

  bool operator==(const TextDigest&) const = default;
};

// Each block followed by "\n": exactly what Pi's text mode writes to stdout. Empty for no blocks.
std::string PrintedText(const std::vector<std::string>& blocks);

// The answer inside a printed text: `printed` without its final "\n" (unchanged when it has none).
std::string_view AnswerFromPrinted(std::string_view printed);

// Size of `answer` rendered as the body of a JSON string (escapes counted, quotes not): the
// measure of the spec's output caps ("JSON-rendered UTF-8 bytes").
uint64_t AnswerJsonBytes(std::string_view answer);

TextDigest DigestTextBlocks(const std::vector<std::string>& blocks);

}  // namespace pi_fusion::protocol
