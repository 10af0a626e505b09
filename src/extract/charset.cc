#include "extract/charset.h"

#include <array>

#include "core/utf8.h"
#include "extract/html_lexer.h"

namespace pi_fusion::extract {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsHtmlSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsHtmlSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

// Windows-1252 bytes 0x80..0x9F; the five unassigned bytes map to the C1 controls, as in WHATWG.
constexpr std::array<char16_t, 32> kCp1252High = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

std::optional<Charset> BomCharset(std::string_view body) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF") return Charset::kUtf8;
  if (body.substr(0, 2) == "\xFF\xFE") return Charset::kUtf16Le;
  if (body.substr(0, 2) == "\xFE\xFF") return Charset::kUtf16Be;
  return std::nullopt;
}

std::string DecodeCp1252(std::string_view body) {
  std::string out;
  out.reserve(body.size() + body.size() / 8);
  for (const char c : body) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out.push_back(c);
    } else if (b < 0xA0) {
      AppendUtf8(kCp1252High[b - 0x80], &out);
    } else {
      AppendUtf8(b, &out);  // 0xA0..0xFF are U+00A0..U+00FF
    }
  }
  return out;
}

std::string DecodeUtf16(std::string_view body, bool big_endian) {
  std::string out;
  out.reserve(body.size());
  const auto unit = [&](size_t i) -> char16_t {
    const auto a = static_cast<unsigned char>(body[i]);
    const auto b = static_cast<unsigned char>(body[i + 1]);
    return big_endian ? static_cast<char16_t>(a << 8 | b) : static_cast<char16_t>(b << 8 | a);
  };
  size_t i = 0;
  for (; i + 1 < body.size(); i += 2) {
    const char16_t u = unit(i);
    if (u >= 0xD800 && u <= 0xDBFF && i + 3 < body.size()) {
      const char16_t low = unit(i + 2);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        AppendUtf8(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00), &out);
        i += 2;
        continue;
      }
    }
    AppendUtf8(u, &out);  // a lone surrogate becomes U+FFFD
  }
  if (i < body.size()) out.append(kReplacementCharacter);  // odd trailing byte
  return out;
}

// The "charset=" value inside a meta content attribute (HTML's "extracting a character encoding
// from a meta element", simplified).
std::string CharsetFromMetaContent(std::string_view content) {
  const std::string lower = Lower(content);
  for (size_t at = lower.find("charset"); at != std::string::npos;
       at = lower.find("charset", at + 1)) {
    size_t i = at + 7;
    while (i < lower.size() && IsHtmlSpace(lower[i])) ++i;
    if (i >= lower.size() || lower[i] != '=') continue;
    ++i;
    while (i < lower.size() && IsHtmlSpace(lower[i])) ++i;
    if (i < lower.size() && (lower[i] == '"' || lower[i] == '\'')) {
      const size_t close = lower.find(lower[i], i + 1);
      if (close == std::string::npos) return "";
      return lower.substr(i + 1, close - i - 1);
    }
    size_t end = i;
    while (end < lower.size() && !IsHtmlSpace(lower[end]) && lower[end] != ';') ++end;
    return lower.substr(i, end - i);
  }
  return "";
}

}  // namespace

ContentType ParseContentType(std::string_view header) {
  ContentType result;
  const size_t semi = header.find(';');
  result.mime = Lower(Trim(header.substr(0, semi)));
  if (semi == std::string_view::npos) return result;
  result.charset = CharsetFromMetaContent(header.substr(semi + 1));
  result.charset = std::string(Trim(result.charset));
  return result;
}

std::optional<Charset> CharsetFromLabel(std::string_view label) {
  const std::string l = Lower(Trim(label));
  if (l == "utf-8" || l == "utf8" || l == "unicode-1-1-utf-8" || l == "x-unicode20utf8") {
    return Charset::kUtf8;
  }
  if (l == "windows-1252" || l == "cp1252" || l == "x-cp1252" || l == "iso-8859-1" ||
      l == "iso8859-1" || l == "iso_8859-1" || l == "iso88591" || l == "latin1" || l == "l1" ||
      l == "us-ascii" || l == "ascii" || l == "ansi_x3.4-1968" || l == "iso-ir-100" ||
      l == "csisolatin1" || l == "ibm819" || l == "cp819" || l == "iso_8859-1:1987") {
    return Charset::kWindows1252;
  }
  if (l == "utf-16" || l == "utf-16le" || l == "unicode" || l == "ucs-2") return Charset::kUtf16Le;
  if (l == "utf-16be" || l == "unicodefffe") return Charset::kUtf16Be;
  return std::nullopt;
}

std::string PrescanMetaCharset(std::string_view html) {
  TagLexer lexer(html.substr(0, kMetaPrescanBytes));
  Tag tag;
  while (lexer.Next(&tag)) {
    if (tag.end_tag || !EqualsIgnoreCase(tag.name, "meta")) continue;
    std::string charset, content;
    bool http_equiv_content_type = false;
    ForEachAttribute(tag.attributes, [&](std::string_view name, std::string_view value) {
      if (EqualsIgnoreCase(name, "charset")) charset = Lower(Trim(value));
      if (EqualsIgnoreCase(name, "content")) content = value;
      if (EqualsIgnoreCase(name, "http-equiv")) {
        http_equiv_content_type = EqualsIgnoreCase(Trim(value), "content-type");
      }
      return true;
    });
    if (!charset.empty()) return charset;
    if (http_equiv_content_type) {
      std::string from_content = CharsetFromMetaContent(content);
      if (!from_content.empty()) return from_content;
    }
  }
  return "";
}

Charset DetectCharset(std::string_view body, std::string_view header_label,
                      std::string_view meta_label) {
  if (const auto bom = BomCharset(body)) return *bom;
  if (const auto header = CharsetFromLabel(header_label)) return *header;
  if (const auto meta = CharsetFromLabel(meta_label)) {
    if (*meta == Charset::kUtf16Le || *meta == Charset::kUtf16Be) return Charset::kUtf8;
    return *meta;
  }
  if (!Trim(header_label).empty() || !Trim(meta_label).empty()) return Charset::kUtf8;
  return IsValidUtf8(body) ? Charset::kUtf8 : Charset::kWindows1252;
}

std::string DecodeToUtf8(std::string_view body, Charset charset) {
  const auto bom = BomCharset(body);
  if (bom == Charset::kUtf8) body.remove_prefix(3);
  if (bom == Charset::kUtf16Le || bom == Charset::kUtf16Be) body.remove_prefix(2);
  switch (charset) {
    case Charset::kWindows1252:
      return DecodeCp1252(body);
    case Charset::kUtf16Le:
      return DecodeUtf16(body, /*big_endian=*/false);
    case Charset::kUtf16Be:
      return DecodeUtf16(body, /*big_endian=*/true);
    case Charset::kUtf8:
      break;
  }
  return IsValidUtf8(body) ? std::string(body) : RepairUtf8(body);
}

}  // namespace pi_fusion::extract
