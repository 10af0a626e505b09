#include <catch2/catch.hpp>

#include <string>

#include "core/utf8.h"
#include "extract/extract.h"

namespace pi_fusion::extract {
namespace {

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out.append(s);
  return out;
}

Result<ExtractOutput> Run(std::string_view body, const std::string& type = "text/html",
                          Format format = Format::kMarkdown, size_t cap = 32 * 1024) {
  ExtractOptions options;
  options.format = format;
  options.content_type = type;
  options.max_output_bytes = cap;
  return Extract(body, options);
}

TEST_CASE("Extract: content types", "[extract]") {
  CHECK(Run("<p>x</p>", "")->text == "x");
  CHECK(Run("<p>x</p>", "application/xhtml+xml; charset=utf-8")->text == "x");
  CHECK(Run("<p>x</p>", "text/plain")->text == "<p>x</p>");
  CHECK(Run("# x", "text/markdown")->text == "# x");
  for (const char* type : {"application/json", "image/png", "application/pdf"}) {
    INFO(type);
    const auto out = Run("{}", type);
    REQUIRE_FALSE(out.ok());
    CHECK(out.status().code() == "extraction_failed");
  }
}

TEST_CASE("Extract: empty and whitespace-only documents give empty text", "[extract]") {
  for (const char* body : {"", "   \n", "<html><body> </body></html>", "<script>x</script>"}) {
    const auto out = Run(body);
    REQUIRE(out.ok());
    CHECK(out->text.empty());
    CHECK_FALSE(out->truncated);
  }
}

TEST_CASE("Extract: a table row with no text adds no line in plain text", "[extract]") {
  // Found by fuzz/extract_fuzz.cc (fuzz/regressions/extract/table_empty_row_text): the empty
  // second row used to end the text with a newline.
  CHECK(Run("<table><th>><th><tr>", "text/html", Format::kText)->text == ">");
  CHECK(Run("<table><tr><td>a</td></tr><tr><td></td></tr><tr><td>b</td></tr></table>", "text/html",
            Format::kText)
            ->text == "a\nb");
}

TEST_CASE("Extract: an overflowing numeric character reference gives U+FFFD, never a raw byte",
          "[extract]") {
  // Found by fuzz/extract_fuzz.cc (fuzz/regressions/extract/numeric_ref_overflow): gumbo writes
  // the wrapped value of `&#xaaaaaaaaaaF6` as the single byte 0xF6.
  for (Format format : {Format::kMarkdown, Format::kText}) {
    const auto out = Run("<p>&#xaaaaaaaaaaF6 x</p>", "text/html", format);
    REQUIRE(out.ok());
    CHECK(IsValidUtf8(out->text));
    CHECK(out->text == "\xEF\xBF\xBD x");
  }
}

TEST_CASE("Extract: plain text is decoded, repaired and capped", "[extract]") {
  const auto out = Run("caf\xE9\r\n", "text/plain; charset=iso-8859-1");
  CHECK(out->text == "caf\xC3\xA9");
  CHECK(Run("bad \xFF byte", "text/plain; charset=utf-8")->text == "bad \xEF\xBF\xBD byte");
  // Undeclared and not valid UTF-8: taken for Windows-1252, as browsers do.
  CHECK(Run("bad \xFF byte", "text/plain")->text == "bad \xC3\xBF byte");
  const auto capped = Run(Repeat("word ", 100), "text/plain", Format::kText, 100);
  CHECK(capped->truncated);
  CHECK(capped->text.size() <= 100);
}

TEST_CASE("Extract: output stops at the cap with a marker inside it", "[extract]") {
  const auto out = Run(Repeat("<p>paragraph text</p>", 10'000));
  REQUIRE(out.ok());
  CHECK(out->truncated);
  CHECK(out->text.size() <= 32 * 1024);
  const std::string marker = "\n\n[truncated: output exceeded 32768 bytes]";
  CHECK(out->text.substr(out->text.size() - marker.size()) == marker);
}

TEST_CASE("Extract: documents over the element limit are cut and marked", "[extract][hostile]") {
  const auto out =
      Run(Repeat("<br>", kMaxElements + 10) + "tail", "text/html", Format::kText, size_t{1} << 20);
  REQUIRE(out.ok());
  CHECK(out->truncated);
  CHECK(out->text == "[truncated: document exceeded 250000 elements]");
}

TEST_CASE("Extract: rendering stops at the node limit and says so", "[extract][hostile]") {
  // Four nodes per element (p, two texts, a comment): over kMaxNodes, under kMaxElements.
  const auto out =
      Run(Repeat("<p>a<!---->b", 130'000), "text/html", Format::kText, size_t{8} << 20);
  REQUIRE(out.ok());
  CHECK(out->truncated);
  const std::string marker = "\n\n[truncated: document exceeded 500000 nodes]";
  REQUIRE(out->text.size() > marker.size());
  CHECK(out->text.substr(out->text.size() - marker.size()) == marker);
}

TEST_CASE("Extract: colspan and rowspan cannot blow a table up", "[extract][hostile]") {
  // 10,000 cells spanning 1,000 columns each, and a 1 MB cell repeated by rowspan in 100,000
  // rows: without caps on columns and on repeated text these take gigabytes.
  const auto wide = Run("<table><tr>" + Repeat("<td colspan=1000>x", 10'000) + "</table>");
  REQUIRE(wide.ok());
  CHECK(wide->text.size() <= 32 * 1024);  // columns past 1,000 are left out
  const auto tall = Run("<table><tr><td>a<td rowspan=0>" + std::string(1 << 20, 'y') + "<td>b" +
                        Repeat("<tr><td>c", 100'000) + "</table>");
  REQUIRE(tall.ok());
  CHECK(tall->truncated);
  CHECK(tall->text.size() <= 32 * 1024);
}

TEST_CASE("Extract: the output is valid UTF-8 for arbitrary bytes", "[extract][hostile]") {
  std::string bytes;
  uint32_t x = 12345;
  for (int i = 0; i < 200'000; ++i) {
    x = x * 1103515245u + 12345u;
    bytes.push_back(static_cast<char>(x >> 23));
  }
  for (const Format format : {Format::kMarkdown, Format::kText}) {
    const auto out = Run(bytes, "text/html; charset=utf-8", format);
    REQUIRE(out.ok());
    CHECK(IsValidUtf8(out->text));
  }
}

}  // namespace
}  // namespace pi_fusion::extract
