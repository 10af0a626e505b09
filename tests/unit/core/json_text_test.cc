// Regression: a lone UTF-16 surrogate in a model's tool arguments ("\ud800") reached
// nlohmann::json::parse as the escape JSON.stringify writes, threw across the Node-API boundary
// and aborted the whole host Pi.
#include "core/json_text.h"

#include <catch2/catch.hpp>

using pi_fusion::ParseHostJson;
using pi_fusion::ReplaceLoneSurrogateEscapes;

TEST_CASE("ReplaceLoneSurrogateEscapes: lone surrogates become U+FFFD, the rest is kept",
          "[core]") {
  struct Case {
    const char* input;
    const char* expected;
  };
  const Case cases[] = {
      {R"("\ud800")", R"("\ufffd")"},
      {R"("\udc00")", R"("\ufffd")"},
      {R"("a\uD800b")", R"("a\ufffdb")"},
      {R"("\ud800\ud800")", R"("\ufffd\ufffd")"},
      {R"("\udc00\ud800")", R"("\ufffd\ufffd")"},
      {R"("\ud83d\ude00")", R"("\ud83d\ude00")"},  // a valid pair stays
      {R"("\ud800\u0041")", R"("\ufffd\u0041")"},  // high then non-low
      {R"("\\ud800")", R"("\\ud800")"},            // an escaped backslash, then text
      {R"("\\\ud800")", R"("\\\ufffd")"},          // backslash, then a lone surrogate
      {R"({"\ud800":"x"})", R"({"\ufffd":"x"})"},  // keys too
      {R"("\u00e9\n\"")", R"("\u00e9\n\"")"},      // other escapes untouched
      {R"("\ud8)", R"("\ud8)"},                    // truncated escape: left to the parser
      {"", ""},
  };
  for (const Case& c : cases) {
    INFO(c.input);
    CHECK(ReplaceLoneSurrogateEscapes(c.input) == c.expected);
  }
}

TEST_CASE("ParseHostJson: lone surrogates parse as U+FFFD instead of throwing", "[core]") {
  auto parsed = ParseHostJson(R"({"prompt":"why\ud800?"})", "invalid_arguments");
  REQUIRE(parsed.ok());
  CHECK(parsed->at("prompt") == "why\xEF\xBF\xBD?");
}

TEST_CASE("ParseHostJson: bad text is a typed error that never quotes the input", "[core]") {
  for (const char* bad : {"{\"a\":", "\"\xff\"", "{secret-model-text}", ""}) {
    INFO(bad);
    auto parsed = ParseHostJson(bad, "invalid_arguments");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == "invalid_arguments");
    CHECK(parsed.status().message().find("secret") == std::string::npos);
    CHECK(parsed.status().message().find("parse error at byte") != std::string::npos);
  }
}

TEST_CASE("JsonErrorText: keeps position and kind, never the text being parsed", "[core][json]") {
  const std::string secret = "\"SECRET-TEXT-FROM-THE-MODEL \\q\"";  // a bad escape in a string
  try {
    // Named: GCC does not let a (void) cast drop the library's warn_unused_result.
    [[maybe_unused]] const nlohmann::json unused = nlohmann::json::parse("{\"a\": " + secret + "}");
    FAIL("parse accepted invalid JSON");
  } catch (const nlohmann::json::parse_error& e) {
    REQUIRE_THAT(std::string(e.what()), Catch::Contains("SECRET"));  // the raw message quotes it
    const std::string text = pi_fusion::JsonErrorText(e);
    CHECK_THAT(text, !Catch::Contains("SECRET"));
    CHECK_THAT(text, !Catch::Contains("last read"));
    CHECK_THAT(text, !Catch::Contains("[json.exception"));
    CHECK_THAT(text, Catch::StartsWith("parse error at line 1, column "));
    CHECK(pi_fusion::ExceptionText(e) == text);
  }
  try {  // a number too large for a double: nlohmann quotes the literal
    [[maybe_unused]] const nlohmann::json unused = nlohmann::json::parse("[1e99999]");
    FAIL("parse accepted an overflowing number");
  } catch (const nlohmann::json::exception& e) {
    REQUIRE_THAT(std::string(e.what()), Catch::Contains("1e99999"));
    CHECK(pi_fusion::JsonErrorText(e) == "number overflow");
  }
  const std::runtime_error plain(std::string(300, 'x'));
  CHECK(pi_fusion::ExceptionText(plain) == std::string(200, 'x'));
}

// Regression: nlohmann keeps the last of two equal keys, so a manifest.json carrying "state" twice
// was read as its second value while other readers and people saw the first.
TEST_CASE("ParseUniqueKeyJson: an object that repeats a key is refused, naming key and file",
          "[core][json]") {
  using pi_fusion::ParseUniqueKeyJson;
  auto ok = ParseUniqueKeyJson(R"({"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]})", "x.json",
                               "artifact_error");
  REQUIRE(ok.ok());  // the same key in sibling and nested objects is fine
  CHECK((*ok)["c"][1]["k"] == 2);
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {R"({"state":"failed","state":"completed"})",
       "manifest.json repeats the key \"state\" in one object"},
      {R"({"a":[{"b":{"x":1,"y":2,"x":3}}]})", "manifest.json repeats the key \"x\" in one object"},
      {R"({"a":1})"
       "\n"
       R"({"a":1})",
       "manifest.json is not valid JSON (parse error at byte "},
      {"[1e99999]", "manifest.json is not valid JSON"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto parsed = ParseUniqueKeyJson(c.text, "manifest.json", "artifact_error");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == "artifact_error");
    CHECK_THAT(parsed.status().message(), Catch::StartsWith(c.message));
  }
  const std::string long_key(100, 'k');
  auto cut = ParseUniqueKeyJson("{\"" + long_key + "\":1,\"" + long_key + "\":2}", "f", "c");
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.status().message() ==
        "f repeats the key \"" + std::string(64, 'k') + "\" in one object");
}
