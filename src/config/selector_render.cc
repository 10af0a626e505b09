// The selector's lines: each view drawn from the working copy, with its styles.
#include "config/selector.h"

#include <algorithm>
#include <string>

namespace pi_fusion::config {
namespace {

std::string PadLabel(std::string_view label) {
  std::string out(label);
  out.resize(std::max<size_t>(out.size(), 13), ' ');
  return out;
}

std::string QuorumText(int quorum) {
  return quorum == kReducedQuorum
             ? "2 of 3: two verified answers suffice; the third gets the grace window"
             : "3 of 3: every candidate must answer (one failure fails the run)";
}

std::string GraceText(const Policy& policy) {
  std::string text = policy.grace_seconds ? PolicyNumberText(*policy.grace_seconds) + " s"
                                          : "default rule: the larger of " +
                                                PolicyNumberText(kDefaultGraceFloorSeconds) +
                                                " s and half the second answer's time";
  if (policy.quorum != kReducedQuorum) text += " (used with quorum 2 only)";
  return text;
}

std::string CostCapText(const Policy& policy) {
  return policy.max_cost_usd ? "$" + PolicyNumberText(*policy.max_cost_usd) + " per run" : "none";
}

std::string StallText(const Policy& policy) {
  const std::string seconds =
      policy.stall_seconds ? PolicyNumberText(*policy.stall_seconds) + " s"
                           : "default rule: " + PolicyNumberText(kDefaultStallSeconds) + " s";
  return seconds + " without output, tool call or model-stream progress stops a child";
}

std::string KeepWarmText(const Policy& policy) {
  if (policy.keep_warm_seconds <= 0) return "off: every candidate starts a new Pi process";
  return PolicyNumberText(policy.keep_warm_seconds) + " s after a run: up to " +
         std::to_string(kWarmPoolSize) + " candidate processes stay ready, about " +
         std::to_string(kWarmProcessMegabytes) + " MB of memory each (" +
         std::to_string(kWarmPoolSize * kWarmProcessMegabytes) + " MB)";
}

}  // namespace

std::vector<SelectorLine> Selector::Render() const {
  std::vector<SelectorLine> out;
  switch (view_) {
    case View::kSlots:
      RenderSlots(out);
      break;
    case View::kList:
      RenderList(out);
      break;
    case View::kInput:
      RenderInput(out);
      break;
    case View::kConfirmReplace:
      RenderConfirm(out);
      break;
    case View::kPanels:
      RenderPanels(out);
      break;
    case View::kName:
      RenderName(out);
      break;
  }
  if (!message_.empty()) out.push_back({message_, message_style_});
  return out;
}

void Selector::RenderSlots(std::vector<SelectorLine>& out) const {
  out.push_back({"Fusion models: " + store_.path(), "accent"});
  if (!load_error_.empty()) {
    out.push_back({load_error_, "error"});
    out.push_back({"Saving replaces this file (you will be asked to confirm).", "warning"});
  }
  out.push_back({PanelHeader(), "muted"});
  out.push_back({"", "text"});
  for (size_t i = 0; i < kAllSlots.size(); ++i) {
    const std::string& selection = Edited(kAllSlots[i]);
    std::string shown = selection;
    if (selection == kCurrentSelection) {
      shown += registry_.current ? " (" + registry_.current->QualifiedId() + ")" : " (none now)";
    }
    if (const Panel* panel = EditedPanel()) {
      const std::optional<std::string>& level = panel->thinking.of(RoleOf(kAllSlots[i]));
      shown += "  · thinking " + level.value_or(std::string(kInheritThinking));
    }
    out.push_back({(i == focus_ ? "> " : "  ") + PadLabel(SlotLabel(kAllSlots[i])) + shown,
                   i == focus_ ? "accent" : "text"});
    if (std::string problem = SlotProblem(selection); !problem.empty()) {
      out.push_back({"    " + problem, "warning"});
    }
  }
  if (const Panel* panel = EditedPanel()) {
    out.push_back({"", "text"});
    out.push_back({panel->policy ? "Policy: the panel's own (edit it in the file)"
                                 : "Policy: the file's top-level policy",
                   "muted"});
  } else {
    RenderPolicy(out);
  }
  const std::vector<std::string> notes = TopologyNotes();
  if (!notes.empty()) {
    out.push_back({"", "text"});
    out.push_back({"Notes:", "muted"});
    for (const std::string& note : notes) out.push_back({"  " + note, "warning"});
  }
  out.push_back({"", "text"});
  out.push_back(
      {panel_ ? "↑/↓ move · Enter choose a model · t cycle the role's thinking level · r reset "
                "the slot to $current · p panels · s save and close · Esc/q close without saving"
              : "↑/↓ move · Enter choose a model or change the policy row · r reset the row to its "
                "default · p panels · s save and close · Esc/q close without saving",
       "dim"});
}

void Selector::RenderPolicy(std::vector<SelectorLine>& out) const {
  out.push_back({"", "text"});
  out.push_back({"Policy:", "muted"});
  const std::pair<std::string_view, std::string> rows[kSelectorPolicyRows] = {
      {"Quorum", QuorumText(config_.policy.quorum)},
      {"Grace", GraceText(config_.policy)},
      {"Cost cap", CostCapText(config_.policy)},
      {"Stall", StallText(config_.policy)},
      {"Keep warm", KeepWarmText(config_.policy)}};
  for (size_t i = 0; i < kSelectorPolicyRows; ++i) {
    const bool focused = focus_ == kAllSlots.size() + i;
    out.push_back({(focused ? "> " : "  ") + PadLabel(rows[i].first) + rows[i].second,
                   focused ? "accent" : "text"});
  }
}

void Selector::RenderInput(std::vector<SelectorLine>& out) const {
  if (FocusedRow() == Row::kKeepWarm) {
    out.push_back({"Fusion models: how long candidates stay warm after a run", "accent"});
    out.push_back({"Keep warm (seconds): " + input_ + "_", "text"});
    out.push_back({"After a run, up to " + std::to_string(kWarmPoolSize) +
                       " candidate Pi processes of this project stay ready this long, so the "
                       "next run's candidates skip their start-up. Each holds about " +
                       std::to_string(kWarmProcessMegabytes) +
                       " MB while it waits. Empty or 0: off, every candidate starts cold.",
                   "muted"});
    out.push_back({"", "text"});
    out.push_back({"type a number · Backspace edit · Enter apply · Esc back unchanged", "dim"});
    return;
  }
  if (FocusedRow() == Row::kStall) {
    out.push_back({"Fusion models: the stall bound in seconds", "accent"});
    out.push_back({"Stall (seconds): " + input_ + "_", "text"});
    out.push_back(
        {"How long a child may show no progress (no output, no tool call, no event of "
         "its model's stream) before it is stopped as stalled (child_stalled). Empty: "
         "the default rule, " +
             PolicyNumberText(kDefaultStallSeconds) +
             " s. The 50-minute wall limit stays the outer bound.",
         "muted"});
    out.push_back({"", "text"});
    out.push_back({"type a number · Backspace edit · Enter apply · Esc back unchanged", "dim"});
    return;
  }
  const bool grace = FocusedRow() == Row::kGrace;
  out.push_back({grace ? "Fusion models: the grace window in seconds"
                       : "Fusion models: the cost cap per run in US dollars",
                 "accent"});
  out.push_back({(grace ? "Grace (seconds): " : "Cost cap (US dollars): ") + input_ + "_", "text"});
  out.push_back({grace ? "How long a quorum-2 run waits for the third candidate once two answers "
                         "are verified. Empty: the default rule, the larger of " +
                             PolicyNumberText(kDefaultGraceFloorSeconds) +
                             " s and half the elapsed time of the second verified answer."
                       : "A run never spends more: each model request is admitted against the "
                         "cap before it is sent (its output limit lowered to what is left; "
                         "below 1,024 output tokens it is not sent and the run stops). Empty: "
                         "no cap.",
                 "muted"});
  out.push_back({"", "text"});
  out.push_back({"type a number · Backspace edit · Enter apply · Esc back unchanged", "dim"});
}

void Selector::RenderList(std::vector<SelectorLine>& out) const {
  const std::vector<Entry> entries = FilteredEntries();
  out.push_back({"Fusion models: choose the model for " + std::string(SlotLabel(kAllSlots[focus_])),
                 "accent"});
  out.push_back({"Filter: " + filter_ + "_", "text"});
  if (entries.empty()) out.push_back({"  (no model matches the filter)", "muted"});
  const size_t cursor = entries.empty() ? 0 : std::min(cursor_, entries.size() - 1);
  const size_t first = cursor < kSelectorListRows ? 0 : cursor - kSelectorListRows + 1;
  const size_t last = std::min(entries.size(), first + kSelectorListRows);
  if (first > 0) out.push_back({"  ↑ " + std::to_string(first) + " more", "dim"});
  for (size_t i = first; i < last; ++i) {
    const Entry& e = entries[i];
    std::string text = (i == cursor ? "> " : "  ") + e.selection;
    if (!e.detail.empty()) text += "  " + e.detail;
    if (e.refusal) text += e.unavailable ? "  [unavailable]" : "  [refused]";
    out.push_back({text, i == cursor ? "accent" : (e.refusal ? "dim" : "text")});
  }
  if (last < entries.size()) {
    out.push_back({"  ↓ " + std::to_string(entries.size() - last) + " more", "dim"});
  }
  if (!entries.empty() && entries[cursor].refusal) {
    out.push_back({"", "text"});
    out.push_back(
        {entries[cursor].selection + " " + *entries[cursor].refusal + " It cannot be picked.",
         "warning"});
  }
  out.push_back({"", "text"});
  out.push_back(
      {"type to filter · Backspace edit filter · ↑/↓ move · Enter pick · Esc back", "dim"});
}

void Selector::RenderConfirm(std::vector<SelectorLine>& out) const {
  out.push_back({"Fusion models: replace the invalid file " + store_.path() + "?", "warning"});
  out.push_back({load_error_, "error"});
  out.push_back(
      {"Saving writes a fresh file with the five slots and the policy you chose; the old "
       "contents are lost.",
       "text"});
  out.push_back({"", "text"});
  out.push_back({"y replace the file · n or Esc go back", "dim"});
}

}  // namespace pi_fusion::config
