// How the views name a run's panel and its thinking levels per role (fusion-models.json v3
// panels): one spelling for the receipt, the live and expanded views, bg_status and the run list.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "store/manifest.h"

namespace pi_fusion::views {

// "thinking candidates low, evaluator medium, merger high": each role's level, for a run whose
// panel set one (RunModels::role_thinking); "" when every child ran at the parent's level.
std::string ThinkingText(const store::RunModels& models);

// "Panel fast · thinking candidates low, evaluator medium, merger high", "Panel fast", or only
// the thinking part (a resume of a run whose panel is gone); "" for a run on the top-level cast
// at the parent's level, so a default run's views stay as they were.
std::string PanelLine(const std::optional<std::string>& panel, const store::RunModels& models);

}  // namespace pi_fusion::views
