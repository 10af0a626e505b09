// Character set handling for fetched documents: the Content-Type header, the HTML <meta> prescan,
// and decoding to well-formed UTF-8.
//
// Supported: UTF-8, Windows-1252 (also for the labels ISO-8859-1, Latin-1 and US-ASCII, as the
// WHATWG Encoding Standard maps them) and UTF-16LE/BE when a byte order mark says so. Other labels
// are decoded as UTF-8 with repair. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pi_fusion::extract {

enum class Charset { kUtf8, kWindows1252, kUtf16Le, kUtf16Be };

// "text/html; charset=windows-1252" → {"text/html", "windows-1252"}; both lowercased, the charset
// unquoted. Missing parts are empty.
struct ContentType {
  std::string mime;
  std::string charset;
};
ContentType ParseContentType(std::string_view header);

// Maps an encoding label (case-insensitive, surrounding whitespace ignored) to a supported
// charset; nullopt for labels this module does not decode.
std::optional<Charset> CharsetFromLabel(std::string_view label);

// The charset label declared by <meta charset> or <meta http-equiv="content-type"> within the
// first kMetaPrescanBytes of `html`, or "" when there is none.
inline constexpr size_t kMetaPrescanBytes = 4096;
std::string PrescanMetaCharset(std::string_view html);

// Picks the charset of `body`: a byte order mark wins, then a supported `header_label`, then a
// supported `meta_label` (a meta-declared UTF-16 means UTF-8, as in browsers: the declaration was
// readable as ASCII). An unsupported label means UTF-8 with repair. With no label at all, UTF-8
// when the bytes are valid UTF-8 and Windows-1252 when they are not.
Charset DetectCharset(std::string_view body, std::string_view header_label,
                      std::string_view meta_label);

// Decodes `body` (byte order mark dropped) to well-formed UTF-8; undecodable input becomes U+FFFD.
std::string DecodeToUtf8(std::string_view body, Charset charset);

}  // namespace pi_fusion::extract
