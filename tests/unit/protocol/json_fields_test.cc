// The frame reader's exact error texts and code: one row per failure kind. These texts reach the
// host's failure summaries, so a change to them is a change of the product, not a refactoring.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <string>

#include "protocol/constants.h"
#include "protocol/frames.h"
#include "protocol/json_fields.h"

namespace pi_fusion::protocol {
namespace {

using nlohmann::json;

const std::string kHash = "sha256:" + std::string(64, 'a');

struct Case {
  const char* what;
  const char* object;  // JSON text
  std::function<void(FieldReader&)> read;
  const char* message;  // "" means Finish() is ok
};

TEST_CASE("FieldReader: every failure kind has its exact text and child_event_invalid") {
  const Case cases[] = {
      {"not an object", "[1]", [](FieldReader&) {}, "metadata frame is not a JSON object"},
      {"null is not an object", "null", [](FieldReader& r) { r.String("a"); },
       "metadata frame is not a JSON object"},
      {"missing key", "{}", [](FieldReader& r) { r.String("a"); },
       "metadata frame is missing key \"a\""},
      {"missing nullable key", "{}", [](FieldReader& r) { r.NullableInt("n"); },
       "metadata frame is missing key \"n\""},
      {"string of wrong type", R"({"a":1})", [](FieldReader& r) { r.String("a"); },
       "metadata frame has a wrong type for \"a\""},
      {"null where a string is due", R"({"a":null})", [](FieldReader& r) { r.String("a"); },
       "metadata frame has a wrong type for \"a\""},
      {"null where an integer is due", R"({"n":null})", [](FieldReader& r) { r.Int("n"); },
       "metadata frame has a wrong type for \"n\""},
      {"null where an object is due", R"({"o":null})",
       [](FieldReader& r) { r.Member("o", JsonShape::kObject); },
       "metadata frame has a wrong type for \"o\""},
      {"array where an object is due", R"({"o":[]})",
       [](FieldReader& r) { r.Member("o", JsonShape::kObject); },
       "metadata frame has a wrong type for \"o\""},
      {"nullable object of wrong type", R"({"o":1})",
       [](FieldReader& r) { r.NullableMember("o", JsonShape::kObject); },
       "metadata frame has a wrong type for \"o\""},
      {"fraction", R"({"n":1.5})", [](FieldReader& r) { r.Int("n"); },
       "metadata frame has a wrong type for \"n\""},
      {"integral float", R"({"n":1.0})", [](FieldReader& r) { r.Int("n"); },
       "metadata frame has a wrong type for \"n\""},
      {"boolean of wrong type", R"({"b":"true"})", [](FieldReader& r) { r.Bool("b"); },
       "metadata frame has a wrong type for \"b\""},
      {"nullable string of wrong type", R"({"a":7})", [](FieldReader& r) { r.NullableString("a"); },
       "metadata frame has a wrong type for \"a\""},
      {"negative count", R"({"n":-1})", [](FieldReader& r) { r.Int("n"); },
       "metadata frame has an out-of-range \"n\""},
      {"below min", R"({"n":0})", [](FieldReader& r) { r.Int("n", 1); },
       "metadata frame has an out-of-range \"n\""},
      {"above max", R"({"n":5})", [](FieldReader& r) { r.Int("n", 0, 4); },
       "metadata frame has an out-of-range \"n\""},
      {"above int64", R"({"n":9223372036854775808})", [](FieldReader& r) { r.Int("n"); },
       "metadata frame has an out-of-range \"n\""},
      {"uint64 max", R"({"n":18446744073709551615})",
       [](FieldReader& r) { r.Int("n", INT64_MIN, INT64_MAX); },
       "metadata frame has an out-of-range \"n\""},
      {"nullable out of range", R"({"n":0})", [](FieldReader& r) { r.NullableInt("n", 1); },
       "metadata frame has an out-of-range \"n\""},
      {"over-long string", R"({"a":"abcd"})", [](FieldReader& r) { r.String("a", 3); },
       "metadata frame has an over-long \"a\""},
      {"over-long nullable string", R"({"a":"abcd"})",
       [](FieldReader& r) { r.NullableString("a", 3); }, "metadata frame has an over-long \"a\""},
      {"over the default 4096 bytes", nullptr, [](FieldReader& r) { r.String("a"); },
       "metadata frame has an over-long \"a\""},
      {"bad enum", R"({"e":"maybe"})",
       [](FieldReader& r) {
         r.Enum("e", {"yes", "no"});
       },
       "metadata frame has an unknown \"e\": \"maybe\""},
      {"bad nullable enum", R"({"e":"maybe"})",
       [](FieldReader& r) {
         r.NullableEnum("e", {"yes", "no"});
       },
       "metadata frame has an unknown \"e\": \"maybe\""},
      {"bad sha256", R"({"h":"sha256:ABC"})", [](FieldReader& r) { r.Sha256("h"); },
       "metadata frame has a malformed hash in \"h\""},
      {"bad nullable sha256", R"({"h":"md5:0"})", [](FieldReader& r) { r.NullableSha256("h"); },
       "metadata frame has a malformed hash in \"h\""},
      {"unknown key", R"({"a":"x","zz":1,"b":2})", [](FieldReader& r) { r.String("a"); },
       "metadata frame has an unknown key \"b\""},
      {"caller's own problem", R"({})", [](FieldReader& r) { r.Fail("has a bad thing"); },
       "metadata frame has a bad thing"},
      {"first problem wins over later ones", R"({"a":1,"n":-1})",
       [](FieldReader& r) {
         r.Int("n");
         r.String("a");
         r.String("missing");
         r.Fail("has a later problem");
       },
       "metadata frame has an out-of-range \"n\""},
      {"a problem wins over unknown keys", R"({"a":1,"x":2})", [](FieldReader& r) { r.Bool("a"); },
       "metadata frame has a wrong type for \"a\""},
      {"a missing key wins over a bad enum read later", R"({"e":"maybe"})",
       [](FieldReader& r) {
         r.String("a");
         r.Enum("e", {"yes"});
       },
       "metadata frame is missing key \"a\""},
      {"null is allowed where nullable", R"({"a":null,"n":null,"h":null,"e":null,"o":null})",
       [](FieldReader& r) {
         CHECK_FALSE(r.NullableString("a"));
         CHECK_FALSE(r.NullableInt("n"));
         CHECK_FALSE(r.NullableSha256("h"));
         CHECK_FALSE(r.NullableEnum("e", {"x"}));
         CHECK(r.NullableMember("o", JsonShape::kObject) == nullptr);
       },
       ""},
      {"every kind read back",
       R"({"a":"abc","n":-9223372036854775808,"u":9223372036854775807,"b":true,"o":{},"l":[1]})",
       [](FieldReader& r) {
         CHECK(r.String("a", 3) == "abc");
         CHECK(r.Int("n", INT64_MIN) == INT64_MIN);
         CHECK(r.Int("u") == INT64_MAX);
         CHECK(r.Bool("b"));
         CHECK(r.Member("o", JsonShape::kObject) != nullptr);
         CHECK(r.Member("l", JsonShape::kArray)->size() == 1);
       },
       ""},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const json object =
        c.object != nullptr ? json::parse(c.object) : json{{"a", std::string(4097, 'x')}};
    FieldReader r(object, "metadata frame");
    c.read(r);
    const Status s = r.Finish();
    if (std::string(c.message).empty()) {
      CHECK(s.ok());
      continue;
    }
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == kChildEventInvalid);
    CHECK(s.message() == c.message);
    CHECK(r.status().message() == c.message);
  }
}

TEST_CASE("FieldReader: 4096 bytes is within the default string limit and a valid hash passes") {
  const json object = {{"a", std::string(4096, 'x')}, {"h", kHash}};
  FieldReader r(object, "settlement frame");
  CHECK(r.String("a").size() == 4096);
  CHECK(r.Sha256("h") == kHash);
  CHECK(r.Finish().ok());
}

TEST_CASE("Frame parsers: nested readers and callers' checks keep their exact texts") {
  const SettlementFrame s{"ok", std::nullopt, 0, kHash, std::nullopt, std::nullopt,
                          {},   std::nullopt, 0, 0};
  json settlement = ToJson(s);
  REQUIRE(ParseSettlement(settlement).ok());
  settlement["retry_marker_ordinals"] = {0};
  auto bad = ParseSettlement(settlement);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == kChildEventInvalid);
  CHECK(bad.status().message() == "settlement frame has a malformed retry marker ordinal");
  settlement.erase("retry_marker_ordinals");
  CHECK(ParseSettlement(settlement).status().message() ==
        "settlement frame is missing key \"retry_marker_ordinals\"");

  // The route's own reader names itself; the outer frame reports its text verbatim.
  const RuntimeGuardFrame g{"child_runtime_limit_exceeded",
                            "tool_call",
                            Route{"p", "m", "a"},
                            1,
                            1,
                            std::nullopt,
                            std::nullopt,
                            std::nullopt,
                            "over"};
  json guard = ToJson(g);
  REQUIRE(ParseRuntimeGuard(guard).ok());
  guard["route"].erase("api");
  CHECK(ParseRuntimeGuard(guard).status().message() ==
        "runtime-guard frame route is missing key \"api\"");
  guard["route"]["api"] = "a";
  guard["route"]["extra"] = true;
  CHECK(ParseRuntimeGuard(guard).status().message() ==
        "runtime-guard frame route has an unknown key \"extra\"");
  guard["route"] = "p/m";
  CHECK(ParseRuntimeGuard(guard).status().message() ==
        "runtime-guard frame has a wrong type for \"route\"");
}

}  // namespace
}  // namespace pi_fusion::protocol
