#include "child/core/case_fold.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace pi_fusion::child {
namespace {

struct Folding {
  uint32_t code;
  const char* utf8;
};

constexpr Folding kFoldings[] = {
#include "child/core/case_fold_table.inc"
    // Not case folding proper: the upcase tables of Windows and exFAT map it to `I`.
    {0x0131, "i"},
};

// The folding of `code`, or nullptr when it folds to itself. The table is sorted but for the last
// row, which is looked at first.
const char* Lookup(uint32_t code) {
  constexpr size_t kSorted = std::size(kFoldings) - 1;
  if (code == kFoldings[kSorted].code) return kFoldings[kSorted].utf8;
  const Folding* end = kFoldings + kSorted;
  const Folding* it = std::lower_bound(kFoldings, end, code,
                                       [](const Folding& f, uint32_t c) { return f.code < c; });
  return it != end && it->code == code ? it->utf8 : nullptr;
}

// Decodes one UTF-8 sequence at `s[i]`; returns its length, or 0 when it is not valid.
size_t Decode(std::string_view s, size_t i, uint32_t* code) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const size_t left = s.size() - i;
  const unsigned char lead = b(0);
  size_t n = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (lead >= 0xF5 || n == 0 || left < n) return 0;
  uint32_t c = lead & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    c = (c << 6) | (b(k) & 0x3F);
  }
  // Overlong forms and surrogates are not characters; keep their bytes.
  if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
      (c >= 0xD800 && c <= 0xDFFF)) {
    return 0;
  }
  *code = c;
  return n;
}

}  // namespace

std::string FoldName(std::string_view utf8) {
  std::string out;
  out.reserve(utf8.size());
  for (size_t i = 0; i < utf8.size();) {
    const unsigned char c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
      ++i;
      continue;
    }
    uint32_t code = 0;
    const size_t n = Decode(utf8, i, &code);
    if (n == 0) {
      out += utf8[i++];
      continue;
    }
    const char* folded = Lookup(code);
    out += folded != nullptr ? std::string_view(folded) : utf8.substr(i, n);
    i += n;
  }
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace pi_fusion::child
