// The selector's named panels (v3): which cast the slots view edits, the panels view and the name
// input, and the edits they make to the working copy. Nothing here writes the file: `s` does.
#include <algorithm>
#include <iterator>
#include <utility>

#include "config/selector.h"

namespace pi_fusion::config {
namespace {

std::string NameRuleText(const std::string& name) {
  return "\"" + name + "\" is not a panel name: a name is 1 to 32 lower-case letters, digits or " +
         "'-', starting with a letter or digit (" + std::string(kPanelNamePattern) + ")";
}

// "scripted/a, scripted/b, $current → scripted/a → scripted/a": the cast in one line.
std::string CastText(const Panel& panel) {
  return panel.candidates[0] + ", " + panel.candidates[1] + ", " + panel.candidates[2] +
         " · evaluator " + panel.evaluator + " · merger " + panel.merger;
}

Panel PanelFromCast(const ModelsConfig& config) {
  Panel panel;
  for (Slot slot : kAllSlots) panel.selection(slot) = config.selection(slot);
  return panel;
}

}  // namespace

const Panel* Selector::EditedPanel() const {
  if (!panel_) return nullptr;
  const auto found = config_.panels.find(*panel_);
  return found == config_.panels.end() ? nullptr : &found->second;
}

Panel* Selector::EditedPanel() { return const_cast<Panel*>(std::as_const(*this).EditedPanel()); }

const std::string& Selector::Edited(Slot slot) const {
  const Panel* panel = EditedPanel();
  return panel ? panel->selection(slot) : config_.selection(slot);
}

std::string& Selector::Edited(Slot slot) {
  return const_cast<std::string&>(std::as_const(*this).Edited(slot));
}

size_t Selector::RowCount() const { return panel_ ? kAllSlots.size() : kSelectorRows; }

const std::string* Selector::CursorPanel() const {
  if (panel_cursor_ == 0 || panel_cursor_ > config_.panels.size()) return nullptr;
  return &std::next(config_.panels.begin(), static_cast<long>(panel_cursor_ - 1))->first;
}

std::string Selector::PanelHeader() const {
  if (!panel_) {
    return config_.default_panel ? "Editing the top-level cast (runs use the default panel " +
                                       *config_.default_panel + ")"
                                 : "Editing the top-level cast (what runs use: no default panel)";
  }
  return "Editing panel " + *panel_ + (config_.default_panel == panel_ ? " (default)" : "");
}

void Selector::OpenPanels() {
  view_ = View::kPanels;
  panel_cursor_ = 0;
  if (panel_) {
    const auto found = config_.panels.find(*panel_);
    panel_cursor_ = static_cast<size_t>(std::distance(config_.panels.begin(), found)) + 1;
  }
}

SelectorOutcome Selector::PanelsKey(SelectorKey key, std::string_view text) {
  const size_t count = config_.panels.size() + 1;
  const std::string* name = CursorPanel();
  if (key == SelectorKey::kUp) {
    panel_cursor_ = (panel_cursor_ + count - 1) % count;
  } else if (key == SelectorKey::kDown) {
    panel_cursor_ = (panel_cursor_ + 1) % count;
  } else if (key == SelectorKey::kEscape) {
    view_ = View::kSlots;
  } else if (key == SelectorKey::kEnter) {
    panel_ = name ? std::optional<std::string>(*name) : std::nullopt;
    focus_ = 0;
    view_ = View::kSlots;
  } else if (key == SelectorKey::kText && text == "n") {
    OpenName(/*rename=*/false);
  } else if (key == SelectorKey::kText && text == "s") {
    RequestSave();
  } else if (key == SelectorKey::kText && (text == "r" || text == "x" || text == "d")) {
    if (!name) {
      SetMessage("The top-level cast has no name; choose a panel first.", "warning");
    } else if (text == "r") {
      OpenName(/*rename=*/true);
    } else if (text == "x") {
      DeletePanel();
    } else {
      ToggleDefault();
    }
  }
  return outcome_;
}

void Selector::OpenName(bool rename) {
  renaming_ = rename;
  input_ = rename ? *CursorPanel() : "";
  view_ = View::kName;
}

SelectorOutcome Selector::NameKey(SelectorKey key, std::string_view text) {
  switch (key) {
    case SelectorKey::kUp:
    case SelectorKey::kDown:
      break;
    case SelectorKey::kEscape:
      view_ = View::kPanels;
      break;
    case SelectorKey::kBackspace:
      if (!input_.empty()) input_.pop_back();  // a valid name is ASCII; anything else is refused
      break;
    case SelectorKey::kText:
      if (input_.size() + text.size() <= kPanelNameMaxLength + 1) input_ += text;
      break;
    case SelectorKey::kEnter:
      ApplyName();
      break;
  }
  return outcome_;
}

// A new panel copies the cast being edited (a panel whole, with its levels and policy); a rename
// moves the panel and follows it in default_panel and in what the slots view edits.
void Selector::ApplyName() {
  const std::string old_name = renaming_ ? *CursorPanel() : "";
  if (!IsPanelName(input_)) {
    SetMessage("Not applied: " + NameRuleText(input_) + ".", "error");
    return;
  }
  if (renaming_ && input_ == old_name) {
    view_ = View::kPanels;
    return;
  }
  if (config_.panels.contains(input_)) {
    SetMessage("Not applied: a panel named \"" + input_ + "\" exists already; choose another name.",
               "error");
    return;
  }
  if (renaming_) {
    auto node = config_.panels.extract(old_name);
    node.key() = input_;
    config_.panels.insert(std::move(node));
    if (config_.default_panel == old_name) config_.default_panel = input_;
    if (panel_ == old_name) panel_ = input_;
    SetMessage("Panel " + old_name + " renamed to " + input_ + ".", "muted");
  } else {
    const Panel* edited = EditedPanel();
    config_.panels.emplace(input_, edited ? *edited : PanelFromCast(config_));
    SetMessage("Panel " + input_ + " created from " +
                   (panel_ ? "panel " + *panel_ : std::string("the top-level cast")) + ".",
               "muted");
  }
  const auto found = config_.panels.find(input_);
  panel_cursor_ = static_cast<size_t>(std::distance(config_.panels.begin(), found)) + 1;
  view_ = View::kPanels;
}

void Selector::DeletePanel() {
  const std::string name = *CursorPanel();
  config_.panels.erase(name);
  const bool was_default = config_.default_panel == name;
  if (was_default) config_.default_panel.reset();
  if (panel_ == name) panel_.reset();
  panel_cursor_ = std::min(panel_cursor_, config_.panels.size());
  SetMessage("Panel " + name + " deleted" +
                 (was_default ? "; runs use the top-level cast again (no default panel)." : "."),
             "muted");
}

void Selector::ToggleDefault() {
  const std::string name = *CursorPanel();
  if (config_.default_panel == name) {
    config_.default_panel.reset();
    SetMessage("No default panel: runs without @<panel> use the top-level cast.", "muted");
  } else {
    config_.default_panel = name;
    SetMessage("Default panel: " + name + ".", "muted");
  }
}

// inherit → off → minimal → … → xhigh → inherit, for the focused slot's role.
void Selector::CycleThinking() {
  Panel* panel = EditedPanel();
  if (!panel) return;
  const Role role = RoleOf(kAllSlots[focus_]);
  std::optional<std::string>& level = role == Role::kCandidate   ? panel->thinking.candidates
                                      : role == Role::kEvaluator ? panel->thinking.evaluator
                                                                 : panel->thinking.merger;
  const auto at = level
                      ? std::find(kPanelThinkingLevels.begin(), kPanelThinkingLevels.end(), *level)
                      : kPanelThinkingLevels.end();
  if (!level) {
    level = std::string(kPanelThinkingLevels.front());
  } else if (at == kPanelThinkingLevels.end() || at + 1 == kPanelThinkingLevels.end()) {
    level.reset();
  } else {
    level = std::string(*(at + 1));
  }
}

void Selector::RenderPanels(std::vector<SelectorLine>& out) const {
  out.push_back({"Fusion models: panels in " + store_.path(), "accent"});
  out.push_back({"", "text"});
  out.push_back({std::string(panel_cursor_ == 0 ? "> " : "  ") + "(top-level cast)" +
                     (config_.default_panel ? "" : "  (default)"),
                 panel_cursor_ == 0 ? "accent" : "text"});
  size_t row = 1;
  for (const auto& [name, panel] : config_.panels) {
    const bool focused = row++ == panel_cursor_;
    std::string text = (focused ? "> " : "  ") + name;
    if (config_.default_panel == name) text += "  (default)";
    out.push_back({text + "  " + CastText(panel), focused ? "accent" : "text"});
  }
  if (config_.panels.empty()) out.push_back({"  (no named panels yet: n creates one)", "muted"});
  out.push_back({"", "text"});
  out.push_back(
      {"↑/↓ move · Enter edit · n new panel from the cast being edited · r rename · "
       "x delete · d set/clear default · s save and close · Esc back",
       "dim"});
}

void Selector::RenderName(std::vector<SelectorLine>& out) const {
  out.push_back({renaming_ ? "Fusion models: rename panel " + *CursorPanel()
                           : "Fusion models: name the new panel",
                 "accent"});
  out.push_back({"Panel name: " + input_ + "_", "text"});
  out.push_back(
      {"1 to 32 lower-case letters, digits or '-', starting with a letter or digit; "
       "it is what /fusion @<panel> types.",
       "muted"});
  out.push_back({"", "text"});
  out.push_back({"type the name · Backspace edit · Enter apply · Esc back unchanged", "dim"});
}

}  // namespace pi_fusion::config
