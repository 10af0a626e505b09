#include <catch2/catch.hpp>

#include <string>

#include "config/models_config.h"
#include "json_schema_check.h"

namespace pi_fusion::config {
namespace {

using nlohmann::json;

const char kPath[] = "/agent/fusion-models.json";

std::string File(const std::string& candidates, const std::string& evaluator = "\"$current\"",
                 const std::string& merger = "\"$current\"",
                 const std::string& version = "\"pi-background-tasks.fusion-models.v1\"") {
  return "{\"schema_version\":" + version + ",\"candidates\":" + candidates +
         ",\"evaluator\":" + evaluator + ",\"merger\":" + merger + "}";
}

const std::string kThree = "[\"$current\",\"$current\",\"$current\"]";

TEST_CASE("ModelsConfig: every rejection names the slot or key and the rule") {
  struct Row {
    std::string bytes;
    std::string message;  // expected after "Invalid /agent/fusion-models.json: "
  };
  const Row rows[] = {
      {"{", "not valid JSON"},
      {"", "not valid JSON"},
      {"[1e999]", "not valid JSON"},  // a number overflow (found by fuzz/models_config_fuzz.cc)
      {"[]", "the file must hold a JSON object"},
      {File(kThree).substr(0, File(kThree).size() - 1) + ",\"zeta\":1,\"alpha\":2}",
       "contains unsupported key(s): alpha, zeta"},
      {"{\"schema_version\":\"pi-background-tasks.fusion-models.v1\",\"candidates\":" + kThree +
           "}",
       "missing required key(s): evaluator, merger"},
      {File(kThree, "\"$current\"", "\"$current\"", "\"pi-background-tasks.fusion-models.v2\""),
       "schema_version must be \"pi-background-tasks.fusion-models.v1\" (found "
       "\"pi-background-tasks.fusion-models.v2\")"},
      {File(kThree, "\"$current\"", "\"$current\"", "1"),
       "schema_version must be \"pi-background-tasks.fusion-models.v1\" (found 1)"},
      {File("[\"$current\",\"$current\"]"),
       "candidates must list exactly 3 model selections (found 2 entries)"},
      {File("[\"$current\",\"$current\",\"$current\",\"$current\"]"),
       "candidates must list exactly 3 model selections (found 4 entries)"},
      {File("\"$current\""), "candidates must list exactly 3 model selections (found no array)"},
      {File("[\"$current\",5,\"$current\"]"), "Candidate 2 must be a string"},
      {File("[\"\",\"$current\",\"$current\"]"), "Candidate 1 must not be blank"},
      {File("[\"$current\",\"$current\",\"   \"]"), "Candidate 3 must not be blank"},
      {File(kThree, "\"\\u00a0\""), "Evaluator must not be blank"},
      {File(kThree, "\" local/m\""), "Evaluator must not have leading or trailing white space"},
      {File(kThree, "\"$current\"", "\"local/m\\t\""),
       "Merger must not have leading or trailing white space"},
      {File(kThree, "\"$current\"", "\"local/m\\u3000\""),
       "Merger must not have leading or trailing white space"},
      {File(kThree, "\"\\ufefflocal/m\""),
       "Evaluator must not have leading or trailing white space"},
      {File(kThree, "\"$current\"", "\"gpt-4\""),
       "Merger must be \"$current\" or \"provider/model\" (found \"gpt-4\")"},
      {File(kThree, "\"/model\""), "Evaluator must be \"$current\" or \"provider/model\""},
      {File(kThree, "\"provider/\""), "Evaluator must be \"$current\" or \"provider/model\""},
      {File(kThree, "\"$CURRENT\""), "Evaluator must be \"$current\" or \"provider/model\""},
      {File(kThree, "null"), "Evaluator must be a string"},
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

TEST_CASE("ModelsConfig: accepted selections") {
  const Result<ModelsConfig> parsed =
      ParseModelsConfig(File("[\"openrouter/anthropic/claude-x\",\"local/a\",\"local/a\"]",
                             "\"$current\"", "\"llama.cpp/Qwen3 30B \xC3\xA9\""),
                        kPath);
  REQUIRE(parsed.ok());
  CHECK(parsed->candidates[0] == "openrouter/anthropic/claude-x");
  CHECK(parsed->candidates[1] == parsed->candidates[2]);  // duplicates allowed
  const Result<Selection> nested = ParseSelection(Slot::kCandidate1, parsed->candidates[0]);
  REQUIRE(nested.ok());
  CHECK(nested->provider == "openrouter");
  CHECK(nested->model == "anthropic/claude-x");
  const Result<Selection> current = ParseSelection(Slot::kEvaluator, "$current");
  REQUIRE(current.ok());
  CHECK(current->is_current);
}

TEST_CASE("ModelsConfig: pretty output bytes") {
  ModelsConfig config;
  config.candidates[1] = "local/scripted-a";
  config.merger = "anthropic/claude-sonnet-4-5";
  const Result<std::string> bytes = SerializeModelsConfig(config);
  REQUIRE(bytes.ok());
  CHECK(*bytes ==
        "{\n"
        "  \"schema_version\": \"pi-background-tasks.fusion-models.v1\",\n"
        "  \"candidates\": [\n"
        "    \"$current\",\n"
        "    \"local/scripted-a\",\n"
        "    \"$current\"\n"
        "  ],\n"
        "  \"evaluator\": \"$current\",\n"
        "  \"merger\": \"anthropic/claude-sonnet-4-5\"\n"
        "}\n");
  const Result<ModelsConfig> round_trip = ParseModelsConfig(*bytes, kPath);
  REQUIRE(round_trip.ok());
  CHECK(*round_trip == config);
}

TEST_CASE("ModelsConfig: serializing refuses an invalid slot, including bad UTF-8") {
  ModelsConfig config;
  config.evaluator = "local/m ";
  CHECK(SerializeModelsConfig(config).status().code() == "config_invalid");
  config.evaluator = "local/\xFF";
  const Status s = SerializeModelsConfig(config).status();
  CHECK(s.code() == "config_invalid");
  CHECK(s.message() == "Evaluator is not valid UTF-8");
}

TEST_CASE("ModelsConfig: the schema file and the parser agree") {
  const json schema = pi_fusion::testing::LoadSourceJson("schemas/config/fusion-models.json");
  const std::string good[] = {
      File(kThree),
      File("[\"a/b\",\"a/b\",\"c/d/e\"]", "\"x/y\"", "\"$current\""),
  };
  for (const std::string& bytes : good) {
    INFO(bytes);
    CHECK(ParseModelsConfig(bytes, kPath).ok());
    CHECK(pi_fusion::testing::CheckAgainstSchema(schema, json::parse(bytes)).empty());
  }
  // Every shape rule the schema can express is rejected by both.
  const std::string bad[] = {
      File(kThree).substr(0, File(kThree).size() - 1) + ",\"extra\":1}",
      "{\"schema_version\":\"pi-background-tasks.fusion-models.v1\",\"candidates\":" + kThree +
          ",\"evaluator\":\"$current\"}",
      File(kThree, "\"$current\"", "\"$current\"", "\"pi-background-tasks.fusion-models.v2\""),
      File("[\"$current\",\"$current\"]"),
      File("[\"$current\",\"$current\",\"$current\",\"$current\"]"),
      File("[\"$current\",1,\"$current\"]"),
      File(kThree, "\"\""),
  };
  for (const std::string& bytes : bad) {
    INFO(bytes);
    CHECK_FALSE(ParseModelsConfig(bytes, kPath).ok());
    CHECK_FALSE(pi_fusion::testing::CheckAgainstSchema(schema, json::parse(bytes)).empty());
  }
  CHECK(schema["properties"]["schema_version"]["const"] == kModelsSchema);
}

TEST_CASE("ModelsConfig: slot labels and selection access") {
  ModelsConfig config;
  config.selection(Slot::kCandidate3) = "a/b";
  config.selection(Slot::kMerger) = "c/d";
  CHECK(config.candidates[2] == "a/b");
  CHECK(config.merger == "c/d");
  CHECK(SlotLabel(Slot::kCandidate2) == "Candidate 2");
  CHECK(SlotRole(Slot::kEvaluator) == "evaluator");
}

}  // namespace
}  // namespace pi_fusion::config
