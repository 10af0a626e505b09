#include "schema/schema_walker.h"

#include <catch2/catch.hpp>

using nlohmann::json;
using pi_fusion::schema::TrimUnicodeSpace;

TEST_CASE("TrimUnicodeSpace: trims what JavaScript's trim trims", "[schema]") {
  struct Case {
    std::string in, out;
  };
  const Case cases[] = {
      {"", ""},
      {"   ", ""},
      {" a ", "a"},
      {"\t\n\r\v\fa b\n", "a b"},
      {"\xc2\xa0x\xc2\xa0", "x"},                  // NBSP
      {"\xe2\x80\x83x\xe2\x80\x8a", "x"},          // EM SPACE, HAIR SPACE
      {"\xe3\x80\x80x\xef\xbb\xbf", "x"},          // IDEOGRAPHIC SPACE, BOM
      {"\xe2\x80\xa8\xe2\x80\xa9", ""},            // LINE/PARAGRAPH SEPARATOR
      {"\xe2\x80\x8bx", "\xe2\x80\x8bx"},          // ZERO WIDTH SPACE is not white space
      {"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9"},  // multibyte letters untouched
      {"x\xe2\x80\x80", "x"},
  };
  for (const Case& c : cases) {
    INFO(c.in);
    CHECK(TrimUnicodeSpace(c.in) == c.out);
  }
}

TEST_CASE("NormalizeAgainstSchema: nested labels are paths", "[schema]") {
  const json schema = json::parse(R"({
    "type":"object","additionalProperties":false,"required":["a","list"],
    "properties":{
      "a":{"type":"string","minLength":1},
      "list":{"type":"array","minItems":1,"items":{"type":"object","additionalProperties":false,
              "required":["u"],"properties":{"u":{"type":"string","minLength":1}}}},
      "opt":{"type":"array","items":{"type":"string","minLength":1}},
      "e":{"type":"string","enum":["x","y"]}}})");
  struct Case {
    const char* input;
    const char* error;  // nullptr: expect success
  };
  const Case cases[] = {
      {R"({"a":" v ","list":[{"u":"w"}]})", nullptr},
      {R"({"a":"v","list":[{"u":" "}]})", "list[0].u must not be blank"},
      {R"({"a":"v","list":[{"u":"w","z":1}]})", "list[0] contains unsupported key(s): z"},
      {R"({"a":"v","list":[{}]})", "list[0] missing required key(s): u"},
      {R"({"a":"v","list":[]})", "list must not be empty"},
      {R"({"a":"v","list":"s"})", "list must be an array"},
      {R"({"a":"v","list":[{"u":"w"}],"opt":" one "})", nullptr},
      {R"({"a":"v","list":[{"u":"w"}],"opt":"  "})", "opt[0] must not be blank"},
      {R"({"a":3,"list":[{"u":"w"}]})", "a must be a string"},
      {R"({"a":"v","list":[{"u":"w"}],"e":"q"})", "e must be one of: x, y"},
      {R"({"a":"v","list":[{"u":"w"}],"e":" y "})", nullptr},
      {R"([])", "root must be an object"},
      {R"({"b":1,"a":"v","c":2})", "root contains unsupported key(s): b, c"},
      {R"({})", "root missing required key(s): a, list"},
  };
  for (const Case& c : cases) {
    INFO(c.input);
    auto result = pi_fusion::schema::NormalizeAgainstSchema(schema, json::parse(c.input), "root");
    if (c.error == nullptr) {
      REQUIRE(result.ok());
      const json input = json::parse(c.input);
      CHECK(result->at("opt") == (input.contains("opt") ? json::array({"one"}) : json::array()));
      CHECK(result->at("a") == "v");
    } else {
      REQUIRE_FALSE(result.ok());
      CHECK(result.status().code() == "invalid_arguments");
      CHECK(result.status().message() == c.error);
    }
  }
}
