// The artifact reader's exact error texts and code: one row per failure kind, then the same texts
// as the artifact parsers produce them. They reach verification reports and failure summaries, so
// a change to them is a change of the product, not a refactoring.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <string>

#include "pi_fusion/status.h"
#include "store/artifact_ref.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "store/manifest.h"
#include "store/usage.h"
#include "test_support.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

struct Case {
  const char* what;
  json object;
  std::function<void(FieldReader&)> read;
  std::string message;  // "" means Finish() is ok
};

TEST_CASE("FieldReader: every failure kind has its exact text and artifact_error", "[store]") {
  const std::string long_key(70, 'k');
  json long_key_object = json::object();
  long_key_object[long_key] = 1;
  json not_utf8_object = json::object();
  not_utf8_object["\xff"] = 1;
  const Case cases[] = {
      {"not an object", json::array({1}), [](FieldReader&) {}, "W is not an object"},
      {"null is not an object", nullptr, [](FieldReader& r) { r.String("a"); },
       "W is not an object"},
      {"missing key", json::object(), [](FieldReader& r) { r.String("a"); }, "W is missing \"a\""},
      {"missing nullable key", json::object(), [](FieldReader& r) { r.NullableCount("n"); },
       "W is missing \"n\""},
      {"missing value", json::object(), [](FieldReader& r) { r.Value("v"); }, "W is missing \"v\""},
      {"string of wrong type",
       {{"a", 1}},
       [](FieldReader& r) { r.String("a"); },
       "W \"a\" is not a string"},
      {"null where a string is due",
       {{"a", nullptr}},
       [](FieldReader& r) { r.String("a"); },
       "W \"a\" is not a string"},
      {"nullable string of wrong type",
       {{"a", false}},
       [](FieldReader& r) { r.NullableString("a"); },
       "W \"a\" is not a string or null"},
      {"negative count",
       {{"n", -1}},
       [](FieldReader& r) { r.Count("n"); },
       "W \"n\" is not a non-negative integer"},
      {"fractional count",
       {{"n", 1.5}},
       [](FieldReader& r) { r.Count("n"); },
       "W \"n\" is not a non-negative integer"},
      {"integral float count",
       {{"n", 1.0}},
       [](FieldReader& r) { r.Count("n"); },
       "W \"n\" is not a non-negative integer"},
      {"count as a string",
       {{"n", "1"}},
       [](FieldReader& r) { r.Count("n"); },
       "W \"n\" is not a non-negative integer"},
      {"null where a count is due",
       {{"n", nullptr}},
       [](FieldReader& r) { r.Count("n"); },
       "W \"n\" is not a non-negative integer"},
      {"negative nullable count",
       {{"n", -1}},
       [](FieldReader& r) { r.NullableCount("n"); },
       "W \"n\" is not a non-negative integer or null"},
      {"boolean of wrong type",
       {{"b", "true"}},
       [](FieldReader& r) { r.Bool("b"); },
       "W \"b\" is not a boolean"},
      {"array where an object is due",
       {{"o", json::array()}},
       [](FieldReader& r) { r.Object("o"); },
       "W \"o\" is not an object"},
      {"null where an object is due",
       {{"o", nullptr}},
       [](FieldReader& r) { r.Object("o"); },
       "W \"o\" is not an object"},
      {"object where an array is due",
       {{"l", json::object()}},
       [](FieldReader& r) { r.Array("l"); },
       "W \"l\" is not an array"},
      {"unknown key",
       {{"a", "x"}, {"zz", 1}, {"b", 2}},
       [](FieldReader& r) { r.String("a"); },
       "W has an unknown key \"b\""},
      {"Has() does not count as read",
       {{"a", 1}},
       [](FieldReader& r) { CHECK(r.Has("a")); },
       "W has an unknown key \"a\""},
      {"a long unknown key is cut to 64 bytes", long_key_object, [](FieldReader&) {},
       "W has an unknown key \"" + std::string(64, 'k') + "\""},
      {"an unknown key that is not UTF-8", not_utf8_object, [](FieldReader&) {},
       "W has an unknown key (not UTF-8)"},
      {"caller's own problem", json::object(),
       [](FieldReader& r) { r.Fail("has an unknown stage"); }, "W has an unknown stage"},
      {"first problem wins over later ones",
       {{"a", 1}, {"n", -1}},
       [](FieldReader& r) {
         r.Count("n");
         r.String("a");
         r.String("missing");
         r.Fail("has a later problem");
       },
       "W \"n\" is not a non-negative integer"},
      {"a problem wins over unknown keys",
       {{"a", 1}, {"x", 2}},
       [](FieldReader& r) { r.Bool("a"); },
       "W \"a\" is not a boolean"},
      {"reads go on after a problem",
       {{"b", "x"}},
       [](FieldReader& r) {
         r.String("a");
         CHECK(r.String("b") == "x");
       },
       "W is missing \"a\""},
      {"null is allowed where nullable",
       {{"a", nullptr}, {"n", nullptr}, {"v", nullptr}},
       [](FieldReader& r) {
         CHECK_FALSE(r.NullableString("a"));
         CHECK_FALSE(r.NullableCount("n"));
         CHECK(r.Value("v").is_null());
       },
       ""},
      {"every kind read back",
       json::parse(R"({"a":"abc","n":18446744073709551615,"b":true,"o":{"k":1},"l":[1,2],"v":2.5,
                       "s":"t","m":0})"),
       [](FieldReader& r) {
         CHECK(r.String("a") == "abc");
         CHECK(r.Count("n") == UINT64_MAX);
         CHECK(r.Bool("b"));
         CHECK(r.Object("o").size() == 1);
         CHECK(r.Array("l").size() == 2);
         CHECK(r.Value("v") == 2.5);
         CHECK(r.NullableString("s") == "t");
         CHECK(r.NullableCount("m") == 0u);
       },
       ""},
      {"a signed count built in C++",
       {{"n", int64_t{5}}},
       [](FieldReader& r) { CHECK(r.Count("n") == 5); },
       ""},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    FieldReader r(c.object, "W");
    c.read(r);
    const Status s = r.Finish();
    if (c.message.empty()) {
      CHECK(s.ok());
      continue;
    }
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == kArtifactError);
    CHECK(s.message() == c.message);
  }
}

TEST_CASE("Artifact parsers: the reader's texts and the callers' own checks, exactly", "[store]") {
  testing::StoreFixture f;
  f.RecordCandidates();
  const json manifest = json::parse(testing::ReadAll(f.Path("manifest.json")));
  REQUIRE(ManifestFromJson(manifest).ok());
  struct Edit {
    const char* what;
    std::function<void(json&)> edit;
    const char* message;
  };
  const Edit edits[] = {
      {"top-level unknown key", [](json& m) { m["x"] = 1; },
       "manifest.json has an unknown key \"x\""},
      {"top-level missing key", [](json& m) { m.erase("cwd"); },
       "manifest.json is missing \"cwd\""},
      {"bad enum in the header", [](json& m) { m["state"] = "dreaming"; },
       "manifest.json state is unknown"},
      {"attempt with a bad stage", [](json& m) { m["attempts"][1]["stage"] = "x"; },
       "manifest.json attempts[1] has an unknown stage"},
      {"attempt with a negative attempt", [](json& m) { m["attempts"][2]["attempt"] = -1; },
       "manifest.json attempts[2] \"attempt\" is not a non-negative integer"},
      {"attempt slot out of range", [](json& m) { m["attempts"][0]["slot"] = 1000001; },
       "manifest.json attempts[0] \"slot\" is out of range"},
      {"attempt with a bad time", [](json& m) { m["attempts"][0]["started_at"] = "noon"; },
       "manifest.json attempts[0] \"started_at\" is not an RFC 3339 UTC time"},
      {"nested model", [](json& m) { m["models"]["evaluator"]["extra"] = 1; },
       "manifest.json models evaluator has an unknown key \"extra\""},
      {"nested usage", [](json& m) { m["usage"]["input"] = "1"; },
       "manifest.json usage \"input\" is not a token count"},
  };
  for (const Edit& e : edits) {
    INFO(e.what);
    json m = manifest;
    e.edit(m);
    auto parsed = ManifestFromJson(m);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == kArtifactError);
    CHECK(parsed.status().message() == e.message);
  }

  const json ref = {{"path", "merged.md"}, {"byte_length", 1}, {"sha256", "sha256:XYZ"}};
  CHECK(RefFromJson(ref, "result.json merged").status().message() ==
        "result.json merged sha256 is not sha256:<hex>");
  json extra = ref;
  extra["mode"] = 1;
  CHECK(RefFromJson(extra, "result.json merged").status().message() ==
        "result.json merged has an unknown key \"mode\"");
}

}  // namespace
}  // namespace pi_fusion::store
