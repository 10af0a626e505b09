// How the views name a run's panel and its thinking levels per role.
#include <catch2/catch.hpp>

#include "views/panel_texts.h"

using namespace pi_fusion;

TEST_CASE("panel texts: the panel, its levels, or nothing for a default run", "[texts][panels]") {
  store::RunModels models;
  models.thinking_level = "medium";
  CHECK(views::ThinkingText(models).empty());
  CHECK(views::PanelLine(std::nullopt, models).empty());
  CHECK(views::PanelLine(std::string(), models).empty());
  CHECK(views::PanelLine(std::string("fast"), models) == "Panel fast");

  models.role_thinking = store::RoleThinkingLevels{"low", "medium", "xhigh"};
  CHECK(views::ThinkingText(models) == "thinking candidates low, evaluator medium, merger xhigh");
  CHECK(views::PanelLine(std::string("deep"), models) ==
        "Panel deep · thinking candidates low, evaluator medium, merger xhigh");
  // A resume whose old panel is gone keeps its levels: said without a panel name.
  CHECK(views::PanelLine(std::nullopt, models) ==
        "Thinking candidates low, evaluator medium, merger xhigh");
  CHECK(models.ThinkingOf(Role::kRepair) == "medium");
  CHECK(models.ThinkingOf(Role::kMerger) == "xhigh");
}
