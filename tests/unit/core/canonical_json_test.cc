#include "pi_fusion/canonical_json.h"

#include <catch2/catch.hpp>

using nlohmann::json;
using pi_fusion::CanonicalJson;

TEST_CASE("CanonicalJson: sorts keys recursively and drops whitespace", "[core]") {
  struct Case {
    const char* input;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"b":1,"a":2})", R"({"a":2,"b":1})"},
      {R"({ "z" : { "y": [3, 2, {"d":1, "c":0}], "x": null } })",
       R"({"z":{"x":null,"y":[3,2,{"c":0,"d":1}]}})"},
      {R"({"B":1,"a":1,"_":1,"aa":1})", R"({"B":1,"_":1,"a":1,"aa":1})"},
      {R"(["é", "\u0001", "\"q\"", "line\nbreak"])", R"(["é","\u0001","\"q\"","line\nbreak"])"},
      {R"({"n":-0.5,"i":12345678901234,"t":true,"f":false})",
       R"({"f":false,"i":12345678901234,"n":-0.5,"t":true})"},
      {R"({})", R"({})"},
      {R"([])", R"([])"},
  };
  for (const Case& c : cases) {
    INFO(c.input);
    CHECK(CanonicalJson(json::parse(c.input)) == c.expected);
  }
}

TEST_CASE("CanonicalJson: key order is by UTF-8 bytes, not locale", "[core]") {
  json v = {{"\xc3\xa9", 1}, {"z", 2}, {"Z", 3}};
  CHECK(CanonicalJson(v) == "{\"Z\":3,\"z\":2,\"\xc3\xa9\":1}");
}

TEST_CASE("JsonRenderedBytes: counts escapes, not quotes", "[core]") {
  CHECK(pi_fusion::JsonRenderedBytes("") == 0);
  CHECK(pi_fusion::JsonRenderedBytes("abc") == 3);
  CHECK(pi_fusion::JsonRenderedBytes("a\"b") == 4);
  CHECK(pi_fusion::JsonRenderedBytes("\n") == 2);
  CHECK(pi_fusion::JsonRenderedBytes("\x01") == 6);
  CHECK(pi_fusion::JsonRenderedBytes("\xc3\xa9") == 2);
}
