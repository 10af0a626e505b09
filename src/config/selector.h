// The /fusion-models selector as a plain state machine: keys in, styled lines out.
//
// The binding feeds it keys the TUI module translated from the terminal and draws the lines it
// returns; every decision is made here, so the whole interaction is unit-tested without a
// terminal. Views:
//   slots    the five slots with their choice, then the policy rows (Quorum, Grace, Cost cap,
//            Stall), the absolute config path, topology notes and the last message. Up/Down move
//            over all nine rows. Enter on a slot opens the list; on Quorum it switches 3 <-> 2; on
//            Grace, Cost cap or Stall it opens the input. `r` resets the focused row to its
//            default ($current, quorum 3, the default grace rule, no cap, the default stall
//            rule), `s` saves and closes, Esc or
//            `q` closes without writing.
//            While a panel is edited, the five rows are that panel's slots.
//   list     the models for the focused slot: $current, the available models sorted by
//            provider/model, then configured-but-unavailable ones. Typing filters (case-insensitive
//            substring of provider/model and name), Backspace edits the filter, Up/Down move,
//            Enter picks, Esc goes back. A model the route policy refuses, or one not available,
//            is shown with the reason and cannot be picked.
//   input    the typed value of Grace or Stall (seconds) or Cost cap (US dollars, an optional
//            leading `$`). Typing edits, Backspace deletes, Enter applies, Esc goes back unchanged.
//            An empty value means the default (the default grace or stall rule, no cap); a value
//            the policy rules
//            refuse stays in the input with the reason and changes nothing.
//   confirm  shown by `s` when the file on disk is invalid: `y` replaces it, `n` or Esc goes back.
//   panels   opened by `p`: the top-level cast, then the named panels (v3). Up/Down move, Enter
//            edits the highlighted cast in the slots view (a panel shows its five slots only, and
//            `t` on a slot cycles its role's thinking level), `n` creates a panel from the cast
//            being edited, `r` renames, `x` deletes, `d` sets or clears the default panel, `s`
//            saves, Esc goes back. Deleting the default panel clears default_panel.
//   name     the typed name of a new or renamed panel; refused with the naming rule, or when the
//            name is taken, and nothing changes.
// Saving goes through ConfigStore: lock, revision check against the revision seen at load, atomic
// write. A conflict writes nothing and keeps the selector open with the store's message.
//
// Not thread-safe: one selector belongs to one interaction on one thread.
//
// selector.cc holds the keys and edits, selector_models.cc the model list and the notes about the
// chosen models, selector_render.cc the lines of each view.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_store.h"
#include "config/panels.h"
#include "config/route_admission.h"

namespace pi_fusion::config {

enum class SelectorKey { kUp, kDown, kEnter, kEscape, kBackspace, kText };

// One rendered line. `style` is a theme colour token of Pi's TUI ("accent", "muted", "dim",
// "warning", "error", "success", "text"); the TUI module applies it and fits the line to the width.
struct SelectorLine {
  std::string text;
  std::string style;
  bool operator==(const SelectorLine&) const = default;
};

enum class SelectorOutcome { kOpen, kSaved, kClosed };

// The list shows at most this many model rows; the window follows the highlighted row.
inline constexpr size_t kSelectorListRows = 12;
// The slots view's rows: the five slots, then Quorum, Grace, Cost cap and Stall.
inline constexpr size_t kSelectorPolicyRows = 5;
inline constexpr size_t kSelectorRows = kAllSlots.size() + kSelectorPolicyRows;
// The input view keeps at most this many bytes: a number, not a paste.
inline constexpr size_t kSelectorInputMaxBytes = 32;

class Selector {
 public:
  // Loads the file through `store` (which must outlive the selector). `registry.models` are the
  // models Pi can use now (getAvailable()), `registry.current` the session's model.
  Selector(const ConfigStore& store, RegistrySnapshot registry);

  // Applies one key. `text` is the typed text for kText (ignored otherwise); text with control
  // characters is ignored, so stray escape sequences never reach the filter.
  SelectorOutcome HandleKey(SelectorKey key, std::string_view text = {});

  std::vector<SelectorLine> Render() const;

  SelectorOutcome outcome() const { return outcome_; }
  const ModelsConfig& config() const { return config_; }
  // True when the working copy differs from the file as it was loaded: closing now loses edits.
  bool HasUnsavedChanges() const { return config_ != loaded_config_; }
  const std::string& path() const { return store_.path(); }

 private:
  enum class View { kSlots, kList, kInput, kConfirmReplace, kPanels, kName };
  enum class Row { kSlot, kQuorum, kGrace, kCostCap, kStall, kKeepWarm };
  struct Entry {
    std::string selection;               // "$current" or "provider/model"
    std::string detail;                  // model name, or what $current means now
    std::optional<std::string> refusal;  // why it cannot be picked
    bool unavailable = false;            // configured, but not among the available models
  };

  SelectorOutcome SlotsKey(SelectorKey key, std::string_view text);
  SelectorOutcome ListKey(SelectorKey key, std::string_view text);
  SelectorOutcome InputKey(SelectorKey key, std::string_view text);
  void ApplyKeepWarm();
  SelectorOutcome ConfirmKey(SelectorKey key, std::string_view text);
  SelectorOutcome PanelsKey(SelectorKey key, std::string_view text);
  SelectorOutcome NameKey(SelectorKey key, std::string_view text);
  void RequestSave();
  // The cast being edited: the panel's slot while one is edited, else the top-level one.
  const std::string& Edited(Slot slot) const;
  std::string& Edited(Slot slot);
  Panel* EditedPanel();
  const Panel* EditedPanel() const;
  size_t RowCount() const;
  // The panel under the panels view's cursor (nullptr on the top-level row).
  const std::string* CursorPanel() const;
  void OpenPanels();
  void OpenName(bool rename);
  void ApplyName();
  void DeletePanel();
  void ToggleDefault();
  void CycleThinking();
  Row FocusedRow() const;
  void ResetFocused();
  void OpenList();
  void OpenInput();
  void ApplyInput();
  void Save();
  void SetMessage(std::string text, std::string style);

  std::vector<Entry> AllEntries() const;
  std::vector<Entry> FilteredEntries() const;
  // Why `selection` could not run now ("" when it could); shown beside the slot.
  std::string SlotProblem(const std::string& selection) const;
  std::string Effective(const std::string& selection) const;  // $current -> the current model
  std::vector<std::string> TopologyNotes() const;

  void RenderSlots(std::vector<SelectorLine>& out) const;
  void RenderPolicy(std::vector<SelectorLine>& out) const;
  void RenderList(std::vector<SelectorLine>& out) const;
  void RenderInput(std::vector<SelectorLine>& out) const;
  void RenderConfirm(std::vector<SelectorLine>& out) const;
  void RenderPanels(std::vector<SelectorLine>& out) const;
  void RenderName(std::vector<SelectorLine>& out) const;
  std::string PanelHeader() const;

  const ConfigStore& store_;
  RegistrySnapshot registry_;
  ModelsConfig loaded_config_;        // as found on disk (defaults when missing or invalid)
  ModelsConfig config_;               // the working copy
  std::optional<Revision> revision_;  // what a save must find on disk; none: cannot save
  std::string load_error_;            // the invalid file's message, shown until replaced
  std::string revision_error_;        // why the file's revision could not be read

  View view_ = View::kSlots;
  size_t focus_ = 0;  // a row: index into kAllSlots, then the policy rows
  std::string filter_;
  size_t cursor_ = 0;                 // index into FilteredEntries()
  std::string input_;                 // the input and name views' text
  std::optional<std::string> panel_;  // the panel being edited; nullopt: the top-level cast
  size_t panel_cursor_ = 0;           // 0 the top-level cast, i the (i-1)th panel by name
  bool renaming_ = false;             // the name view renames the cursor's panel (else creates)
  std::string message_;
  std::string message_style_;
  SelectorOutcome outcome_ = SelectorOutcome::kOpen;
};

}  // namespace pi_fusion::config
