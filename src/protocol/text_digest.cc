#include "protocol/text_digest.h"

#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"

namespace pi_fusion::protocol {

std::string PrintedText(const std::vector<std::string>& blocks) {
  std::string out;
  for (const std::string& block : blocks) {
    out += block;
    out += '\n';
  }
  return out;
}

std::string_view AnswerFromPrinted(std::string_view printed) {
  if (!printed.empty() && printed.back() == '\n') printed.remove_suffix(1);
  return printed;
}

uint64_t AnswerJsonBytes(std::string_view answer) { return JsonRenderedBytes(std::string(answer)); }

TextDigest DigestTextBlocks(const std::vector<std::string>& blocks) {
  TextDigest digest;
  for (const std::string& block : blocks) {
    digest.blocks.push_back({block.size(), Sha256Ref(block)});
  }
  const std::string printed = PrintedText(blocks);
  digest.printed_bytes = printed.size();
  digest.printed_sha256 = Sha256Ref(printed);
  digest.answer_json_bytes = AnswerJsonBytes(AnswerFromPrinted(printed));
  return digest;
}

}  // namespace pi_fusion::protocol
