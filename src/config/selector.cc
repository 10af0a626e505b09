// The selector's keys and edits: each view's keys, the working copy's changes and the save.
#include "config/selector.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

#include "core/utf8.h"

namespace pi_fusion::config {
namespace {

bool HasControlCharacter(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

// Removes the last UTF-8 code point.
void PopCodePoint(std::string& text) {
  if (!text.empty()) text.resize(Utf8FloorBoundary(text, text.size() - 1));
}

// nothing else: no sign, exponent, spaces or "inf", so what the person reads is what is stored.
std::optional<double> ParseTypedNumber(std::string_view text, bool money) {
  if (money && !text.empty() && text.front() == '$') text.remove_prefix(1);
  const auto points = std::count(text.begin(), text.end(), '.');
  const bool digits_and_points = std::all_of(
      text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
  if (!digits_and_points || points > 1 || static_cast<size_t>(points) == text.size()) {
    return std::nullopt;
  }
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

Selector::Selector(const ConfigStore& store, RegistrySnapshot registry)
    : store_(store), registry_(std::move(registry)) {
  Result<LoadedConfig> loaded = store_.Load();
  if (loaded.ok()) {
    loaded_config_ = loaded->config;
    revision_ = loaded->revision;
  } else {
    // Keep the invalid file's revision: replacing it is allowed only after a confirmation, and
    // only if nobody changed it in the meantime.
    load_error_ = loaded.status().message();
    Result<Revision> current = store_.CurrentRevision();
    if (current.ok()) {
      revision_ = *current;
    } else {
      revision_error_ = current.status().message();
    }
  }
  config_ = loaded_config_;
}

SelectorOutcome Selector::HandleKey(SelectorKey key, std::string_view text) {
  if (outcome_ != SelectorOutcome::kOpen) return outcome_;
  if (key == SelectorKey::kText && (text.empty() || HasControlCharacter(text))) return outcome_;
  message_.clear();
  switch (view_) {
    case View::kSlots:
      return SlotsKey(key, text);
    case View::kList:
      return ListKey(key, text);
    case View::kInput:
      return InputKey(key, text);
    case View::kPanels:
      return PanelsKey(key, text);
    case View::kName:
      return NameKey(key, text);
    case View::kConfirmReplace:
      break;
  }
  return ConfirmKey(key, text);
}

Selector::Row Selector::FocusedRow() const {
  if (focus_ < kAllSlots.size()) return Row::kSlot;
  if (focus_ == kAllSlots.size()) return Row::kQuorum;
  if (focus_ == kAllSlots.size() + 1) return Row::kGrace;
  if (focus_ == kAllSlots.size() + 2) return Row::kCostCap;
  return focus_ == kAllSlots.size() + 3 ? Row::kStall : Row::kKeepWarm;
}

SelectorOutcome Selector::SlotsKey(SelectorKey key, std::string_view text) {
  const size_t count = RowCount();
  switch (key) {
    case SelectorKey::kUp:
      focus_ = (focus_ + count - 1) % count;
      break;
    case SelectorKey::kDown:
      focus_ = (focus_ + 1) % count;
      break;
    case SelectorKey::kEnter:
      switch (FocusedRow()) {
        case Row::kSlot:
          OpenList();
          break;
        case Row::kQuorum:
          config_.policy.quorum =
              config_.policy.quorum == kDefaultQuorum ? kReducedQuorum : kDefaultQuorum;
          break;
        case Row::kGrace:
        case Row::kCostCap:
        case Row::kStall:
        case Row::kKeepWarm:
          OpenInput();
          break;
      }
      break;
    case SelectorKey::kEscape:
      outcome_ = SelectorOutcome::kClosed;
      break;
    case SelectorKey::kBackspace:
      break;
    case SelectorKey::kText:
      if (text == "q") {
        outcome_ = SelectorOutcome::kClosed;
      } else if (text == "r") {
        ResetFocused();
      } else if (text == "s") {
        RequestSave();
      } else if (text == "p") {
        OpenPanels();
      } else if (text == "t" && panel_ && FocusedRow() == Row::kSlot) {
        CycleThinking();
      }
      break;
  }
  return outcome_;
}

SelectorOutcome Selector::ListKey(SelectorKey key, std::string_view text) {
  const std::vector<Entry> entries = FilteredEntries();
  switch (key) {
    case SelectorKey::kUp:
      if (!entries.empty()) cursor_ = (cursor_ + entries.size() - 1) % entries.size();
      break;
    case SelectorKey::kDown:
      if (!entries.empty()) cursor_ = (cursor_ + 1) % entries.size();
      break;
    case SelectorKey::kEscape:
      view_ = View::kSlots;
      break;
    case SelectorKey::kBackspace:
      PopCodePoint(filter_);
      cursor_ = 0;
      break;
    case SelectorKey::kText:
      filter_ += text;
      cursor_ = 0;
      break;
    case SelectorKey::kEnter: {
      if (entries.empty()) break;
      const Entry& entry = entries[std::min(cursor_, entries.size() - 1)];
      if (entry.refusal) {
        SetMessage("Cannot pick " + entry.selection + ": it " + *entry.refusal, "error");
        break;
      }
      Edited(kAllSlots[focus_]) = entry.selection;
      view_ = View::kSlots;
      break;
    }
  }
  return outcome_;
}

SelectorOutcome Selector::InputKey(SelectorKey key, std::string_view text) {
  switch (key) {
    case SelectorKey::kUp:
    case SelectorKey::kDown:
      break;
    case SelectorKey::kEscape:
      view_ = View::kSlots;
      break;
    case SelectorKey::kBackspace:
      PopCodePoint(input_);
      break;
    case SelectorKey::kText:
      if (input_.size() + text.size() <= kSelectorInputMaxBytes) input_ += text;
      break;
    case SelectorKey::kEnter:
      ApplyInput();
      break;
  }
  return outcome_;
}

SelectorOutcome Selector::ConfirmKey(SelectorKey key, std::string_view text) {
  if (key == SelectorKey::kText && text == "y") {
    view_ = View::kSlots;
    Save();
  } else if (key == SelectorKey::kEscape || (key == SelectorKey::kText && text == "n")) {
    view_ = View::kSlots;
  }
  return outcome_;
}

void Selector::ResetFocused() {
  switch (FocusedRow()) {
    case Row::kSlot:
      Edited(kAllSlots[focus_]) = std::string(kCurrentSelection);
      SetMessage(std::string(SlotLabel(kAllSlots[focus_])) + " reset to $current.", "muted");
      return;
    case Row::kQuorum:
      config_.policy.quorum = kDefaultQuorum;
      SetMessage("Quorum reset to 3.", "muted");
      return;
    case Row::kGrace:
      config_.policy.grace_seconds.reset();
      SetMessage("Grace reset to the default rule.", "muted");
      return;
    case Row::kStall:
      config_.policy.stall_seconds.reset();
      SetMessage("Stall reset to the default rule.", "muted");
      return;
    case Row::kKeepWarm:
      config_.policy.keep_warm_seconds = 0;
      SetMessage("Keep warm turned off.", "muted");
      return;
    case Row::kCostCap:
      break;
  }
  config_.policy.max_cost_usd.reset();
  SetMessage("Cost cap removed.", "muted");
}

void Selector::OpenInput() {
  view_ = View::kInput;
  if (FocusedRow() == Row::kKeepWarm) {
    const double keep = config_.policy.keep_warm_seconds;
    input_ = keep > 0 ? PolicyNumberText(keep) : "";
    return;
  }
  const std::optional<double>& value = FocusedRow() == Row::kGrace   ? config_.policy.grace_seconds
                                       : FocusedRow() == Row::kStall ? config_.policy.stall_seconds
                                                                     : config_.policy.max_cost_usd;
  input_ = value ? PolicyNumberText(*value) : "";
}

// Parses the input into a copy of the policy and keeps it only when the policy rules accept it,
// so the selector and the file refuse exactly the same values.
void Selector::ApplyInput() {
  if (FocusedRow() == Row::kKeepWarm) {
    ApplyKeepWarm();
    return;
  }
  const bool grace = FocusedRow() == Row::kGrace;
  const bool stall = FocusedRow() == Row::kStall;
  Policy policy = config_.policy;
  std::optional<double>& field = grace   ? policy.grace_seconds
                                 : stall ? policy.stall_seconds
                                         : policy.max_cost_usd;
  const std::optional<double> typed = ParseTypedNumber(input_, /*money=*/!grace && !stall);
  Status valid =
      input_.empty() || typed ? Status() : Status::Error(std::string(kConfigInvalid), "");
  if (valid.ok()) {
    field = input_.empty() ? std::nullopt : typed;
    valid = ValidatePolicy(policy);
  }
  if (!valid.ok() && stall) {
    SetMessage("Not applied: Stall must be a number of seconds above 0 and at most " +
                   PolicyNumberText(kMaxStallSeconds) +
                   " such as 600, or empty for the default rule (found \"" + input_ + "\").",
               "error");
    return;
  }
  if (!valid.ok()) {
    SetMessage(grace ? "Not applied: Grace must be a number of seconds >= 0 such as 20 or 2.5, "
                       "or empty for the default rule (found \"" +
                           input_ + "\")."
                     : "Not applied: Cost cap must be an amount in US dollars above 0 such as "
                       "0.50, or empty for no cap (found \"" +
                           input_ + "\").",
               "error");
    return;
  }
  config_.policy = policy;
  view_ = View::kSlots;
}

// Keep warm is a plain number (0 = off): empty input turns it off.
void Selector::ApplyKeepWarm() {
  Policy policy = config_.policy;
  const std::optional<double> typed = ParseTypedNumber(input_, /*money=*/false);
  if (input_.empty() || typed) policy.keep_warm_seconds = input_.empty() ? 0 : *typed;
  if ((!input_.empty() && !typed) || !ValidatePolicy(policy).ok()) {
    SetMessage("Not applied: Keep warm must be a number of seconds from 0 to " +
                   PolicyNumberText(kMaxKeepWarmSeconds) +
                   " such as 300, or empty for off (found \"" + input_ + "\").",
               "error");
    return;
  }
  config_.policy = policy;
  view_ = View::kSlots;
}

void Selector::OpenList() {
  view_ = View::kList;
  filter_.clear();
  cursor_ = 0;
  const std::vector<Entry> entries = FilteredEntries();
  const std::string& chosen = Edited(kAllSlots[focus_]);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].selection == chosen) {
      cursor_ = i;
      break;
    }
  }
}

void Selector::RequestSave() {
  if (load_error_.empty()) {
    Save();
  } else {
    view_ = View::kConfirmReplace;
  }
}

void Selector::Save() {
  if (!revision_) {
    SetMessage("Not saved: " + revision_error_, "error");
    return;
  }
  Result<Revision> saved = store_.Save(config_, *revision_);
  if (!saved.ok()) {
    const bool conflict = saved.status().code() == kConfigConflict;
    SetMessage(
        (conflict ? "Conflict, nothing was written: " : "Not saved: ") + saved.status().message(),
        "error");
    return;
  }
  revision_ = *saved;
  load_error_.clear();
  outcome_ = SelectorOutcome::kSaved;
}

void Selector::SetMessage(std::string text, std::string style) {
  message_ = std::move(text);
  message_style_ = std::move(style);
}

}  // namespace pi_fusion::config
