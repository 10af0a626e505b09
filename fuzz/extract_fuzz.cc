// HTML extraction on hostile pages. The first input byte picks the output format, content type
// and output cap; the rest is the body. Invariants (extract.h): the text is well-formed UTF-8,
// has no trailing newline, and never exceeds the cap, truncation marker included.
#include <array>
#include <cstdint>
#include <string_view>

#include "core/utf8.h"
#include "extract/extract.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pi_fusion::extract;
  if (size == 0) return 0;
  static constexpr std::array<std::string_view, 8> kContentTypes = {
      "",
      "text/html",
      "text/html; charset=windows-1252",
      "text/html; charset=utf-16",
      "application/xhtml+xml",
      "text/plain; charset=iso-8859-1",
      "text/markdown",
      "image/png"};
  static constexpr std::array<size_t, 4> kCaps = {256, 1024, 4096, 32 * 1024};
  const uint8_t flags = data[0];
  ExtractOptions options;
  options.format = (flags & 1) != 0 ? Format::kText : Format::kMarkdown;
  options.content_type = std::string(kContentTypes[(flags >> 1) & 7]);
  options.max_output_bytes = kCaps[(flags >> 4) & 3];
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);

  const auto out = Extract(body, options);
  if (!out.ok()) return 0;
  FUZZ_CHECK(pi_fusion::IsValidUtf8(out->text));
  FUZZ_CHECK(out->text.size() <= options.max_output_bytes);
  FUZZ_CHECK(out->text.empty() || out->text.back() != '\n');
  return 0;
}
