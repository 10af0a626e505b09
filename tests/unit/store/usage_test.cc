// Pi Usage: strict parsing, JSON form, and component-wise sums that keep optional subsets only
// when some attempt reported them.
#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "store/usage.h"
#include "test_support.h"

using nlohmann::json;
using pi_fusion::store::SumUsage;
using pi_fusion::store::Usage;
using pi_fusion::store::UsageFromJson;
using pi_fusion::store::UsageToJson;
using pi_fusion::store::testing::SampleUsage;

namespace {

json PiUsage() {
  return json::parse(R"({"input":100,"output":20,"cacheRead":5,"cacheWrite":3,"totalTokens":128,
    "cost":{"input":0.1,"output":0.2,"cacheRead":0.01,"cacheWrite":0.02,"total":0.33}})");
}

}  // namespace

TEST_CASE("Usage: parses Pi's object and writes it back unchanged", "[store][usage]") {
  json with_subsets = PiUsage();
  with_subsets["cacheWrite1h"] = 2;
  with_subsets["reasoning"] = 7;
  with_subsets["cost"]["totalFromProvider"] = true;
  for (const json& input : {PiUsage(), with_subsets}) {
    INFO(input.dump());
    auto u = UsageFromJson(input, "usage");
    REQUIRE(u.ok());
    CHECK(UsageToJson(u.value()) == input);
  }
}

TEST_CASE("Usage: refuses malformed objects naming the field", "[store][usage]") {
  struct Case {
    const char* what;
    json usage;
    const char* fragment;
  };
  auto with = [](const char* pointer, json value) {
    json u = PiUsage();
    u[json::json_pointer(pointer)] = std::move(value);
    return u;
  };
  json missing = PiUsage();
  missing.erase("totalTokens");
  json extra = PiUsage();
  extra["bonus"] = 1;
  const Case cases[] = {
      {"missing", missing, "totalTokens"},
      {"unknown key", extra, "bonus"},
      {"negative", with("/input", -1), "input"},
      {"fraction", with("/output", 1.5), "output"},
      {"string", with("/cacheRead", "5"), "cacheRead"},
      {"null", with("/cacheWrite", nullptr), "cacheWrite"},
      {"negative cost", with("/cost/total", -0.1), "cost.total"},
      {"cost extra", with("/cost/currency", "usd"), "currency"},
      {"flag type", with("/cost/totalFromProvider", 1), "totalFromProvider"},
      {"not an object", json::array(), "not an object"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    auto u = UsageFromJson(c.usage, "usage");
    REQUIRE_FALSE(u.ok());
    CHECK(u.status().code() == pi_fusion::kArtifactError);
    CHECK(u.status().message().find(c.fragment) != std::string::npos);
  }
}

TEST_CASE("Usage: an integral float token count is accepted as an integer", "[store][usage]") {
  json u = PiUsage();
  u["input"] = 100.0;
  auto parsed = UsageFromJson(u, "usage");
  REQUIRE(parsed.ok());
  CHECK(parsed->input == 100);
  CHECK(UsageToJson(parsed.value())["input"].is_number_integer());
}

TEST_CASE("SumUsage: sums every component and keeps optional fields only when reported",
          "[store][usage]") {
  Usage plain = SampleUsage(10);
  Usage with_1h = SampleUsage(20);
  with_1h.cache_write_1h = 4;
  Usage with_reasoning = SampleUsage(30);
  with_reasoning.reasoning = 9;
  with_reasoning.cache_write_1h = 1;

  struct Case {
    const char* what;
    std::vector<Usage> parts;
    bool has_1h;
    bool has_reasoning;
  };
  const Case cases[] = {
      {"none", {}, false, false},
      {"plain only", {plain, plain}, false, false},
      {"one reports 1h", {plain, with_1h}, true, false},
      {"all kinds", {plain, with_1h, with_reasoning}, true, true},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const Usage sum = SumUsage(c.parts);
    uint64_t input = 0, total = 0, one_hour = 0, reasoning = 0;
    double cost = 0;
    for (const Usage& u : c.parts) {
      input += u.input;
      total += u.total_tokens;
      one_hour += u.cache_write_1h.value_or(0);
      reasoning += u.reasoning.value_or(0);
      cost += u.cost.total;
    }
    CHECK(sum.input == input);
    CHECK(sum.total_tokens == total);
    CHECK(sum.cost.total == Approx(cost));
    CHECK(sum.cache_write_1h.has_value() == c.has_1h);
    CHECK(sum.reasoning.has_value() == c.has_reasoning);
    if (c.has_1h) CHECK(*sum.cache_write_1h == one_hour);
    if (c.has_reasoning) CHECK(*sum.reasoning == reasoning);
    // The subsets are never folded into totalTokens.
    CHECK(UsageToJson(sum).contains("reasoning") == c.has_reasoning);
  }
}

TEST_CASE("SumUsage: totalFromProvider is true only when every part says true", "[store][usage]") {
  Usage billed = SampleUsage(1);
  billed.cost.total_from_provider = true;
  Usage estimated = SampleUsage(1);
  estimated.cost.total_from_provider = false;
  const Usage unflagged = SampleUsage(1);
  CHECK_FALSE(SumUsage({unflagged, unflagged}).cost.total_from_provider.has_value());
  CHECK(SumUsage({billed, billed}).cost.total_from_provider == true);
  CHECK(SumUsage({billed, estimated}).cost.total_from_provider == false);
  CHECK(SumUsage({billed, unflagged}).cost.total_from_provider == false);
}
