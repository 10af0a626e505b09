// Golden tests: every golden/NAME.input.{html,txt,md} is extracted as Markdown and as text and
// compared with golden/NAME.md and golden/NAME.txt. The content type comes from
// golden/NAME.content-type when present, else from the input's extension. Hostile inputs too
// large to commit are generated here; their expected outputs are committed all the same.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <string>

#include "core/utf8.h"
#include "extract/extract.h"
#include "golden.h"

namespace pi_fusion::extract {
namespace {

using testing::CheckGolden;
using testing::FileExists;
using testing::GoldenDir;
using testing::ReadFile;

std::string ContentTypeFor(const std::string& stem, const std::string& extension) {
  if (const std::string path = GoldenDir() + stem + ".content-type"; FileExists(path)) {
    std::string type = ReadFile(path);
    while (!type.empty() && (type.back() == '\n' || type.back() == '\r')) type.pop_back();
    return type;
  }
  if (extension == ".txt") return "text/plain";
  if (extension == ".md") return "text/markdown";
  return "text/html";
}

std::string Run(std::string_view body, Format format, const std::string& content_type,
                size_t max_bytes = 32 * 1024) {
  ExtractOptions options;
  options.format = format;
  options.content_type = content_type;
  options.max_output_bytes = max_bytes;
  const auto out = Extract(body, options);
  REQUIRE(out.ok());
  CHECK(out->text.size() <= max_bytes);
  CHECK(IsValidUtf8(out->text));
  return out->text;
}

void CheckBothFormats(const std::string& name, std::string_view input,
                      const std::string& content_type, size_t max_bytes = 32 * 1024) {
  CheckGolden(name + ".md", Run(input, Format::kMarkdown, content_type, max_bytes));
  CheckGolden(name + ".txt", Run(input, Format::kText, content_type, max_bytes));
}

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out.append(s);
  return out;
}

TEST_CASE("Extract: golden files match", "[extract][golden]") {
  size_t cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GoldenDir())) {
    const std::string file = entry.path().filename().string();
    const size_t at = file.find(".input.");
    if (at == std::string::npos) continue;
    const std::string stem = file.substr(0, at);
    const std::string extension = entry.path().extension().string();
    DYNAMIC_SECTION(file) {
      CheckBothFormats(stem, ReadFile(entry.path().string()), ContentTypeFor(stem, extension));
    }
    ++cases;
  }
  CHECK(cases >= 10);
}

// Gumbo's tree builder is quadratic in nesting depth (10,000 <div> take seconds), so these
// depend on the nesting guard; without it they run for minutes.
TEST_CASE("Extract: 100,000 nested divs are flattened below the depth limit",
          "[extract][golden][hostile]") {
  const std::string html = "<p>before</p>" + Repeat("<div>", 50'000) + "middle" +
                           Repeat("<div>", 50'000) + "bottom" + Repeat("</div>", 100'000) +
                           "<p>after</p>";
  const auto start = std::chrono::steady_clock::now();
  CheckBothFormats("generated_deep_div", html, "text/html");
  INFO("took " << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
               << " s");
  SUCCEED();
}

TEST_CASE("Extract: 100,000 nested <b> and <a> are flattened", "[extract][golden][hostile]") {
  CheckBothFormats("generated_deep_b",
                   "<p>start</p><p>" + Repeat("<b>", 100'000) + "deep bold" +
                       Repeat("</b>", 100'000) + " tail</p>",
                   "text/html");
  // Each unclosed <a> closes the one before it, as in browsers: a flat run of links.
  CheckBothFormats("generated_deep_a",
                   "<p>" + Repeat("<a href=\"/x\">x", 100'000) + "</p><p>end</p>", "text/html",
                   1024);
}

TEST_CASE("Extract: 100,000 nested lists, quotes and tables stay bounded",
          "[extract][golden][hostile]") {
  CheckBothFormats("generated_deep_mixed",
                   Repeat("<ul><li>l", 20'000) + Repeat("<blockquote>q", 20'000) +
                       Repeat("<table><tr><td>t", 20'000) + Repeat("<p><span>s", 40'000),
                   "text/html", 2048);
}

TEST_CASE("Extract: an 8 MiB attribute is parsed and ignored", "[extract][golden][hostile]") {
  const std::string huge(8 << 20, 'A');
  CheckBothFormats("generated_huge_attribute",
                   "<p>before</p><div title=\"" + huge + "\" data-x='" + huge +
                       "'>inside</div><a href=\"https://example.com/" + huge +
                       "\">a link with a huge href</a><p>after</p>",
                   "text/html");
}

TEST_CASE("Extract: truncation cuts on a UTF-8 boundary, marker within the cap",
          "[extract][golden]") {
  // Two-, three- and four-byte characters so that every cap falls inside some character.
  const std::string html = "<h1>Truncation</h1><p>" + Repeat("é漢😀 ", 200) + "</p>";
  CheckBothFormats("generated_truncation", html, "text/html", 300);
  for (size_t cap = 64; cap < 400; ++cap) {
    const std::string out = Run(html, Format::kMarkdown, "text/html", cap);
    INFO("cap " << cap);
    CHECK(out.size() <= cap);
    CHECK(out.find("[truncated: output exceeded " + std::to_string(cap) + " bytes]") !=
          std::string::npos);
  }
}

}  // namespace
}  // namespace pi_fusion::extract
