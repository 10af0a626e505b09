#include <catch2/catch.hpp>

#include <limits>
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
const std::string kV2 = "\"pi-background-tasks.fusion-models.v2\"";

// A v2 file with all-$current slots and `policy` as given (raw JSON).
std::string V2(const std::string& policy) {
  const std::string base = File(kThree, "\"$current\"", "\"$current\"", kV2);
  return base.substr(0, base.size() - 1) + ",\"policy\":" + policy + "}";
}

std::string Policy3(const std::string& quorum, const std::string& grace, const std::string& cap) {
  return "{\"quorum\":" + quorum + ",\"grace_seconds\":" + grace + ",\"max_cost_usd\":" + cap + "}";
}

const std::string kV3 = "\"pi-background-tasks.fusion-models.v3\"";

// A v3 file with all-$current slots, `extra` (raw `,"key":value` pairs or "") before its end, and
// `policy` (raw JSON, or "" for none).
std::string V3(const std::string& policy, const std::string& extra = "") {
  const std::string base = File(kThree, "\"$current\"", "\"$current\"", kV3);
  return base.substr(0, base.size() - 1) + (policy.empty() ? "" : ",\"policy\":" + policy) + extra +
         "}";
}

// v2's three policy keys (quorum 3, defaults) plus `more` (raw `,"key":value` pairs).
std::string PolicyWith(const std::string& more) {
  const std::string base = Policy3("3", "null", "null");
  return base.substr(0, base.size() - 1) + more + "}";
}

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
      {File(kThree, "\"$current\"", "\"$current\"", "\"pi-background-tasks.fusion-models.v4\""),
       "schema_version must be \"pi-background-tasks.fusion-models.v1\", "
       "\"pi-background-tasks.fusion-models.v2\" or \"pi-background-tasks.fusion-models.v3\" "
       "(found \"pi-background-tasks.fusion-models.v4\")"},
      {File(kThree, "\"$current\"", "\"$current\"", "1"),
       "schema_version must be \"pi-background-tasks.fusion-models.v1\", "
       "\"pi-background-tasks.fusion-models.v2\" or \"pi-background-tasks.fusion-models.v3\" "
       "(found 1)"},
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
      // v2: the policy.
      {File(kThree).substr(0, File(kThree).size() - 1) +
           ",\"policy\":" + Policy3("2", "null", "null") + "}",
       "contains unsupported key(s): policy (a policy needs schema_version "
       "\"pi-background-tasks.fusion-models.v2\")"},
      {V2("null"), "policy must be an object with the keys quorum, grace_seconds, max_cost_usd"},
      {V2("[2]"), "policy must be an object"},
      {V2("{\"quorum\":2}"), "policy missing required key(s): grace_seconds, max_cost_usd"},
      {V2("{\"quorum\":3,\"grace_seconds\":null,\"max_cost_usd\":null,\"extra\":1}"),
       "policy contains unsupported key(s): extra"},
      {V2(Policy3("1", "null", "null")), "policy.quorum must be 2 or 3 (found 1)"},
      {V2(Policy3("4", "null", "null")), "policy.quorum must be 2 or 3 (found 4)"},
      {V2(Policy3("2.0", "null", "null")), "policy.quorum must be 2 or 3 (found 2.0)"},
      {V2(Policy3("\"2\"", "null", "null")), "policy.quorum must be 2 or 3 (found \"2\")"},
      {V2(Policy3("null", "null", "null")), "policy.quorum must be 2 or 3 (found null)"},
      {V2(Policy3("2", "-1", "null")),
       "policy.grace_seconds must be a number of seconds from 0 to 3000 (the candidate stage's "
       "wall limit), or null for the default rule (found -1)"},
      // Bug: a window this long was accepted; the run's deadline overflowed into the past.
      {V2(Policy3("2", "1e11", "null")),
       "policy.grace_seconds must be a number of seconds from 0 to 3000 (the candidate stage's "
       "wall limit), or null for the default rule (found 100000000000.0)"},
      {V2(Policy3("2", "3000.5", "null")), "policy.grace_seconds must be a number of seconds"},
      {V2(Policy3("2", "\"20\"", "null")), "policy.grace_seconds must be a number"},
      {V2(Policy3("2", "-0.5", "null")), "policy.grace_seconds must be a number"},
      {V2(Policy3("2", "null", "0")),
       "policy.max_cost_usd must be a number of US dollars > 0, or null for no cap (found 0)"},
      {V2(Policy3("2", "null", "-2")), "policy.max_cost_usd must be a number"},
      {V2(Policy3("2", "null", "false")), "policy.max_cost_usd must be a number"},
      // v3: stall_seconds, its range, and the contract's other v3 keys refused by name.
      {V3(PolicyWith(",\"stall_seconds\":0")),
       "policy.stall_seconds must be a number of seconds > 0 and at most 3000 (the children's "
       "wall limit), or null for the default rule (600 s) (found 0)"},
      {V3(PolicyWith(",\"stall_seconds\":-5")), "policy.stall_seconds must be a number"},
      {V3(PolicyWith(",\"stall_seconds\":3000.5")),
       "policy.stall_seconds must be a number of seconds > 0 and at most 3000"},
      {V3(PolicyWith(",\"stall_seconds\":\"600\"")), "policy.stall_seconds must be a number"},
      {V3(PolicyWith(",\"stall_seconds\":true")), "policy.stall_seconds must be a number"},
      {V3("{\"stall_seconds\":60}"), "policy missing required key(s): quorum, grace_seconds"},
      {V3(PolicyWith(",\"stall_seconds\":60,\"extra\":1")),
       "policy contains unsupported key(s): extra"},
      {V2(PolicyWith(",\"stall_seconds\":60")),
       "policy contains unsupported key(s): stall_seconds (it needs schema_version "
       "\"pi-background-tasks.fusion-models.v3\")"},
      {V3(PolicyWith(",\"panel\":\"half\"")),
       "policy.panel must be \"full\" or \"adaptive\" (found \"half\")"},
      {V3(PolicyWith(",\"panel\":true")), "policy.panel must be \"full\" or \"adaptive\""},
      {V2(PolicyWith(",\"panel\":\"adaptive\"")),
       "policy contains unsupported key(s): panel (it needs schema_version "
       "\"pi-background-tasks.fusion-models.v3\")"},
      {V3(PolicyWith(",\"keep_warm_seconds\":-1")),
       "policy.keep_warm_seconds must be a number of seconds from 0 (off) to 86400 (found -1)"},
      {V3(PolicyWith(",\"keep_warm_seconds\":86401")),
       "policy.keep_warm_seconds must be a number of seconds from 0 (off) to 86400"},
      {V3(PolicyWith(",\"keep_warm_seconds\":null")),
       "policy.keep_warm_seconds must be a number of seconds"},
      {V3(PolicyWith(",\"keep_warm_seconds\":\"60\"")),
       "policy.keep_warm_seconds must be a number of seconds"},
      {V2(PolicyWith(",\"keep_warm_seconds\":60")),
       "policy contains unsupported key(s): keep_warm_seconds (it needs schema_version "
       "\"pi-background-tasks.fusion-models.v3\")"},
      {V3(PolicyWith(",\"evaluator_tools\":\"yes\"")),
       "policy.evaluator_tools must be true or false (found \"yes\")"},
      {V3(PolicyWith(",\"evaluator_tools\":null")), "policy.evaluator_tools must be true or false"},
      {V3(PolicyWith(",\"evaluator_tools\":1")), "policy.evaluator_tools must be true or false"},
      {V2(PolicyWith(",\"evaluator_tools\":true")),
       "policy contains unsupported key(s): evaluator_tools (it needs schema_version "
       "\"pi-background-tasks.fusion-models.v3\")"},
      {V3(PolicyWith(",\"order_check\":\"always\"")),
       "policy.order_check must be \"off\" or \"on_conflict\" (found \"always\")"},
      {V3(PolicyWith(",\"order_check\":true")), "policy.order_check must be \"off\" or"},
      {V3(PolicyWith(",\"order_check\":null")), "policy.order_check must be \"off\" or"},
      {V2(PolicyWith(",\"order_check\":\"on_conflict\"")),
       "policy contains unsupported key(s): order_check (it needs schema_version "
       "\"pi-background-tasks.fusion-models.v3\")"},
      {V2(Policy3("3", "null", "null")).substr(0, V2(Policy3("3", "null", "null")).size() - 1) +
           ",\"panels\":{}}",
       "contains unsupported key(s): panels (panels need schema_version "
       "\"pi-background-tasks.fusion-models.v3\")"},
      {V3(PolicyWith(",\"stall_seconds\":60"), ",\"default_panel\":\"fast\""),
       "default_panel \"fast\" names no panel of the file; it defines no panels"},
      // Slots are checked before the policy.
      {File("[\"x\",\"$current\",\"$current\"]", "\"$current\"", "\"$current\"", kV2),
       "Candidate 1 must be \"$current\" or \"provider/model\""},
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

TEST_CASE(
    "ModelsConfig: v2 files load with their policy; a v2 file without a policy is the default") {
  const Result<ModelsConfig> full = ParseModelsConfig(V2(Policy3("2", "20", "0.5")), kPath);
  REQUIRE(full.ok());
  CHECK(full->policy.quorum == 2);
  CHECK(full->policy.grace_seconds == 20.0);
  CHECK(full->policy.max_cost_usd == 0.5);
  const Result<ModelsConfig> nulls = ParseModelsConfig(V2(Policy3("3", "0", "null")), kPath);
  REQUIRE(nulls.ok());
  CHECK(nulls->policy.quorum == 3);
  CHECK(nulls->policy.grace_seconds == 0.0);  // zero is a valid window: cut at once
  CHECK_FALSE(nulls->policy.max_cost_usd);
  const Result<ModelsConfig> bare =
      ParseModelsConfig(File(kThree, "\"$current\"", "\"$current\"", kV2), kPath);
  REQUIRE(bare.ok());
  CHECK(bare->policy.IsDefault());
  CHECK(*bare == ModelsConfig());
  const Result<ModelsConfig> v1 = ParseModelsConfig(File(kThree), kPath);
  REQUIRE(v1.ok());
  CHECK(v1->policy.IsDefault());
}

TEST_CASE("ModelsConfig: a non-default policy writes v2, keys in order, nulls written") {
  ModelsConfig config;
  config.candidates[2] = "local/scripted-a";
  config.policy.quorum = 2;
  const Result<std::string> quorum_only = SerializeModelsConfig(config);
  REQUIRE(quorum_only.ok());
  CHECK(*quorum_only ==
        "{\n"
        "  \"schema_version\": \"pi-background-tasks.fusion-models.v2\",\n"
        "  \"candidates\": [\n"
        "    \"$current\",\n"
        "    \"$current\",\n"
        "    \"local/scripted-a\"\n"
        "  ],\n"
        "  \"evaluator\": \"$current\",\n"
        "  \"merger\": \"$current\",\n"
        "  \"policy\": {\n"
        "    \"quorum\": 2,\n"
        "    \"grace_seconds\": null,\n"
        "    \"max_cost_usd\": null\n"
        "  }\n"
        "}\n");
  config.policy.grace_seconds = 20;
  config.policy.max_cost_usd = 0.25;
  const Result<std::string> full = SerializeModelsConfig(config);
  REQUIRE(full.ok());
  CHECK_THAT(*full, Catch::EndsWith("  \"policy\": {\n"
                                    "    \"quorum\": 2,\n"
                                    "    \"grace_seconds\": 20,\n"
                                    "    \"max_cost_usd\": 0.25\n"
                                    "  }\n"
                                    "}\n"));
  const Result<ModelsConfig> round_trip = ParseModelsConfig(*full, kPath);
  REQUIRE(round_trip.ok());
  CHECK(*round_trip == config);

  // Only a cap (quorum 3) is still a policy someone chose: v2.
  ModelsConfig cap_only;
  cap_only.policy.max_cost_usd = 3;
  const Result<std::string> cap_bytes = SerializeModelsConfig(cap_only);
  REQUIRE(cap_bytes.ok());
  CHECK_THAT(*cap_bytes, Catch::Contains("fusion-models.v2"));
  CHECK_THAT(*cap_bytes, Catch::Contains("\"quorum\": 3,\n    \"grace_seconds\": null,\n"
                                         "    \"max_cost_usd\": 3\n"));

  // Back to the default policy: the v1 bytes exactly.
  config.policy = Policy();
  const Result<std::string> back = SerializeModelsConfig(config);
  REQUIRE(back.ok());
  CHECK_THAT(*back, Catch::StartsWith(
                        "{\n  \"schema_version\": \"pi-background-tasks.fusion-models.v1\""));
  CHECK_THAT(*back, !Catch::Contains("policy"));
}

TEST_CASE("ModelsConfig: serializing refuses a policy the file would refuse") {
  ModelsConfig config;
  config.policy.quorum = 1;
  Status s = SerializeModelsConfig(config).status();
  CHECK(s.code() == "config_invalid");
  CHECK(s.message() == "policy.quorum must be 2 or 3 (found 1)");
  config.policy = Policy();
  config.policy.grace_seconds = -3;
  CHECK_THAT(SerializeModelsConfig(config).status().message(),
             Catch::StartsWith("policy.grace_seconds must be a number of seconds from 0"));
  config.policy = Policy();
  config.policy.max_cost_usd = 0;
  CHECK_THAT(SerializeModelsConfig(config).status().message(),
             Catch::StartsWith("policy.max_cost_usd must be a number of US dollars > 0"));
  config.policy.max_cost_usd = std::numeric_limits<double>::infinity();
  CHECK(ValidatePolicy(config.policy).code() == "config_invalid");
}

TEST_CASE("ModelsConfig: policy numbers read as typed") {
  CHECK(PolicyNumberText(20) == "20");
  CHECK(PolicyNumberText(0) == "0");
  CHECK(PolicyNumberText(2.5) == "2.5");
  CHECK(PolicyNumberText(0.1) == "0.1");
}

TEST_CASE("ModelsConfig: v3 files load their stall_seconds; null or absent is the default rule") {
  const Result<ModelsConfig> set =
      ParseModelsConfig(V3(PolicyWith(",\"stall_seconds\":2.5")), kPath);
  REQUIRE(set.ok());
  CHECK(set->policy.stall_seconds == 2.5);
  CHECK(set->policy.quorum == 3);
  const Result<ModelsConfig> most =
      ParseModelsConfig(V3(PolicyWith(",\"stall_seconds\":3000")), kPath);
  REQUIRE(most.ok());
  CHECK(most->policy.stall_seconds == 3000.0);
  const Result<ModelsConfig> null =
      ParseModelsConfig(V3(PolicyWith(",\"stall_seconds\":null")), kPath);
  REQUIRE(null.ok());
  CHECK_FALSE(null->policy.stall_seconds);
  CHECK(null->policy.IsDefault());
  const Result<ModelsConfig> absent = ParseModelsConfig(V3(Policy3("2", "5", "null")), kPath);
  REQUIRE(absent.ok());
  CHECK_FALSE(absent->policy.stall_seconds);
  CHECK(absent->policy.quorum == 2);
  const Result<ModelsConfig> bare = ParseModelsConfig(V3(""), kPath);
  REQUIRE(bare.ok());
  CHECK(*bare == ModelsConfig());
}

TEST_CASE("ModelsConfig: v3 order_check loads; \"off\" or absent is the default, written never") {
  const Result<ModelsConfig> on =
      ParseModelsConfig(V3(PolicyWith(",\"order_check\":\"on_conflict\"")), kPath);
  REQUIRE(on.ok());
  CHECK(on->policy.order_check == OrderCheck::kOnConflict);
  CHECK_FALSE(on->policy.IsDefault());
  const Result<std::string> written = SerializeModelsConfig(*on);
  REQUIRE(written.ok());
  CHECK_THAT(*written, Catch::Contains("\"pi-background-tasks.fusion-models.v3\""));
  CHECK_THAT(*written, Catch::Contains("    \"max_cost_usd\": null,\n"
                                       "    \"order_check\": \"on_conflict\"\n"));
  const Result<ModelsConfig> round_trip = ParseModelsConfig(*written, kPath);
  REQUIRE(round_trip.ok());
  CHECK(*round_trip == *on);

  const Result<ModelsConfig> off =
      ParseModelsConfig(V3(PolicyWith(",\"order_check\":\"off\"")), kPath);
  REQUIRE(off.ok());
  CHECK(off->policy.order_check == OrderCheck::kOff);
  CHECK(off->policy.IsDefault());
  const Result<std::string> as_v1 = SerializeModelsConfig(*off);
  REQUIRE(as_v1.ok());
  CHECK_THAT(*as_v1, !Catch::Contains("order_check"));
  CHECK_THAT(*as_v1, Catch::Contains("\"pi-background-tasks.fusion-models.v1\""));

  // A panel's own policy takes it too.
  const Result<ModelsConfig> panel = ParseModelsConfig(
      V3(PolicyWith(""),
         ",\"panels\":{\"fast\":{\"candidates\":[\"a/m\",\"a/m\",\"a/m\"],\"evaluator\":\"a/m\","
         "\"merger\":\"a/m\",\"policy\":" +
             PolicyWith(",\"order_check\":\"on_conflict\"") + "}}"),
      kPath);
  REQUIRE(panel.ok());
  REQUIRE(panel->panels.at("fast").policy);
  CHECK(panel->panels.at("fast").policy->order_check == OrderCheck::kOnConflict);
  CHECK(panel->policy.order_check == OrderCheck::kOff);
}

TEST_CASE("ModelsConfig: v3 evaluator_tools loads; false or absent is the default, written never") {
  const Result<ModelsConfig> on =
      ParseModelsConfig(V3(PolicyWith(",\"evaluator_tools\":true")), kPath);
  REQUIRE(on.ok());
  CHECK(on->policy.evaluator_tools);
  CHECK_FALSE(on->policy.IsDefault());
  const Result<std::string> written = SerializeModelsConfig(*on);
  REQUIRE(written.ok());
  CHECK_THAT(*written, Catch::Contains("\"pi-background-tasks.fusion-models.v3\""));
  CHECK_THAT(*written, Catch::Contains("    \"max_cost_usd\": null,\n"
                                       "    \"evaluator_tools\": true\n"));
  const Result<ModelsConfig> round_trip = ParseModelsConfig(*written, kPath);
  REQUIRE(round_trip.ok());
  CHECK(*round_trip == *on);

  const Result<ModelsConfig> off =
      ParseModelsConfig(V3(PolicyWith(",\"evaluator_tools\":false")), kPath);
  REQUIRE(off.ok());
  CHECK_FALSE(off->policy.evaluator_tools);
  CHECK(off->policy.IsDefault());
  const Result<std::string> as_v1 = SerializeModelsConfig(*off);
  REQUIRE(as_v1.ok());
  CHECK_THAT(*as_v1, !Catch::Contains("evaluator_tools"));
  CHECK_THAT(*as_v1, Catch::Contains("\"pi-background-tasks.fusion-models.v1\""));

  // A panel's own policy takes it too.
  const Result<ModelsConfig> panel = ParseModelsConfig(
      V3(PolicyWith(""),
         ",\"panels\":{\"deep\":{\"candidates\":[\"a/m\",\"a/m\",\"a/m\"],\"evaluator\":\"a/m\","
         "\"merger\":\"a/m\",\"policy\":" +
             PolicyWith(",\"evaluator_tools\":true") + "}}"),
      kPath);
  REQUIRE(panel.ok());
  REQUIRE(panel->panels.at("deep").policy);
  CHECK(panel->panels.at("deep").policy->evaluator_tools);
  CHECK_FALSE(panel->policy.evaluator_tools);
}

TEST_CASE("ModelsConfig: v3 keep_warm_seconds loads; 0 or absent is the default, written never") {
  const Result<ModelsConfig> on =
      ParseModelsConfig(V3(PolicyWith(",\"keep_warm_seconds\":90")), kPath);
  REQUIRE(on.ok());
  CHECK(on->policy.keep_warm_seconds == 90);
  CHECK_FALSE(on->policy.IsDefault());
  const Result<std::string> written = SerializeModelsConfig(*on);
  REQUIRE(written.ok());
  CHECK_THAT(*written, Catch::Contains("\"pi-background-tasks.fusion-models.v3\""));
  CHECK_THAT(*written, Catch::Contains("    \"max_cost_usd\": null,\n"
                                       "    \"keep_warm_seconds\": 90\n"));
  const Result<ModelsConfig> round_trip = ParseModelsConfig(*written, kPath);
  REQUIRE(round_trip.ok());
  CHECK(*round_trip == *on);

  const Result<ModelsConfig> off =
      ParseModelsConfig(V3(PolicyWith(",\"keep_warm_seconds\":0")), kPath);
  REQUIRE(off.ok());
  CHECK(off->policy.IsDefault());
  const Result<std::string> as_v1 = SerializeModelsConfig(*off);
  REQUIRE(as_v1.ok());
  CHECK_THAT(*as_v1, !Catch::Contains("keep_warm_seconds"));

  ModelsConfig bad = *on;
  bad.policy.keep_warm_seconds = -3;
  CHECK(SerializeModelsConfig(bad).status().code() == "config_invalid");
}

TEST_CASE("ModelsConfig: only a stall_seconds writes v3; what fits v2 or v1 is written so") {
  ModelsConfig config;
  config.policy.stall_seconds = 90;
  const Result<std::string> stall_only = SerializeModelsConfig(config);
  REQUIRE(stall_only.ok());
  CHECK(*stall_only ==
        "{\n"
        "  \"schema_version\": \"pi-background-tasks.fusion-models.v3\",\n"
        "  \"candidates\": [\n"
        "    \"$current\",\n"
        "    \"$current\",\n"
        "    \"$current\"\n"
        "  ],\n"
        "  \"evaluator\": \"$current\",\n"
        "  \"merger\": \"$current\",\n"
        "  \"policy\": {\n"
        "    \"quorum\": 3,\n"
        "    \"grace_seconds\": null,\n"
        "    \"max_cost_usd\": null,\n"
        "    \"stall_seconds\": 90\n"
        "  }\n"
        "}\n");
  Result<ModelsConfig> round_trip = ParseModelsConfig(*stall_only, kPath);
  REQUIRE(round_trip.ok());
  CHECK(*round_trip == config);
  config.policy.quorum = 2;
  config.policy.stall_seconds = 0.5;
  const Result<std::string> fraction = SerializeModelsConfig(config);
  REQUIRE(fraction.ok());
  CHECK_THAT(*fraction, Catch::Contains("\"quorum\": 2,\n    \"grace_seconds\": null,\n"
                                        "    \"max_cost_usd\": null,\n"
                                        "    \"stall_seconds\": 0.5\n"));
  round_trip = ParseModelsConfig(*fraction, kPath);
  REQUIRE(round_trip.ok());
  CHECK(*round_trip == config);

  // A v3 file whose stall_seconds is null fits v2 (or v1): it is saved as that.
  const Result<ModelsConfig> v3_quorum = ParseModelsConfig(
      V3("{\"quorum\":2,\"grace_seconds\":null,\"max_cost_usd\":null,\"stall_seconds\":null}"),
      kPath);
  REQUIRE(v3_quorum.ok());
  const Result<std::string> as_v2 = SerializeModelsConfig(*v3_quorum);
  REQUIRE(as_v2.ok());
  CHECK_THAT(*as_v2, Catch::Contains("\"pi-background-tasks.fusion-models.v2\""));
  CHECK_THAT(*as_v2, !Catch::Contains("stall_seconds"));
  const Result<ModelsConfig> v3_default =
      ParseModelsConfig(V3(PolicyWith(",\"stall_seconds\":null")), kPath);
  REQUIRE(v3_default.ok());
  const Result<std::string> as_v1 = SerializeModelsConfig(*v3_default);
  REQUIRE(as_v1.ok());
  CHECK_THAT(*as_v1, Catch::Contains("\"pi-background-tasks.fusion-models.v1\""));
  CHECK_THAT(*as_v1, !Catch::Contains("policy"));
}

TEST_CASE("ModelsConfig: policy.panel reads full or adaptive; only adaptive is written, as v3") {
  const Result<ModelsConfig> adaptive =
      ParseModelsConfig(V3(PolicyWith(",\"panel\":\"adaptive\"")), kPath);
  REQUIRE(adaptive.ok());
  CHECK(adaptive->policy.adaptive);
  CHECK_FALSE(adaptive->policy.IsDefault());
  const Result<ModelsConfig> full = ParseModelsConfig(V3(PolicyWith(",\"panel\":\"full\"")), kPath);
  REQUIRE(full.ok());
  CHECK_FALSE(full->policy.adaptive);
  CHECK(full->policy.IsDefault());
  // "full" is the default: the file is saved as the smallest version that fits (v1 here).
  const Result<std::string> as_v1 = SerializeModelsConfig(*full);
  REQUIRE(as_v1.ok());
  CHECK_THAT(*as_v1, Catch::Contains("\"pi-background-tasks.fusion-models.v1\""));
  CHECK_THAT(*as_v1, !Catch::Contains("panel"));
  const Result<std::string> bytes = SerializeModelsConfig(*adaptive);
  REQUIRE(bytes.ok());
  CHECK_THAT(*bytes, Catch::Contains("\"pi-background-tasks.fusion-models.v3\""));
  CHECK_THAT(*bytes, Catch::Contains("    \"max_cost_usd\": null,\n    \"panel\": \"adaptive\"\n"));
  const Result<ModelsConfig> round_trip = ParseModelsConfig(*bytes, kPath);
  REQUIRE(round_trip.ok());
  CHECK(*round_trip == *adaptive);
}

TEST_CASE("ModelsConfig: serializing refuses a stall_seconds out of range") {
  ModelsConfig config;
  for (double bad : {0.0, -1.0, 3000.001, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    config.policy.stall_seconds = bad;
    const Status s = SerializeModelsConfig(config).status();
    CHECK(s.code() == "config_invalid");
    CHECK_THAT(s.message(),
               Catch::StartsWith("policy.stall_seconds must be a number of seconds > 0"));
  }
  config.policy.stall_seconds = 0.001;
  CHECK(ValidatePolicy(config.policy).ok());
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
      File(kThree, "\"$current\"", "\"$current\"", kV2),
      V2(Policy3("2", "null", "null")),
      V2(Policy3("3", "0", "0.01")),
      V2(Policy3("2", "20.5", "12")),
      V2(Policy3("2", "3000", "null")),
      V3(""),
      V3(Policy3("2", "null", "null")),
      V3(PolicyWith(",\"stall_seconds\":null")),
      V3(PolicyWith(",\"stall_seconds\":0.25")),
      V3(PolicyWith(",\"stall_seconds\":3000")),
      V3(PolicyWith(",\"panel\":\"full\"")),
      V3(PolicyWith(",\"panel\":\"adaptive\",\"stall_seconds\":60")),
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
      File(kThree, "\"$current\"", "\"$current\"", "\"pi-background-tasks.fusion-models.v4\""),
      V2(PolicyWith(",\"stall_seconds\":60")),
      V3(PolicyWith(",\"stall_seconds\":0")),
      V3(PolicyWith(",\"stall_seconds\":3001")),
      V3(PolicyWith(",\"stall_seconds\":\"60\"")),
      V3(PolicyWith(",\"panel\":\"half\"")),
      V2(PolicyWith(",\"panel\":\"adaptive\"")),
      V3("{\"stall_seconds\":60}"),
      File(kThree).substr(0, File(kThree).size() - 1) +
          ",\"policy\":" + Policy3("2", "null", "null") + "}",
      V2("null"),
      V2("{\"quorum\":2}"),
      V2("{\"quorum\":3,\"grace_seconds\":null,\"max_cost_usd\":null,\"extra\":1}"),
      V2(Policy3("1", "null", "null")),
      V2(Policy3("2.0", "null", "null")),
      V2(Policy3("2", "-1", "null")),
      V2(Policy3("2", "1e11", "null")),
      V2(Policy3("2", "\"20\"", "null")),
      V2(Policy3("2", "null", "0")),
      V2(Policy3("2", "null", "-0.5")),
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
  CHECK(schema["$defs"]["v1"]["properties"]["schema_version"]["const"] == kModelsSchemaV1);
  CHECK(schema["$defs"]["v2"]["properties"]["schema_version"]["const"] == kModelsSchemaV2);
  CHECK(schema["$defs"]["v3"]["properties"]["schema_version"]["const"] == kModelsSchemaV3);
  CHECK(schema["$defs"]["policy_v3"]["properties"]["stall_seconds"]["maximum"] == kMaxStallSeconds);
}

TEST_CASE("ModelsConfig: slot labels and selection access") {
  ModelsConfig config;
  config.selection(Slot::kCandidate3) = "a/b";
  config.selection(Slot::kMerger) = "c/d";
  CHECK(config.candidates[2] == "a/b");
  CHECK(config.merger == "c/d");
  CHECK(SlotLabel(Slot::kCandidate2) == "Candidate 2");
  CHECK(SlotId(Slot::kEvaluator) == "evaluator");
}

}  // namespace
}  // namespace pi_fusion::config
