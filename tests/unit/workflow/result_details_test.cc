// fusion-result.v6 details (src/workflow/result_details.h).
#include "workflow/result_details.h"

#include <functional>

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "pi_fusion/canonical_json.h"
#include "workflow/child_wrapper.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

const std::string kHash = "sha256:" + std::string(64, 'a');

ResultDetailsInput Good() {
  ResultDetailsInput in;
  in.run_id = "reason-0123456789abcdef0123456789abcdef";
  in.workflow = "reason";
  in.models = {{"anthropic/claude-sonnet-4-5", "openai-codex/gpt-5", "local/qwen3"},
               "anthropic/claude-sonnet-4-5",
               "openai-codex/gpt-5",
               "high"};
  in.anonymous_map.candidate_for_slot = {"B", "A", "C"};
  in.usage = json::parse(R"({"input":100,"output":20,"cacheRead":30,"cacheWrite":7,
      "cacheWrite1h":7,"reasoning":5,"totalTokens":157,
      "cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}})");
  in.attempts = {3, 2, 1, 1};
  in.artifacts = {{"merged.md", "merged.md", 1200, kHash},
                  {"evaluation.json", "evaluation.json", 900, kHash}};
  in.warnings = {{"budget", "merge", "merge at 85% of its input capacity"},
                 {"calibration", std::nullopt, "candidate 2 used 900 tokens over forecast"}};
  return in;
}

}  // namespace

TEST_CASE("ResultDetails: builds the closed v5 object", "[workflow][result]") {
  auto details = BuildResultDetails(Good());
  REQUIRE(details.ok());
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-result.v6.json"), *details)
            .empty());
  CHECK((*details)["schema_version"] == kResultSchema);
  CHECK((*details)["anonymous_map"] == json{{"A", 2}, {"B", 1}, {"C", 3}});
  CHECK((*details)["attempts"] == json{{"candidate", 3},
                                       {"evaluation", 2},
                                       {"evaluation_repair", 1},
                                       {"merge", 1},
                                       {"total", 7}});
  CHECK((*details)["models"]["candidates"][1] == "openai-codex/gpt-5");
  CHECK((*details)["usage"] == Good().usage);
  CHECK((*details)["warnings"][1] ==
        json{{"kind", "calibration"}, {"message", "candidate 2 used 900 tokens over forecast"}});
  CHECK((*details)["artifacts"]["merged.md"] ==
        json{{"path", "merged.md"}, {"byte_length", 1200}, {"sha256", kHash}});
}

TEST_CASE("ResultDetails: a run under a child wrapper names it and warns; others have no key",
          "[workflow][result]") {
  auto plain = BuildResultDetails(Good());
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->contains("child_wrapper"));
  ResultDetailsInput in = Good();
  in.child_wrapper = "/opt/trace/wrap.sh";
  in.warnings.push_back({"child_wrapper", std::nullopt, ChildWrapperNotice(in.child_wrapper)});
  auto details = BuildResultDetails(in);
  REQUIRE(details.ok());
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-result.v6.json"), *details)
            .empty());
  CHECK((*details)["child_wrapper"] == "/opt/trace/wrap.sh");
  CHECK((*details)["warnings"][2]["kind"] == "child_wrapper");
  CHECK_THAT((*details)["warnings"][2]["message"].get<std::string>(),
             Catch::Contains("PI_FUSION_CHILD_WRAPPER=/opt/trace/wrap.sh") &&
                 Catch::Contains("not trustworthy"));
  in.child_wrapper = "wrap.sh";
  CHECK_FALSE(BuildResultDetails(in).ok());
}

TEST_CASE("ChildWrapperOf: unset or empty is none; only an absolute path is taken",
          "[workflow][result]") {
  CHECK(ChildWrapperOf({"PATH=/usr/bin"}).value().empty());
  CHECK(ChildWrapperOf({"PI_FUSION_CHILD_WRAPPER="}).value().empty());
  CHECK(ChildWrapperOf({"PI_FUSION_CHILD_WRAPPER=/usr/bin/env"}).value() == "/usr/bin/env");
  // The first entry of a name wins, as getenv() sees it.
  CHECK(ChildWrapperOf({"PI_FUSION_CHILD_WRAPPER=/a", "PI_FUSION_CHILD_WRAPPER=b"}).value() ==
        "/a");
  for (const char* relative : {"wrap.sh", "./wrap.sh", "bin/wrap.sh", "~/wrap.sh"}) {
    Result<std::string> got = ChildWrapperOf({std::string("PI_FUSION_CHILD_WRAPPER=") + relative});
    REQUIRE_FALSE(got.ok());
    CHECK(got.status().code() == "config_invalid");
    CHECK_THAT(got.status().message(),
               Catch::Contains(std::string("PI_FUSION_CHILD_WRAPPER='") + relative + "'") &&
                   Catch::Contains("absolute path"));
  }
}

TEST_CASE("ResultDetails: refuses malformed fields", "[workflow][result]") {
  struct Case {
    const char* name;
    std::function<void(ResultDetailsInput&)> mutate;
    const char* message_part;
  };
  const std::vector<Case> cases = {
      {"bad run id", [](auto& in) { in.run_id = "reason-XYZ"; }, "malformed run_id"},
      {"run id of no workflow",
       [](auto& in) { in.run_id = "brainstorm-0123456789abcdef0123456789abcdef"; },
       "malformed run_id"},
      {"workflow mismatch", [](auto& in) { in.workflow = "research"; }, "does not belong"},
      {"missing model", [](auto& in) { in.models.evaluator = ""; }, "models must name"},
      {"bad anonymous map", [](auto& in) { in.anonymous_map.candidate_for_slot[0] = "A"; },
       "anonymous_map"},
      {"unknown usage field", [](auto& in) { in.usage["bonus"] = 1; }, "usage.bonus is not"},
      {"missing usage field", [](auto& in) { in.usage.erase("totalTokens"); },
       "usage.totalTokens is missing"},
      {"missing cost", [](auto& in) { in.usage.erase("cost"); }, "usage.cost is missing"},
      {"cost flag type", [](auto& in) { in.usage["cost"]["totalFromProvider"] = 1; },
       "must be a boolean"},
      {"two repairs", [](auto& in) { in.attempts.evaluation_repair = 2; }, "attempt counts"},
      {"duplicate artifact", [](auto& in) { in.artifacts.push_back(in.artifacts[0]); },
       "listed twice"},
      {"bad hash", [](auto& in) { in.artifacts[0].sha256 = "sha256:ABC"; }, "bad hash"},
      {"warning kind", [](auto& in) { in.warnings[0].kind = "style"; }, "warning kind"},
      {"warning stage", [](auto& in) { in.warnings[0].stage = "review"; }, "warning stage"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    ResultDetailsInput in = Good();
    c.mutate(in);
    auto details = BuildResultDetails(in);
    REQUIRE_FALSE(details.ok());
    CHECK(details.status().code() == kOrchestrationFailed);
    CHECK_THAT(details.status().message(), Catch::Contains(c.message_part));
  }
}

TEST_CASE("ResultDetails: tool refusals per candidate and a dropped reviewer",
          "[workflow][result]") {
  ResultDetailsInput in = Good();
  auto none = BuildResultDetails(in);
  REQUIRE(none.ok());
  CHECK((*none)["tool_refusals"] == json::array());  // always there, so "none" is said
  CHECK_FALSE(none->contains("dropped_reviewers"));  // only validate runs have reviewers
  in.tool_refusals = {{1, {{"path_in_run_store", 1}}},
                      {3, {{"path_outside_project", 2}, {"path_protected", 1}}}};
  in.dropped_reviewers = std::vector<DroppedReviewerRow>{{2, "child_timeout", "35 min idle"}};
  auto details = BuildResultDetails(in);
  REQUIRE(details.ok());
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-result.v6.json"), *details)
            .empty());
  CHECK((*details)["tool_refusals"] ==
        json::parse(R"([{"by_code":{"path_in_run_store":1},"count":1,"slot":1},
          {"by_code":{"path_outside_project":2,"path_protected":1},"count":3,"slot":3}])"));
  CHECK((*details)["dropped_reviewers"] ==
        json::parse(R"([{"code":"child_timeout","message":"35 min idle","slot":2}])"));
  in.tool_refusals = {{2, {}}};
  CHECK_FALSE(BuildResultDetails(in).ok());  // a row says a candidate was refused something
  in.tool_refusals = {{3, {{"path_protected", 1}}}, {1, {{"path_protected", 1}}}};
  CHECK_FALSE(BuildResultDetails(in).ok());  // by slot
}

TEST_CASE("ResultDetails: usage per role and the run's model requests", "[workflow][result]") {
  ResultDetailsInput in = Good();
  auto none = BuildResultDetails(in);
  REQUIRE(none.ok());
  CHECK_FALSE(none->contains("usage_by_role"));
  CHECK_FALSE(none->contains("model_requests"));
  const json row_usage = json::parse(R"({"input":10,"output":2,"cacheRead":0,"cacheWrite":0,
      "totalTokens":12,"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}})");
  in.usage_by_role = json::array({{{"role", "candidate"},
                                   {"slot", 1},
                                   {"model", "local/qwen3"},
                                   {"attempts", 1},
                                   {"requests", 2},
                                   {"usage", row_usage}},
                                  {{"role", "repair"},
                                   {"model", "local/e"},
                                   {"attempts", 1},
                                   {"requests", nullptr},
                                   {"usage", row_usage}}});
  in.model_requests = 8;
  auto details = BuildResultDetails(in);
  REQUIRE(details.ok());
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-result.v6.json"), *details)
            .empty());
  CHECK((*details)["usage_by_role"] == in.usage_by_role);
  CHECK((*details)["model_requests"] == 8);

  const std::vector<std::pair<const char*, std::function<void(json&)>>> bad = {
      {"role", [](json& r) { r["role"] = "judge"; }},
      {"slot", [](json& r) { r.erase("slot"); }},
      {"attempts", [](json& r) { r["attempts"] = 0; }},
      {"requests", [](json& r) { r["requests"] = -1; }},
      {"is not a role usage field", [](json& r) { r["bonus"] = 1; }},
      {"usage_by_role[0].usage.cost", [](json& r) { r["usage"].erase("cost"); }},
      {"reused_from must be a run id", [](json& r) { r["reused_from"] = "elsewhere"; }},
  };
  ResultDetailsInput reused = in;
  reused.usage_by_role[0]["reused_from"] = "reason-ffffffffffffffffffffffffffffffff";
  CHECK(BuildResultDetails(reused).ok());  // a resumed run's reused role
  for (const auto& [part, mutate] : bad) {
    INFO(part);
    ResultDetailsInput broken = in;
    mutate(broken.usage_by_role[0]);
    auto refused = BuildResultDetails(broken);
    REQUIRE_FALSE(refused.ok());
    CHECK_THAT(refused.status().message(), Catch::Contains(part));
  }
}

}  // namespace pi_fusion::workflow

namespace pi_fusion::workflow {

TEST_CASE("ResultDetails: research's failed sources are rows of url and code; none, no key",
          "[workflow][result]") {
  auto plain = BuildResultDetails(Good());
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->contains("source_failures"));
  ResultDetailsInput in = Good();
  in.run_id = "research-0123456789abcdef0123456789abcdef";
  in.workflow = "research";
  in.source_failures = {{"https://example.com/gone", "dns_failure"}};
  auto details = BuildResultDetails(in);
  REQUIRE(details.ok());
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-result.v6.json"), *details)
            .empty());
  CHECK((*details)["source_failures"] ==
        json::array({{{"url", "https://example.com/gone"}, {"code", "dns_failure"}}}));
  in.source_failures = {{"https://example.com/gone", ""}};
  CHECK(BuildResultDetails(in).status().code() == "orchestration_failed");
}

TEST_CASE("ResultDetails: a research run that fetched no source says so; others have no key",
          "[workflow][result]") {
  auto plain = BuildResultDetails(Good());
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->contains("no_source_fetched"));
  ResultDetailsInput in = Good();
  in.run_id = "research-0123456789abcdef0123456789abcdef";
  in.workflow = "research";
  in.no_source_fetched = true;
  auto details = BuildResultDetails(in);
  REQUIRE(details.ok());
  CHECK((*details)["no_source_fetched"] == true);
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-result.v6.json"), *details)
            .empty());
}

TEST_CASE("ResultDetails: a degraded run carries its record; others have no key",
          "[workflow][result]") {
  ResultDetailsInput in = Good();
  auto none = BuildResultDetails(in);
  REQUIRE(none.ok());
  CHECK_FALSE(none->contains("degraded"));
  const auto schema = pi_fusion::testing::LoadArtifactSchema("fusion-result.v6.json");
  for (
      const char* text :
      {R"({"slot":3,"model":"p/m","reason":"failed","code":"child_exit_failed","grace_seconds":null})",
       R"({"slot":1,"model":"p/m","reason":"cut_after_grace","code":null,"grace_seconds":1.5})"}) {
    INFO(text);
    in.degraded = json::parse(text);
    auto details = BuildResultDetails(in);
    REQUIRE(details.ok());
    CHECK((*details)["degraded"] == in.degraded);
    CHECK(pi_fusion::testing::CheckAgainstSchema(schema, *details).empty());
  }
  // The schema holds a reason to its own fields: a failed record names a code, a cut one a grace.
  in.degraded = json::parse(
      R"({"slot":1,"model":"p/m","reason":"cut_after_grace","code":"child_timeout","grace_seconds":null})");
  auto mixed = BuildResultDetails(in);
  REQUIRE(mixed.ok());
  CHECK_FALSE(pi_fusion::testing::CheckAgainstSchema(schema, *mixed).empty());
  in.degraded = json{{"slot", 4}, {"reason", "failed"}};
  CHECK_FALSE(BuildResultDetails(in).ok());
  in.degraded = json::array();
  CHECK_FALSE(BuildResultDetails(in).ok());
}

}  // namespace pi_fusion::workflow
