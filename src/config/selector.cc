#include "config/selector.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <utility>

#include "config/shared_model.h"
#include "core/utf8.h"

namespace pi_fusion::config {
namespace {

constexpr std::string_view kUnavailableReason =
    "is not available in Pi's model registry (unknown model, or its provider has no "
    "credentials).";

const ModelInfo* FindModel(const std::vector<ModelInfo>& models, const std::string& qualified) {
  for (const ModelInfo& m : models) {
    if (m.QualifiedId() == qualified) return &m;
  }
  return nullptr;
}

std::string AsciiLower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  });
  return out;
}

bool HasControlCharacter(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

// Removes the last UTF-8 code point.
void PopCodePoint(std::string& text) {
  if (!text.empty()) text.resize(Utf8FloorBoundary(text, text.size() - 1));
}

std::string PadLabel(std::string_view label) {
  std::string out(label);
  out.resize(std::max<size_t>(out.size(), 13), ' ');
  return out;
}

std::string JoinNumbers(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// A typed policy number: digits with at most one decimal point (and, for money, one leading `$`),
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
    case View::kConfirmReplace:
      break;
  }
  return ConfirmKey(key, text);
}

Selector::Row Selector::FocusedRow() const {
  if (focus_ < kAllSlots.size()) return Row::kSlot;
  if (focus_ == kAllSlots.size()) return Row::kQuorum;
  if (focus_ == kAllSlots.size() + 1) return Row::kGrace;
  return focus_ == kAllSlots.size() + 2 ? Row::kCostCap : Row::kStall;
}

SelectorOutcome Selector::SlotsKey(SelectorKey key, std::string_view text) {
  const size_t count = kSelectorRows;
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
        if (load_error_.empty()) {
          Save();
        } else {
          view_ = View::kConfirmReplace;
        }
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
      config_.selection(kAllSlots[focus_]) = entry.selection;
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
      config_.selection(kAllSlots[focus_]) = std::string(kCurrentSelection);
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
    case Row::kCostCap:
      break;
  }
  config_.policy.max_cost_usd.reset();
  SetMessage("Cost cap removed.", "muted");
}

void Selector::OpenInput() {
  view_ = View::kInput;
  const std::optional<double>& value = FocusedRow() == Row::kGrace   ? config_.policy.grace_seconds
                                       : FocusedRow() == Row::kStall ? config_.policy.stall_seconds
                                                                     : config_.policy.max_cost_usd;
  input_ = value ? PolicyNumberText(*value) : "";
}

// Parses the input into a copy of the policy and keeps it only when the policy rules accept it,
// so the selector and the file refuse exactly the same values.
void Selector::ApplyInput() {
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

void Selector::OpenList() {
  view_ = View::kList;
  filter_.clear();
  cursor_ = 0;
  const std::vector<Entry> entries = FilteredEntries();
  const std::string& chosen = config_.selection(kAllSlots[focus_]);
  for (size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].selection == chosen) {
      cursor_ = i;
      break;
    }
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

std::vector<Selector::Entry> Selector::AllEntries() const {
  std::vector<Entry> entries;
  entries.push_back({std::string(kCurrentSelection),
                     registry_.current
                         ? "the session's model, now " + registry_.current->QualifiedId()
                         : "the session's model (none is selected now)",
                     std::nullopt, false});
  std::vector<const ModelInfo*> available;
  for (const ModelInfo& m : registry_.models) available.push_back(&m);
  std::stable_sort(available.begin(), available.end(), [](const ModelInfo* a, const ModelInfo* b) {
    return a->QualifiedId() < b->QualifiedId();
  });
  for (const ModelInfo* m : available) {
    entries.push_back({m->QualifiedId(), m->name != m->id ? m->name : "", RouteRefusal(*m), false});
  }
  for (Slot slot : kAllSlots) {
    const std::string& selection = loaded_config_.selection(slot);
    if (selection == kCurrentSelection || FindModel(registry_.models, selection)) continue;
    const bool listed = std::any_of(entries.begin(), entries.end(),
                                    [&](const Entry& e) { return e.selection == selection; });
    if (!listed) entries.push_back({selection, "", std::string(kUnavailableReason), true});
  }
  return entries;
}

std::vector<Selector::Entry> Selector::FilteredEntries() const {
  std::vector<Entry> entries = AllEntries();
  if (filter_.empty()) return entries;
  const std::string needle = AsciiLower(filter_);
  std::erase_if(entries, [&](const Entry& e) {
    return AsciiLower(e.selection + " " + e.detail).find(needle) == std::string::npos;
  });
  return entries;
}

std::string Selector::SlotProblem(const std::string& selection) const {
  if (selection == kCurrentSelection) {
    if (!registry_.current) return "the session has no current model now";
    if (std::optional<std::string> refusal = RouteRefusal(*registry_.current)) {
      return "refused now: " + registry_.current->QualifiedId() + " " + *refusal;
    }
    return "";
  }
  const ModelInfo* model = FindModel(registry_.models, selection);
  if (!model) return "unavailable: " + selection + " " + std::string(kUnavailableReason);
  if (std::optional<std::string> refusal = RouteRefusal(*model)) {
    return "refused: " + selection + " " + *refusal;
  }
  return "";
}

std::string Selector::Effective(const std::string& selection) const {
  if (selection == kCurrentSelection && registry_.current) return registry_.current->QualifiedId();
  return selection;
}

std::vector<std::string> Selector::TopologyNotes() const {
  std::vector<std::string> notes;
  const std::string first = Effective(config_.selection(Slot::kCandidate1));
  const bool one_model = std::all_of(kAllSlots.begin(), kAllSlots.end(), [&](Slot slot) {
    return Effective(config_.selection(slot)) == first;
  });
  if (one_model) notes.push_back("Five slots, one model: no diversity (" + first + ").");
  if (std::optional<SharedModel> shared =
          SharedCandidateModel({Effective(config_.selection(Slot::kCandidate1)),
                                Effective(config_.selection(Slot::kCandidate2)),
                                Effective(config_.selection(Slot::kCandidate3))})) {
    notes.push_back(SharedModelText(*shared));
  }
  for (Slot judge : {Slot::kEvaluator, Slot::kMerger}) {
    const std::string model = Effective(config_.selection(judge));
    std::vector<std::string> same;
    for (Slot candidate : {Slot::kCandidate1, Slot::kCandidate2, Slot::kCandidate3}) {
      if (Effective(config_.selection(candidate)) == model) {
        same.push_back(std::string(SlotLabel(candidate)).substr(std::string("Candidate ").size()));
      }
    }
    if (same.empty()) continue;
    notes.push_back(std::string(SlotLabel(judge)) + " uses the same model as Candidate" +
                    (same.size() > 1 ? "s " : " ") + JoinNumbers(same) + " (" + model +
                    "): self-preference risk.");
  }
  return notes;
}

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
  out.push_back({"", "text"});
  for (size_t i = 0; i < kAllSlots.size(); ++i) {
    const std::string& selection = config_.selection(kAllSlots[i]);
    std::string shown = selection;
    if (selection == kCurrentSelection) {
      shown += registry_.current ? " (" + registry_.current->QualifiedId() + ")" : " (none now)";
    }
    out.push_back({(i == focus_ ? "> " : "  ") + PadLabel(SlotLabel(kAllSlots[i])) + shown,
                   i == focus_ ? "accent" : "text"});
    if (std::string problem = SlotProblem(selection); !problem.empty()) {
      out.push_back({"    " + problem, "warning"});
    }
  }
  RenderPolicy(out);
  const std::vector<std::string> notes = TopologyNotes();
  if (!notes.empty()) {
    out.push_back({"", "text"});
    out.push_back({"Notes:", "muted"});
    for (const std::string& note : notes) out.push_back({"  " + note, "warning"});
  }
  out.push_back({"", "text"});
  out.push_back(
      {"↑/↓ move · Enter choose a model or change the policy row · r reset the row to its "
       "default · s save and close · Esc/q close without saving",
       "dim"});
}

void Selector::RenderPolicy(std::vector<SelectorLine>& out) const {
  out.push_back({"", "text"});
  out.push_back({"Policy:", "muted"});
  const std::pair<std::string_view, std::string> rows[kSelectorPolicyRows] = {
      {"Quorum", QuorumText(config_.policy.quorum)},
      {"Grace", GraceText(config_.policy)},
      {"Cost cap", CostCapText(config_.policy)},
      {"Stall", StallText(config_.policy)}};
  for (size_t i = 0; i < kSelectorPolicyRows; ++i) {
    const bool focused = focus_ == kAllSlots.size() + i;
    out.push_back({(focused ? "> " : "  ") + PadLabel(rows[i].first) + rows[i].second,
                   focused ? "accent" : "text"});
  }
}

void Selector::RenderInput(std::vector<SelectorLine>& out) const {
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
