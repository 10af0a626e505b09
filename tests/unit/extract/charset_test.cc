#include <catch2/catch.hpp>

#include <string>

#include "extract/charset.h"

namespace pi_fusion::extract {
namespace {

TEST_CASE("ParseContentType: media type and charset, lowercased and unquoted",
          "[extract][charset]") {
  struct Case {
    const char* header;
    const char* mime;
    const char* charset;
  };
  const Case cases[] = {
      {"text/html", "text/html", ""},
      {"Text/HTML; Charset=Windows-1252", "text/html", "windows-1252"},
      {" text/plain ;charset=\"utf-8\" ; format=flowed", "text/plain", "utf-8"},
      {"text/html; boundary=x; charset = 'iso-8859-1'", "text/html", "iso-8859-1"},
      {"application/xhtml+xml;charset=UTF-8", "application/xhtml+xml", "utf-8"},
      {"", "", ""},
  };
  for (const Case& c : cases) {
    INFO(c.header);
    const ContentType t = ParseContentType(c.header);
    CHECK(t.mime == c.mime);
    CHECK(t.charset == c.charset);
  }
}

TEST_CASE("CharsetFromLabel: WHATWG aliases of the supported charsets", "[extract][charset]") {
  CHECK(CharsetFromLabel("UTF-8") == Charset::kUtf8);
  CHECK(CharsetFromLabel(" utf8 ") == Charset::kUtf8);
  for (const char* label :
       {"windows-1252", "cp1252", "ISO-8859-1", "latin1", "us-ascii", "ascii"}) {
    INFO(label);
    CHECK(CharsetFromLabel(label) == Charset::kWindows1252);
  }
  CHECK(CharsetFromLabel("utf-16le") == Charset::kUtf16Le);
  CHECK(CharsetFromLabel("utf-16be") == Charset::kUtf16Be);
  CHECK_FALSE(CharsetFromLabel("shift_jis").has_value());
  CHECK_FALSE(CharsetFromLabel("").has_value());
}

TEST_CASE("PrescanMetaCharset: meta charset and http-equiv, outside comments, early only",
          "[extract][charset]") {
  CHECK(PrescanMetaCharset("<meta charset=\"Windows-1252\">") == "windows-1252");
  CHECK(PrescanMetaCharset("<META CHARSET='utf-8'>") == "utf-8");
  CHECK(PrescanMetaCharset("<meta http-equiv=\"Content-Type\" "
                           "content=\"text/html; charset=ISO-8859-1\">") == "iso-8859-1");
  CHECK(PrescanMetaCharset("<meta content='text/html;charset=cp1252' "
                           "http-equiv='content-type'>") == "cp1252");
  CHECK(PrescanMetaCharset("<meta name=\"x\" content=\"charset=utf-16\">").empty());
  CHECK(PrescanMetaCharset("<!-- <meta charset=latin1> --><p>").empty());
  CHECK(PrescanMetaCharset(std::string(kMetaPrescanBytes, ' ') + "<meta charset=latin1>").empty());
}

TEST_CASE("DetectCharset: BOM, then header, then meta, then a UTF-8 validity sniff",
          "[extract][charset]") {
  CHECK(DetectCharset("\xEF\xBB\xBFx", "windows-1252", "") == Charset::kUtf8);
  CHECK(DetectCharset("\xFF\xFEx\0", "", "") == Charset::kUtf16Le);
  CHECK(DetectCharset("x", "iso-8859-1", "utf-8") == Charset::kWindows1252);
  CHECK(DetectCharset("x", "bogus", "windows-1252") == Charset::kWindows1252);
  CHECK(DetectCharset("x", "", "utf-16") == Charset::kUtf8);  // a readable meta is not UTF-16
  CHECK(DetectCharset("x", "shift_jis", "") == Charset::kUtf8);
  CHECK(DetectCharset("caf\xC3\xA9", "", "") == Charset::kUtf8);
  CHECK(DetectCharset("caf\xE9", "", "") == Charset::kWindows1252);
}

TEST_CASE("DecodeToUtf8: Windows-1252, UTF-16 and UTF-8 repair", "[extract][charset]") {
  CHECK(DecodeToUtf8("\x93q\x94 \x80 \xE9", Charset::kWindows1252) ==
        "\xE2\x80\x9Cq\xE2\x80\x9D \xE2\x82\xAC \xC3\xA9");
  CHECK(DecodeToUtf8("\x81", Charset::kWindows1252) == "\xC2\x81");
  CHECK(DecodeToUtf8(std::string("\xFF\xFE"
                                 "A\0=\xD8\x00\xDE",
                                 8),
                     Charset::kUtf16Le) == "A\xF0\x9F\x98\x80");
  CHECK(DecodeToUtf8(std::string("\0A\xD8\x00", 4), Charset::kUtf16Be) ==
        "A\xEF\xBF\xBD");  // lone surrogate
  CHECK(DecodeToUtf8("\xEF\xBB\xBF"
                     "a\xFF",
                     Charset::kUtf8) == "a\xEF\xBF\xBD");
}

}  // namespace
}  // namespace pi_fusion::extract
