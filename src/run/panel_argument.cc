#include "run/panel_argument.h"

#include "config/panels.h"

namespace pi_fusion::run {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace

PanelArgument SplitPanelArgument(std::string_view text) {
  text = Trim(text);
  if (text.empty() || text.front() != '@') return {"", std::string(text)};
  size_t end = 1;
  while (end < text.size() && !IsSpace(text[end])) ++end;
  const std::string_view name = text.substr(1, end - 1);
  if (!config::IsPanelName(name)) return {"", std::string(text)};
  return {std::string(name), std::string(Trim(text.substr(end)))};
}

}  // namespace pi_fusion::run
