// Punycode (RFC 3492) and the conservative IDNA subset the canonicalizer supports.
//
// Full IDNA (UTS #46 mapping, NFC, bidi and contextual rules) needs Unicode tables we do not ship.
// Instead, non-ASCII host labels are accepted only when every code point comes from a small
// allowlist whose lowercase mapping is simple and whose text is already NFC (precomposed Latin-1
// and Latin Extended-A letters, basic Greek and Cyrillic, Hiragana, Katakana, CJK ideographs,
// Hangul syllables). Everything else — dot look-alikes, full-width forms, combining marks,
// invisible and bidi characters, RTL scripts — is refused, because a host we might read
// differently from a browser or resolver is a host we must not vouch for.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pi_fusion::url {

// RFC 3492 encoding of `input` (the part after "xn--"). nullopt on arithmetic overflow.
std::optional<std::string> PunycodeEncode(std::u32string_view input);

// One host label to its lowercase ASCII form: ASCII letters lowercased; a label with any
// non-ASCII code point becomes "xn--" + Punycode of its lowercased form. nullopt when a code
// point is outside the supported allowlist.
std::optional<std::string> HostLabelToAscii(std::u32string_view label);

}  // namespace pi_fusion::url
