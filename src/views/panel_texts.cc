#include "views/panel_texts.h"

#include <cctype>

namespace pi_fusion::views {

std::string ThinkingText(const store::RunModels& models) {
  if (!models.role_thinking) return "";
  const store::RoleThinkingLevels& levels = *models.role_thinking;
  return "thinking candidates " + levels.candidates + ", evaluator " + levels.evaluator +
         ", merger " + levels.merger;
}

std::string PanelLine(const std::optional<std::string>& panel, const store::RunModels& models) {
  const std::string thinking = ThinkingText(models);
  if (!panel || panel->empty()) {
    return thinking.empty()
               ? ""
               : std::string(1, static_cast<char>(std::toupper(thinking[0]))) + thinking.substr(1);
  }
  return "Panel " + *panel + (thinking.empty() ? "" : " · " + thinking);
}

}  // namespace pi_fusion::views
