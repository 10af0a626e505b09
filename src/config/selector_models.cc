// The selector's model list (what each slot can pick, and the filter over it) and what it says
// about the chosen models: a slot's problem now, and the topology notes.
#include "config/selector.h"

#include <algorithm>
#include <optional>

#include "config/shared_model.h"

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

std::string JoinNumbers(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

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
  const std::string first = Effective(Edited(Slot::kCandidate1));
  const bool one_model = std::all_of(kAllSlots.begin(), kAllSlots.end(),
                                     [&](Slot slot) { return Effective(Edited(slot)) == first; });
  if (one_model) notes.push_back("Five slots, one model: no diversity (" + first + ").");
  if (std::optional<SharedModel> shared = SharedCandidateModel(
          {Effective(Edited(Slot::kCandidate1)), Effective(Edited(Slot::kCandidate2)),
           Effective(Edited(Slot::kCandidate3))})) {
    notes.push_back(SharedModelText(*shared));
  }
  for (Slot judge : {Slot::kEvaluator, Slot::kMerger}) {
    const std::string model = Effective(Edited(judge));
    std::vector<std::string> same;
    for (Slot candidate : {Slot::kCandidate1, Slot::kCandidate2, Slot::kCandidate3}) {
      if (Effective(Edited(candidate)) == model) {
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

}  // namespace pi_fusion::config
