#include <catch2/catch.hpp>

#include <string>

#include "config/models_config.h"
#include "config/panels.h"
#include "json_schema_check.h"

namespace pi_fusion::config {
namespace {

using nlohmann::json;

const char kPath[] = "/agent/fusion-models.json";

// A v3 file with the top-level cast all "$current", then `rest` (raw `,"key":value` pairs).
std::string V3With(const std::string& rest) {
  return "{\"schema_version\":\"pi-background-tasks.fusion-models.v3\",\"candidates\":[\"$"
         "current\","
         "\"$current\",\"$current\"],\"evaluator\":\"$current\",\"merger\":\"$current\"" +
         rest + "}";
}

// A panel object with candidates a/1, a/2, a/3, evaluator e/1, merger m/1 and `more` (raw pairs).
std::string PanelJson(const std::string& more = "") {
  return "{\"candidates\":[\"a/1\",\"a/2\",\"a/3\"],\"evaluator\":\"e/1\",\"merger\":\"m/1\"" +
         more + "}";
}

const std::string kTwoPanels =
    ",\"panels\":{\"fast\":" +
    PanelJson(
        ",\"thinking\":{\"candidates\":\"low\",\"evaluator\":\"inherit\",\"merger\":\"high\"}") +
    ",\"deep\":" +
    PanelJson(",\"policy\":{\"quorum\":2,\"grace_seconds\":null,\"max_cost_usd\":1.5}") +
    "},\"default_panel\":\"fast\"";

TEST_CASE("Panels: a v3 file with two panels and a default loads every part") {
  const Result<ModelsConfig> parsed = ParseModelsConfig(V3With(kTwoPanels), kPath);
  REQUIRE(parsed.ok());
  REQUIRE(parsed->panels.size() == 2);
  CHECK(parsed->default_panel == "fast");
  const Panel& fast = parsed->panels.at("fast");
  CHECK(fast.candidates[1] == "a/2");
  CHECK(fast.evaluator == "e/1");
  CHECK(fast.merger == "m/1");
  CHECK(fast.thinking.candidates == "low");
  CHECK_FALSE(fast.thinking.evaluator.has_value());  // "inherit" reads as absent
  CHECK(fast.thinking.merger == "high");
  CHECK(fast.thinking.of(Role::kRepair) == fast.thinking.evaluator);
  CHECK_FALSE(fast.policy.has_value());
  const Panel& deep = parsed->panels.at("deep");
  REQUIRE(deep.policy.has_value());
  CHECK(deep.policy->quorum == 2);
  CHECK(deep.policy->max_cost_usd == 1.5);
  CHECK(deep.thinking.IsInherit());
}

TEST_CASE("Panels: every rejection is config_invalid naming the panel and the key") {
  struct Row {
    std::string bytes;
    std::string message;
  };
  const Row rows[] = {
      {V3With(",\"panels\":[]"), "panels must be an object of named panels"},
      {V3With(",\"panels\":{\"Fast\":" + PanelJson() + "}"),
       "panels: \"Fast\" is not a panel name: a name is 1 to 32 lower-case letters, digits or "
       "'-', starting with a letter or digit (^[a-z0-9][a-z0-9-]{0,31}$)"},
      {V3With(",\"panels\":{\"-x\":" + PanelJson() + "}"), "panels: \"-x\" is not a panel name"},
      {V3With(",\"panels\":{\"" + std::string(33, 'a') + "\":" + PanelJson() + "}"),
       "panels: \"" + std::string(33, 'a') + "\" is not a panel name"},
      {V3With(",\"panels\":{\"fast\":1}"),
       "panels.fast must be an object with the keys candidates, evaluator, merger"},
      {V3With(",\"panels\":{\"fast\":{\"candidates\":[\"a/1\",\"a/2\",\"a/3\"]}}"),
       "panels.fast missing required key(s): evaluator, merger"},
      {V3With(",\"panels\":{\"fast\":" + PanelJson(",\"model\":1,\"extra\":2") + "}"),
       "panels.fast contains unsupported key(s): extra, model"},
      {V3With(",\"panels\":{\"fast\":{\"candidates\":[\"a/1\"],\"evaluator\":\"e/1\","
              "\"merger\":\"m/1\"}}"),
       "panels.fast.candidates must list exactly 3 model selections (found 1 entries)"},
      {V3With(",\"panels\":{\"fast\":{\"candidates\":[\"a/1\",\"x\",\"a/3\"],\"evaluator\":"
              "\"e/1\",\"merger\":\"m/1\"}}"),
       "panels.fast: Candidate 2 must be \"$current\" or \"provider/model\" (found \"x\")"},
      {V3With(",\"panels\":{\"fast\":{\"candidates\":[\"a/1\",\"a/2\",\"a/3\"],\"evaluator\":7,"
              "\"merger\":\"m/1\"}}"),
       "panels.fast: Evaluator must be a string"},
      {V3With(",\"panels\":{\"fast\":" + PanelJson(",\"thinking\":{\"merger\":\"max\"}") + "}"),
       "panels.fast.thinking.merger must be one of off, minimal, low, medium, high, xhigh, or "
       "\"inherit\" (found \"max\")"},
      {V3With(",\"panels\":{\"fast\":" + PanelJson(",\"thinking\":{\"judge\":\"low\"}") + "}"),
       "panels.fast.thinking contains unsupported key(s): judge"},
      {V3With(",\"panels\":{\"fast\":" + PanelJson(",\"thinking\":\"low\"") + "}"),
       "panels.fast.thinking must be an object"},
      {V3With(",\"panels\":{\"fast\":" + PanelJson(",\"thinking\":{\"candidates\":1}") + "}"),
       "panels.fast.thinking.candidates must be one of"},
      {V3With(",\"panels\":{\"fast\":" +
              PanelJson(",\"policy\":{\"quorum\":4,\"grace_seconds\":null,\"max_cost_usd\":null}") +
              "}"),
       "panels.fast.policy.quorum must be 2 or 3 (found 4)"},
      {V3With(",\"panels\":{\"fast\":" + PanelJson(",\"policy\":{\"quorum\":2}") + "}"),
       "panels.fast.policy missing required key(s): grace_seconds, max_cost_usd"},
      {V3With(",\"panels\":{\"fast\":" + PanelJson() + "},\"default_panel\":\"slow\""),
       "default_panel \"slow\" names no panel of the file; its panels: fast"},
      {V3With(",\"default_panel\":3"), "default_panel must be the name of a panel (a string)"},
      {"{\"schema_version\":\"pi-background-tasks.fusion-models.v1\",\"candidates\":[\"$current\","
       "\"$current\",\"$current\"],\"evaluator\":\"$current\",\"merger\":\"$current\","
       "\"default_panel\":\"fast\"}",
       "contains unsupported key(s): default_panel (panels need schema_version "
       "\"pi-background-tasks.fusion-models.v3\")"},
  };
  for (const Row& row : rows) {
    INFO(row.bytes);
    const Result<ModelsConfig> parsed = ParseModelsConfig(row.bytes, kPath);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == "config_invalid");
    CHECK_THAT(parsed.status().message(),
               Catch::StartsWith(std::string("Invalid ") + kPath + ": " + row.message));
  }
}

TEST_CASE("Panels: a file with panels round-trips as v3; one without them is saved as v2 or v1") {
  const Result<ModelsConfig> parsed = ParseModelsConfig(V3With(kTwoPanels), kPath);
  REQUIRE(parsed.ok());
  const Result<std::string> saved = SerializeModelsConfig(*parsed);
  REQUIRE(saved.ok());
  CHECK(*saved ==
        "{\n"
        "  \"schema_version\": \"pi-background-tasks.fusion-models.v3\",\n"
        "  \"candidates\": [\n    \"$current\",\n    \"$current\",\n    \"$current\"\n  ],\n"
        "  \"evaluator\": \"$current\",\n"
        "  \"merger\": \"$current\",\n"
        "  \"panels\": {\n"
        "    \"deep\": {\n"
        "      \"candidates\": [\n        \"a/1\",\n        \"a/2\",\n        \"a/3\"\n      ],\n"
        "      \"evaluator\": \"e/1\",\n"
        "      \"merger\": \"m/1\",\n"
        "      \"policy\": {\n"
        "        \"quorum\": 2,\n"
        "        \"grace_seconds\": null,\n"
        "        \"max_cost_usd\": 1.5\n"
        "      }\n"
        "    },\n"
        "    \"fast\": {\n"
        "      \"candidates\": [\n        \"a/1\",\n        \"a/2\",\n        \"a/3\"\n      ],\n"
        "      \"evaluator\": \"e/1\",\n"
        "      \"merger\": \"m/1\",\n"
        "      \"thinking\": {\n"
        "        \"candidates\": \"low\",\n"
        "        \"merger\": \"high\"\n"
        "      }\n"
        "    }\n"
        "  },\n"
        "  \"default_panel\": \"fast\"\n"
        "}\n");
  const Result<ModelsConfig> again = ParseModelsConfig(*saved, kPath);
  REQUIRE(again.ok());
  CHECK(*again == *parsed);

  // Panels removed: what is left fits v2 (a policy) or v1 (none), and is saved so.
  ModelsConfig bare = *parsed;
  bare.panels.clear();
  bare.default_panel.reset();
  const Result<std::string> v1 = SerializeModelsConfig(bare);
  REQUIRE(v1.ok());
  CHECK(v1->find("fusion-models.v1") != std::string::npos);
  bare.policy.quorum = 2;
  const Result<std::string> v2 = SerializeModelsConfig(bare);
  REQUIRE(v2.ok());
  CHECK(v2->find("fusion-models.v2") != std::string::npos);
  CHECK(v2->find("panels") == std::string::npos);
  // An empty "panels" object in a v3 file holds nothing: saved as v1.
  const Result<ModelsConfig> empty = ParseModelsConfig(V3With(",\"panels\":{}"), kPath);
  REQUIRE(empty.ok());
  CHECK(SerializeModelsConfig(*empty)->find("fusion-models.v1") != std::string::npos);
}

TEST_CASE("Panels: serializing refuses what the file would refuse") {
  ModelsConfig config;
  Panel panel{{"a/1", "a/2", "a/3"}, "e/1", "m/1", {}, std::nullopt};
  config.panels["fast"] = panel;
  config.default_panel = "slow";
  CHECK(SerializeModelsConfig(config).status().message() ==
        "default_panel \"slow\" names no panel of the file; its panels: fast");
  config.default_panel = "fast";
  config.panels["fast"].thinking.merger = "max";
  CHECK_THAT(SerializeModelsConfig(config).status().message(),
             Catch::StartsWith("panels.fast.thinking: \"max\" is not one of off, minimal"));
  config.panels["fast"].thinking.merger.reset();
  config.panels["fast"].evaluator = " e/1";
  CHECK(SerializeModelsConfig(config).status().message() ==
        "panels.fast: Evaluator must not have leading or trailing white space");
  config.panels["fast"].evaluator = "e/1";
  config.panels["fast"].policy = Policy{};
  config.panels["fast"].policy->quorum = 5;
  CHECK(SerializeModelsConfig(config).status().message() ==
        "panels.fast.policy.quorum must be 2 or 3 (found 5)");
  config.panels["fast"].policy.reset();
  config.panels["Bad"] = panel;
  CHECK_THAT(SerializeModelsConfig(config).status().message(),
             Catch::StartsWith("panels: \"Bad\" is not a panel name"));
}

TEST_CASE("Panels: ChoosePanel picks the named panel, the default, or the top-level cast") {
  const Result<ModelsConfig> parsed = ParseModelsConfig(V3With(kTwoPanels), kPath);
  REQUIRE(parsed.ok());

  const Result<PanelChoice> deep = ChoosePanel(*parsed, "deep");
  REQUIRE(deep.ok());
  CHECK(deep->name == "deep");
  CHECK(deep->cast.candidates[0] == "a/1");
  CHECK(deep->cast.policy.quorum == 2);  // the panel's own policy
  CHECK(deep->cast.panels.empty());
  CHECK_FALSE(deep->cast.default_panel.has_value());

  const Result<PanelChoice> by_default = ChoosePanel(*parsed, "");
  REQUIRE(by_default.ok());
  CHECK(by_default->name == "fast");
  CHECK(by_default->thinking.candidates == "low");
  CHECK(by_default->cast.policy == parsed->policy);  // no policy of its own: the top level's

  ModelsConfig no_default = *parsed;
  no_default.default_panel.reset();
  const Result<PanelChoice> top = ChoosePanel(no_default, "");
  REQUIRE(top.ok());
  CHECK(top->name.empty());
  CHECK(top->cast.candidates[0] == "$current");
  CHECK(top->thinking.IsInherit());
  CHECK(top->cast.panels.empty());

  const Result<PanelChoice> unknown = ChoosePanel(*parsed, "slow");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == "invalid_arguments");
  CHECK(unknown.status().message() ==
        "no panel named \"slow\" in fusion-models.json; its panels: deep, fast (default). Name "
        "one of them, or leave out @<panel> for the default.");
  const Result<PanelChoice> none = ChoosePanel(ModelsConfig{}, "fast");
  REQUIRE_FALSE(none.ok());
  CHECK_THAT(none.status().message(), Catch::Contains("it defines no panels"));
}

TEST_CASE("Panels: the schema file and the parser agree on panel files") {
  const json schema = pi_fusion::testing::LoadSourceJson("schemas/config/fusion-models.json");
  const std::string good[] = {
      V3With(kTwoPanels),
      V3With(",\"panels\":{}"),
      V3With(",\"panels\":{\"a\":" + PanelJson(",\"thinking\":{}") + "}"),
  };
  for (const std::string& bytes : good) {
    INFO(bytes);
    CHECK(ParseModelsConfig(bytes, kPath).ok());
    CHECK(pi_fusion::testing::CheckAgainstSchema(schema, json::parse(bytes)).empty());
  }
  const std::string bad[] = {
      V3With(",\"panels\":{\"fast\":" + PanelJson(",\"extra\":1") + "}"),
      V3With(",\"panels\":{\"fast\":" + PanelJson(",\"thinking\":{\"merger\":\"max\"}") + "}"),
      V3With(",\"panels\":{\"fast\":" + PanelJson(",\"thinking\":{\"judge\":\"low\"}") + "}"),
      V3With(",\"panels\":{\"fast\":{\"candidates\":[\"a/1\"],\"evaluator\":\"e/1\","
             "\"merger\":\"m/1\"}}"),
      V3With(",\"panels\":{\"fast\":" + PanelJson(",\"policy\":{\"quorum\":2}") + "}"),
      V3With(",\"default_panel\":\"Fast\""),
  };
  for (const std::string& bytes : bad) {
    INFO(bytes);
    CHECK_FALSE(ParseModelsConfig(bytes, kPath).ok());
    CHECK_FALSE(pi_fusion::testing::CheckAgainstSchema(schema, json::parse(bytes)).empty());
  }
}

}  // namespace
}  // namespace pi_fusion::config
