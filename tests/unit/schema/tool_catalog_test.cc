#include "schema/tool_catalog.h"

#include <fstream>
#include <map>
#include <sstream>

#include <catch2/catch.hpp>

using pi_fusion::schema::RegisteredTools;
using pi_fusion::schema::ToolParameters;

namespace {
std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("ToolCatalog: registers exactly the public tools", "[schema]") {
  std::vector<std::string> names;
  for (const auto& tool : RegisteredTools()) names.push_back(tool.name);
  CHECK(names == std::vector<std::string>{"fusion_reason", "fusion_investigate", "fusion_research",
                                          "fusion_validate", "bg_result", "bg_status", "bg_kill"});
}

TEST_CASE("ToolCatalog: embedded schemas are byte-identical to schemas/tools", "[schema]") {
  for (const auto& tool : RegisteredTools()) {
    INFO(tool.name);
    const std::string file =
        std::string(PI_FUSION_SOURCE_DIR) + "/schemas/tools/" + tool.name + ".json";
    CHECK(pi_fusion::schema::EmbeddedToolSchema(tool.name + ".json") == ReadFile(file));
    REQUIRE(ToolParameters(tool.name) != nullptr);
  }
}

TEST_CASE("ToolCatalog: parameters for the registered tools and fusion_web_fetch only",
          "[schema]") {
  // fusion_web_fetch is registered by children, not by the host, but its schema is embedded too.
  CHECK(ToolParameters("fusion_web_fetch") != nullptr);
  CHECK(ToolParameters("fusion_brainstorm") == nullptr);  // retired: no schema, no tool
  CHECK(ToolParameters("bash") == nullptr);
}

TEST_CASE("ToolCatalog: every object in every schema is closed", "[schema]") {
  std::function<void(const nlohmann::json&, const std::string&)> check =
      [&](const nlohmann::json& node, const std::string& path) {
        if (node.is_object()) {
          if (node.value("type", "") == "object") {
            INFO(path);
            CHECK(node.value("additionalProperties", true) == false);
          }
          for (const auto& [key, child] : node.items()) check(child, path + "/" + key);
        } else if (node.is_array()) {
          for (const auto& child : node) check(child, path + "[]");
        }
      };
  for (const auto& tool : RegisteredTools()) check(*ToolParameters(tool.name), tool.name);
}

TEST_CASE("ToolCatalog: descriptions tell the model it runs in the background", "[schema]") {
  for (const auto& tool : RegisteredTools()) {
    INFO(tool.name);
    CHECK(!tool.label.empty());
    if (tool.workflow) {
      CHECK(tool.description.find("background") != std::string::npos);
      CHECK(tool.description.find("bg_result") != std::string::npos);
      CHECK(tool.description.find("49,152") != std::string::npos);
    }
  }
}

TEST_CASE(
    "ToolCatalog: every tool has a prompt snippet and guidelines; Fusion tools say not to poll",
    "[schema]") {
  for (const auto& tool : RegisteredTools()) {
    INFO(tool.name);
    CHECK(tool.prompt_snippet.rfind(tool.name + ": ", 0) == 0);
    REQUIRE_FALSE(tool.prompt_guidelines.empty());
    for (const auto& line : tool.prompt_guidelines) CHECK_FALSE(line.empty());
    if (tool.workflow) {
      CHECK(tool.prompt_guidelines.back().find("do not poll bg_status") != std::string::npos);
    }
  }
}

// Resuming is the person's decision: the agent learns to suggest it, never to relaunch the run.
TEST_CASE("ToolCatalog: bg_result tells the agent to suggest /fusion-resume, not to relaunch",
          "[schema]") {
  for (const auto& tool : RegisteredTools()) {
    if (tool.name != "bg_result") continue;
    CHECK(tool.prompt_guidelines.back() ==
          "When a failed or cancelled Fusion run says it is resumable, suggest /fusion-resume to "
          "the person rather than launching the run again yourself.");
    return;
  }
  FAIL("bg_result is not registered");
}

TEST_CASE("ToolCatalog: annotations say read-only toward the workspace, research open-world",
          "[schema]") {
  std::map<std::string, nlohmann::json> seen;
  for (const auto& tool : RegisteredTools()) seen[tool.name] = ToolAnnotations(tool);
  for (const char* name : {"fusion_reason", "fusion_investigate", "fusion_validate"}) {
    INFO(name);
    CHECK(seen[name] == nlohmann::json{{"readOnlyHint", true},
                                       {"destructiveHint", false},
                                       {"idempotentHint", false},
                                       {"openWorldHint", false}});
  }
  CHECK(seen["fusion_research"]["readOnlyHint"] == true);
  CHECK(seen["fusion_research"]["openWorldHint"] == true);
  CHECK(seen["bg_result"]["readOnlyHint"] == true);
  CHECK(seen["bg_status"]["idempotentHint"] == true);
  CHECK(seen["bg_kill"]["readOnlyHint"] == false);
  CHECK(seen["bg_kill"]["destructiveHint"] == false);
}
