// The clean-task canonical input (src/workflow/clean_task.h).
#include "workflow/clean_task.h"

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

schema::NormalizedRequest Normalized(const char* tool, const json& args) {
  auto request = schema::NormalizeFusionCall(tool, args);
  REQUIRE(request.ok());
  return request.value();
}

}  // namespace

TEST_CASE("CleanTask: exactly five keys with the normalized request as golden bytes",
          "[workflow][clean_task]") {
  struct Case {
    const char* tool;
    json args;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"fusion_investigate",
       {{"objective", " Find the leak "}, {"background", {"RSS grows"}}, {"deliverable", "cause"}},
       R"({"context":{"kind":"clean_task"},"cwd":"/work/repo","request":{"background":["RSS grows"],"constraints":[],"deliverable":"cause","objective":"Find the leak","scope":[]},"schema_version":"pi-background-tasks.fusion-input.v5","workflow":"investigate"})"},
      {"fusion_research",
       {{"objective", "o"},
        {"background", json::array()},
        {"deliverable", "d"},
        {"sources", {{{"url", "HTTPS://Example.COM:443/a?q=1#frag"}, {"purpose", "spec"}}}}},
       R"({"context":{"kind":"clean_task"},"cwd":"/work/repo","request":{"background":[],"constraints":[],"deliverable":"d","objective":"o","scope":[],"sources":[{"purpose":"spec","url":"https://example.com/a?q=1"}]},"schema_version":"pi-background-tasks.fusion-input.v5","workflow":"research"})"},
  };
  const json schema = pi_fusion::testing::LoadArtifactSchema("fusion-input.v5.json");
  for (const Case& c : cases) {
    INFO(c.tool);
    auto input = BuildCleanTaskInput("/work/repo", Normalized(c.tool, c.args));
    REQUIRE(input.ok());
    CHECK(input->bytes == c.expected);
    CHECK(input->value.size() == 5);
    CHECK(pi_fusion::testing::CheckAgainstSchema(schema, input->value).empty());
  }
}

TEST_CASE("CleanTask: validate carries its verification contract", "[workflow][clean_task]") {
  const json args = {{"objective", "o"},
                     {"background", json::array()},
                     {"changeSummary", "c"},
                     {"scope", {"src/"}},
                     {"acceptanceCriteria", {"a"}},
                     {"verification", {{"status", "not_run"}, {"reason", "no CI"}}}};
  auto input = BuildCleanTaskInput("/r", Normalized("fusion_validate", args));
  REQUIRE(input.ok());
  CHECK(input->value["workflow"] == "validate");
  CHECK(input->value["request"]["verification"]["evidence"] == json::array());
  CHECK(input->value["context"] == json{{"kind", "clean_task"}});
}

TEST_CASE("CleanTask: refuses reason and an empty cwd", "[workflow][clean_task]") {
  auto reason = BuildCleanTaskInput("/r", Normalized("fusion_reason", {{"prompt", "p"}}));
  CHECK(reason.status().code() == kContextCaptureFailed);
  auto no_cwd = BuildCleanTaskInput(
      "", Normalized("fusion_investigate",
                     {{"objective", "o"}, {"background", json::array()}, {"deliverable", "d"}}));
  CHECK(no_cwd.status().code() == kContextCaptureFailed);
}

}  // namespace pi_fusion::workflow
