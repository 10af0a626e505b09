// Named panels (fusion-models.json v3) through a whole launch: `/fusion @<panel>` and
// `/fusion-resume <run> @<panel>` parsed, the panel's routes, levels and policy taken, each child
// started at its role's level, the manifest and the receipt naming the panel; an unknown panel
// refused before anything starts; a run without panels exactly as before.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error_codes.h"
#include "lifecycle_harness.h"
#include "run/panel_argument.h"
#include "run/resume_arguments.h"

using namespace lifecycle_testing;

namespace {

// Writes `agent/fusion-models.json` under the harness's project with two panels over the one
// model the harness registers: "fast" (own levels) and "safe" (quorum 2), `extra` raw pairs after.
void WritePanels(Harness& h, const std::string& extra = "") {
  const std::string dir = h.dir.path() + "/agent";
  std::filesystem::create_directories(dir);
  const std::string cast =
      R"("candidates":["scripted/scripted-a","scripted/scripted-a","scripted/scripted-a"],)"
      R"("evaluator":"scripted/scripted-a","merger":"scripted/scripted-a")";
  std::ofstream(dir + "/fusion-models.json")
      << R"({"schema_version":"pi-background-tasks.fusion-models.v3",)"
      << R"("candidates":["$current","$current","$current"],"evaluator":"$current",)"
      << R"("merger":"$current","panels":{"fast":{)" << cast
      << R"(,"thinking":{"candidates":"low","merger":"high"}},"safe":{)" << cast
      << R"(,"policy":{"quorum":2,"grace_seconds":null,"max_cost_usd":null}}})" << extra << "}";
}

// The --thinking value of each started child, by role.
std::map<std::string, std::set<std::string>> LevelsByRole(const Harness& h) {
  std::map<std::string, std::set<std::string>> out;
  const auto argvs = h.launcher.argvs();
  const auto roles = h.launcher.started();
  for (size_t i = 0; i < argvs.size(); ++i) {
    for (size_t j = 0; j + 1 < argvs[i].size(); ++j) {
      if (argvs[i][j] == "--thinking") out[roles[i]].insert(argvs[i][j + 1]);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("panels: /fusion's @<panel> word", "[panels]") {
  const run::PanelArgument fast = run::SplitPanelArgument("  @fast  Why is the sky blue? ");
  CHECK(fast.panel == "fast");
  CHECK(fast.prompt == "Why is the sky blue?");
  const run::PanelArgument alone = run::SplitPanelArgument("@deep-2");
  CHECK(alone.panel == "deep-2");
  CHECK(alone.prompt.empty());
  // Not a panel name: Pi's file mention, an address, an upper-case word: all question.
  for (const char* text : {"@src/main.cc why?", "@Fast why?", "@ why?", "mail me@host", "@-x y"}) {
    INFO(text);
    const run::PanelArgument plain = run::SplitPanelArgument(text);
    CHECK(plain.panel.empty());
    CHECK(plain.prompt == text);
  }
  CHECK(run::SplitPanelArgument("Why?").prompt == "Why?");
}

TEST_CASE("panels: /fusion-resume's @<panel>", "[panels][resume]") {
  Result<run::ResumeArguments> args = run::ParseResumeArguments("1a2b3c4d @fast --slot merger=a/b");
  REQUIRE(args.ok());
  CHECK(args->query == "1a2b3c4d");
  CHECK(args->panel == "fast");
  REQUIRE(args->swaps.size() == 1);
  for (const char* bad : {"1a2b3c4d @Fast", "1a2b3c4d @fast @deep", "@fast"}) {
    INFO(bad);
    Result<run::ResumeArguments> refused = run::ParseResumeArguments(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == kInvalidArguments);
  }
  CHECK_THAT(run::ParseResumeArguments("x @Fast").status().message(),
             Catch::Contains("\"@Fast\" does not name a panel"));
  CHECK_THAT(run::ParseResumeArguments("@fast").status().message(),
             Catch::Contains("@<panel> needs the run to resume"));
}

TEST_CASE("panels: @fast runs at the panel's levels and every record names it", "[panels]") {
  Harness h;
  WritePanels(h);
  h.edit_request = [](run::RunRequest& request) {
    request.panel = "fast";
    request.host.registry.thinking_level = "medium";
  };
  h.Run();
  REQUIRE(h.sink.launch.ok);
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  const auto levels = LevelsByRole(h);
  CHECK(levels.at("candidate") == std::set<std::string>{"low"});
  CHECK(levels.at("evaluator") == std::set<std::string>{"medium"});  // inherits the parent's
  CHECK(levels.at("merger") == std::set<std::string>{"high"});
  const store::Manifest manifest = h.DiskManifest();
  CHECK(manifest.panel == "fast");
  CHECK(manifest.models.thinking_level == "medium");
  REQUIRE(manifest.models.role_thinking.has_value());
  CHECK(*manifest.models.role_thinking == store::RoleThinkingLevels{"low", "medium", "high"});
  // The manifest's config records the chosen cast alone, without the file's other panels.
  CHECK_FALSE(manifest.config["models"].contains("panels"));
  CHECK(manifest.config["models"]["candidates"][0] == "scripted/scripted-a");
  const std::string line = "Panel fast · thinking candidates low, evaluator medium, merger high";
  CHECK(h.sink.launch.panel_text == line);
  CHECK_THAT(h.sink.launch.receipt_text, Catch::Contains("\n" + line + "\nPreflight: "));
  CHECK_THAT(views::CommandStartedText(h.sink.launch), Catch::Contains("\n" + line));
}

TEST_CASE("panels: default_panel is used without @, its own policy with it", "[panels]") {
  Harness h;
  WritePanels(h, R"(,"default_panel":"safe")");
  h.Run();
  REQUIRE(h.sink.launch.ok);
  const store::Manifest manifest = h.DiskManifest();
  CHECK(manifest.panel == "safe");
  CHECK_FALSE(manifest.models.role_thinking.has_value());
  CHECK(manifest.config["models"]["policy"]["quorum"] == 2);  // the panel's policy
  CHECK(h.sink.launch.panel_text == "Panel safe");
  for (const auto& [role, levels] : LevelsByRole(h)) CHECK(levels == std::set<std::string>{"off"});
}

TEST_CASE("panels: an unknown @name is refused listing the panels, nothing starts", "[panels]") {
  Harness h;
  WritePanels(h);
  h.edit_request = [](run::RunRequest& request) { request.panel = "slow"; };
  h.Run();
  REQUIRE_FALSE(h.sink.launch.ok);
  CHECK(h.sink.launch.error.code() == kInvalidArguments);
  CHECK_THAT(h.sink.launch.error.message(),
             Catch::Contains("no panel named \"slow\" in fusion-models.json; its panels: fast, "
                             "safe."));
  CHECK(h.launcher.started().empty());
  CHECK(h.sink.launch.artifact_dir.empty());
}

TEST_CASE("panels: a run without panels records none and its receipt is unchanged", "[panels]") {
  Harness h;
  h.Run();
  REQUIRE(h.sink.launch.ok);
  const store::Manifest manifest = h.DiskManifest();
  CHECK_FALSE(manifest.panel.has_value());
  CHECK_FALSE(manifest.models.role_thinking.has_value());
  CHECK(h.sink.launch.panel_text.empty());
  CHECK_THAT(h.sink.launch.receipt_text, !Catch::Contains("Panel"));
  const nlohmann::json json = store::ManifestToJson(manifest);
  CHECK_FALSE(json.contains("panel"));
  CHECK_FALSE(json["models"].contains("thinking"));
}

TEST_CASE("panels: a resume @panel takes the panel's levels for the children it runs",
          "[panels][resume]") {
  Script failing;
  failing.failing_merger = true;
  Harness first(failing);
  first.Run();
  REQUIRE(first.sink.terminal.has_value());
  Harness second;
  WritePanels(second);
  second.resume_run_dir = first.sink.launch.artifact_dir;
  const std::string cwd = first.dir.path();
  second.edit_request = [cwd](run::RunRequest& request) {
    request.host.cwd = cwd;
    request.panel = "fast";
  };
  second.Run();
  REQUIRE(second.sink.launch.ok);
  CHECK(second.launcher.started() == std::vector<std::string>{"merger"});
  CHECK(LevelsByRole(second).at("merger") == std::set<std::string>{"high"});
  const store::Manifest manifest = second.DiskManifest();
  CHECK(manifest.panel == "fast");
  CHECK(manifest.resumed_from.has_value());
}
