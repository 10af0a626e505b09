// ClosedObjectReader: key bookkeeping, first-problem latching, typed lookups with their integer
// edges, and the unknown-key check, as structured problems (the wording belongs to the adapters).
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <limits>

#include "core/closed_object.h"

namespace pi_fusion {
namespace {

using nlohmann::json;
using Kind = FieldProblem::Kind;

FieldProblem Problem(Kind kind, std::string key, JsonShape expected = JsonShape::kString,
                     bool nullable = false) {
  return FieldProblem{
      .kind = kind, .key = std::move(key), .expected = expected, .nullable = nullable};
}

TEST_CASE("ClosedObjectReader: an object read exactly finishes clean, with its values") {
  const json object = json::parse(
      R"({"s":"text","i":-3,"u":7,"b":false,"o":{"k":1},"a":[1,2],"v":null,"ns":null,"ni":null})");
  ClosedObjectReader r(object);
  CHECK(r.String("s") == "text");
  CHECK(r.Int("i", -5, 5) == -3);
  CHECK(r.Uint("u") == 7u);
  CHECK(r.Bool("b") == false);
  CHECK(r.Member("o", JsonShape::kObject)->size() == 1);
  CHECK(r.Member("a", JsonShape::kArray)->size() == 2);
  CHECK(r.Value("v")->is_null());
  CHECK(r.NullableString("ns") == std::nullopt);
  CHECK(r.NullableInt("ni", 0, 1) == std::nullopt);
  CHECK(r.ok());
  CHECK(r.Finish() == std::nullopt);
}

TEST_CASE("ClosedObjectReader: each problem kind names its key and what was expected") {
  struct Case {
    const char* what;
    const char* object;
    std::function<void(ClosedObjectReader&)> read;
    FieldProblem expected;
  };
  const Case cases[] = {
      {"not an object", "[]", [](ClosedObjectReader& r) { r.String("s"); },
       FieldProblem{.kind = Kind::kNotObject}},
      {"missing", "{}", [](ClosedObjectReader& r) { r.Bool("b"); }, Problem(Kind::kMissing, "b")},
      {"missing though nullable", "{}", [](ClosedObjectReader& r) { r.NullableUint("n"); },
       Problem(Kind::kMissing, "n")},
      {"null where not nullable", R"({"s":null})", [](ClosedObjectReader& r) { r.String("s"); },
       Problem(Kind::kWrongType, "s", JsonShape::kString)},
      {"wrong type, nullable lookup", R"({"s":1})",
       [](ClosedObjectReader& r) { r.NullableString("s"); },
       Problem(Kind::kWrongType, "s", JsonShape::kString, true)},
      {"a float is not an integer", R"({"n":1.0})", [](ClosedObjectReader& r) { r.Int("n", 0, 9); },
       Problem(Kind::kWrongType, "n", JsonShape::kInteger)},
      {"object expected", R"({"o":[]})",
       [](ClosedObjectReader& r) { r.Member("o", JsonShape::kObject); },
       Problem(Kind::kWrongType, "o", JsonShape::kObject)},
      {"array expected, nullable", R"({"a":{}})",
       [](ClosedObjectReader& r) { r.NullableMember("a", JsonShape::kArray); },
       Problem(Kind::kWrongType, "a", JsonShape::kArray, true)},
      {"boolean expected", R"({"b":0})", [](ClosedObjectReader& r) { r.Bool("b"); },
       Problem(Kind::kWrongType, "b", JsonShape::kBoolean)},
      {"out of range", R"({"n":10})", [](ClosedObjectReader& r) { r.Int("n", 0, 9); },
       Problem(Kind::kOutOfRange, "n", JsonShape::kInteger)},
      {"out of range, nullable", R"({"n":-1})", [](ClosedObjectReader& r) { r.NullableUint("n"); },
       Problem(Kind::kOutOfRange, "n", JsonShape::kInteger, true)},
      {"too long", R"({"s":"abcd"})", [](ClosedObjectReader& r) { r.String("s", 3); },
       Problem(Kind::kTooLong, "s")},
      {"unknown key, in the object's order", R"({"s":"","y":1,"x":2})",
       [](ClosedObjectReader& r) { r.String("s"); }, Problem(Kind::kUnknownKey, "x")},
      {"Has() is not a read", R"({"s":""})", [](ClosedObjectReader& r) { CHECK(r.Has("s")); },
       Problem(Kind::kUnknownKey, "s")},
      {"the caller's own words", "{}", [](ClosedObjectReader& r) { r.Fail("is odd"); },
       FieldProblem{.kind = Kind::kOther, .text = "is odd"}},
      {"the first problem wins", R"({"b":1,"x":2})",
       [](ClosedObjectReader& r) {
         r.Bool("b");
         r.String("missing");
         r.Fail("is odd");
       },
       Problem(Kind::kWrongType, "b", JsonShape::kBoolean)},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const json object = json::parse(c.object);
    ClosedObjectReader r(object);
    c.read(r);
    const std::optional<FieldProblem> problem = r.Finish();
    REQUIRE(problem.has_value());
    CHECK(*problem == c.expected);
    CHECK(r.problem() == problem);  // Finish keeps what it found
  }
}

TEST_CASE("ClosedObjectReader: integer edges never wrap into range") {
  const json object = json::parse(R"({"max_u64":18446744073709551615,"over_i64":9223372036854775808,
    "max_i64":9223372036854775807,"min_i64":-9223372036854775808,"minus_one":-1,"zero":0})");
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  auto int_ok = [&](const char* key, int64_t min, int64_t max) {
    ClosedObjectReader r(object);
    return r.Int(key, min, max);
  };
  auto uint_ok = [&](const char* key, uint64_t max) {
    ClosedObjectReader r(object);
    return r.Uint(key, max);
  };
  CHECK(int_ok("max_i64", kMin, kMax) == kMax);
  CHECK(int_ok("min_i64", kMin, kMax) == kMin);
  CHECK(int_ok("over_i64", kMin, kMax) == std::nullopt);
  CHECK(int_ok("max_u64", kMin, kMax) == std::nullopt);
  CHECK(int_ok("minus_one", 0, kMax) == std::nullopt);
  CHECK(int_ok("minus_one", -1, -1) == -1);
  CHECK(int_ok("zero", 1, kMax) == std::nullopt);
  CHECK(uint_ok("max_u64", UINT64_MAX) == UINT64_MAX);
  CHECK(uint_ok("max_u64", UINT64_MAX - 1) == std::nullopt);
  CHECK(uint_ok("over_i64", UINT64_MAX) == uint64_t{1} << 63);
  CHECK(uint_ok("minus_one", UINT64_MAX) == std::nullopt);
  CHECK(uint_ok("min_i64", UINT64_MAX) == std::nullopt);
  CHECK(uint_ok("zero", 0) == 0u);

  // Values built in C++ (not parsed) may hold a non-negative count as a signed integer.
  const json built = {{"n", int64_t{5}}, {"m", int64_t{-5}}};
  ClosedObjectReader r(built);
  CHECK(r.Uint("n") == 5u);
  CHECK(r.Uint("m") == std::nullopt);
  CHECK(r.problem() == Problem(Kind::kOutOfRange, "m", JsonShape::kInteger));
}

TEST_CASE("ClosedObjectReader: reads go on after a problem and an over-long string is returned") {
  const json object = {{"s", "abcd"}, {"n", 4}};
  ClosedObjectReader r(object);
  CHECK(r.String("s", 2) == "abcd");
  CHECK_FALSE(r.ok());
  CHECK(r.Int("n", 0, 9) == 4);
  CHECK(r.Finish() == Problem(Kind::kTooLong, "s"));
}

TEST_CASE("ClosedObjectReader: a non-object reads as absent and reports only that") {
  for (const json& value : {json(nullptr), json(3), json("x"), json::array({1})}) {
    INFO(value.dump());
    ClosedObjectReader r(value);
    CHECK(r.Value("a") == nullptr);
    CHECK_FALSE(r.Has("a"));
    CHECK(r.Finish() == FieldProblem{.kind = Kind::kNotObject});
  }
}

}  // namespace
}  // namespace pi_fusion
