#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "extract/html_lexer.h"

namespace pi_fusion::extract {
namespace {

// "name" for start tags, "/name" for end tags, in order.
std::vector<std::string> Tags(std::string_view html) {
  std::vector<std::string> out;
  TagLexer lexer(html);
  Tag tag;
  while (lexer.Next(&tag)) {
    std::string name(tag.name);
    out.push_back(tag.end_tag ? "/" + name : name);
    if (!tag.end_tag && (name == "script" || name == "title")) lexer.SkipRawText(name);
  }
  return out;
}

using V = std::vector<std::string>;

TEST_CASE("TagLexer: finds tags where the HTML tokenizer does", "[extract][lexer]") {
  CHECK(Tags("<p class=x>a</p>") == V{"p", "/p"});
  CHECK(Tags("<a title='x>y' href=\"a>b\">t</a>") == V{"a", "/a"});
  CHECK(Tags("<!-- <b> --><i><!--> <u> <!---> <s><!-- --!><em>") == V{"i", "u", "s", "em"});
  // Outside foreign content "<![CDATA[" opens a bogus comment that ends at the first ">".
  CHECK(Tags("<!DOCTYPE html><?xml x?><![CDATA[<b>]]><br/>") == V{"br"});
  CHECK(Tags("a < b <3 </ > </3 x> <p") == V{});
  CHECK(Tags("<script>if (a<b) document.write('<p>')</script><i>") == V{"script", "/script", "i"});
  CHECK(Tags("<title><b>x</TITLE ><i>") == V{"title", "/TITLE", "i"});
  CHECK(Tags("<script>never closed <b>") == V{"script"});
}

TEST_CASE("TagLexer: attributes, self-closing flag and offsets", "[extract][lexer]") {
  const std::string html = "x<IMG src=a.png alt=\"A &amp; B\" data-x hidden/>y";
  TagLexer lexer(html);
  Tag tag;
  REQUIRE(lexer.Next(&tag));
  CHECK(tag.name == "IMG");
  CHECK(tag.self_closing);
  CHECK(tag.begin == 1);
  CHECK(html.substr(tag.end) == "y");
  std::vector<std::string> attrs;
  ForEachAttribute(tag.attributes, [&](std::string_view name, std::string_view value) {
    attrs.push_back(std::string(name) + "=" + std::string(value));
    return true;
  });
  CHECK(attrs == V{"src=a.png", "alt=A &amp; B", "data-x=", "hidden="});
}

}  // namespace
}  // namespace pi_fusion::extract
