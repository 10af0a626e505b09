#include <catch2/catch.hpp>

#include <string>

#include "extract/html_parse.h"

namespace pi_fusion::extract {
namespace {

TEST_CASE("ParseHtml: parses within the budget and reports the peak", "[extract][parse]") {
  auto doc = ParseHtml("<p>hello</p>", size_t{1} << 20);
  REQUIRE(doc.ok());
  const GumboNode* root = (*doc)->document();
  REQUIRE(root->type == GUMBO_NODE_DOCUMENT);
  CHECK(root->v.document.children.length == 1);  // <html>
  CHECK((*doc)->peak_bytes() > 0);
  CHECK((*doc)->peak_bytes() < (size_t{1} << 20));
}

TEST_CASE("ParseHtml: a parse over the budget fails with extraction_failed", "[extract][parse]") {
  std::string html;
  for (int i = 0; i < 20'000; ++i) html += "<p>paragraph</p>";
  auto doc = ParseHtml(html, 64 * 1024);
  REQUIRE_FALSE(doc.ok());
  CHECK(doc.status().code() == "extraction_failed");
  // The abandoned parse freed its blocks: parsing again with room succeeds (and ASan builds
  // would report a leak otherwise).
  CHECK(ParseHtml(html, size_t{256} << 20).ok());
}

}  // namespace
}  // namespace pi_fusion::extract
