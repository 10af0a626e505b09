#include "config/shared_model.h"

#include <cctype>

namespace pi_fusion::config {
namespace {

struct ModelName {
  std::string provider;  // before the first '/'
  std::string base;      // the normalized name after the last '/'
  std::string stem;      // base's leading letters
};

bool IsDate(std::string_view part) {
  std::string digits;
  for (char c : part) {
    if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
  }
  return digits.size() == 8 && (part.size() == 8 || part.size() == 10);
}

// Drops a trailing "-latest", "-20250929" or "-2025-09-29" from a normalized name.
std::string WithoutDateOrLatest(std::string base) {
  for (const std::string_view suffix : {std::string_view("-latest")}) {
    if (base.size() > suffix.size() && base.ends_with(suffix))
      base.resize(base.size() - suffix.size());
  }
  for (const size_t width : {size_t{8}, size_t{10}}) {
    if (base.size() > width + 1 && base[base.size() - width - 1] == '-' &&
        IsDate(std::string_view(base).substr(base.size() - width))) {
      base.resize(base.size() - width - 1);
      break;
    }
  }
  return base;
}

std::optional<ModelName> Parse(std::string_view id) {
  const size_t first = id.find('/');
  if (first == std::string_view::npos || first == 0 || first + 1 >= id.size()) return std::nullopt;
  ModelName name{std::string(id.substr(0, first)), {}, {}};
  std::string_view model = id.substr(id.rfind('/') + 1);
  model = model.substr(0, model.find_first_of(":@"));
  for (char c : model) {
    name.base += (c == '.' || c == '_')
                     ? '-'
                     : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  name.base = WithoutDateOrLatest(std::move(name.base));
  for (char c : name.base) {
    if (!std::isalpha(static_cast<unsigned char>(c))) break;
    name.stem += c;
  }
  if (name.base.empty()) return std::nullopt;
  return name;
}

constexpr size_t kMinStem = 3;

// The first group of two or more slots for which `related(first, other)` holds, or none.
template <typename Related>
std::optional<SharedModel> FirstGroup(const std::array<std::string, 3>& models, Related related) {
  for (size_t first = 0; first < models.size(); ++first) {
    if (models[first].empty()) continue;
    SharedModel shared{models[first], {static_cast<int>(first) + 1}};
    for (size_t other = first + 1; other < models.size(); ++other) {
      if (!models[other].empty() && related(models[first], models[other])) {
        shared.slots.push_back(static_cast<int>(other) + 1);
      }
    }
    if (shared.slots.size() > 1) return shared;
  }
  return std::nullopt;
}

}  // namespace

bool ModelsOfOneFamily(std::string_view a, std::string_view b) {
  const std::optional<ModelName> x = Parse(a);
  const std::optional<ModelName> y = Parse(b);
  if (!x || !y) return false;
  if (x->base == y->base) return true;
  return x->provider == y->provider && x->stem.size() >= kMinStem && x->stem == y->stem;
}

std::optional<SharedModel> SharedCandidateModel(const std::array<std::string, 3>& models) {
  if (std::optional<SharedModel> exact =
          FirstGroup(models, [](const std::string& a, const std::string& b) { return a == b; })) {
    return exact;
  }
  std::optional<SharedModel> family = FirstGroup(models, ModelsOfOneFamily);
  if (!family) return std::nullopt;
  family->family = true;
  family->model.clear();
  for (const int slot : family->slots) {
    family->model += (family->model.empty() ? "" : ", ") + models[static_cast<size_t>(slot) - 1];
  }
  return family;
}

std::string SharedModelText(const SharedModel& shared) {
  if (shared.family) {
    const std::string who = shared.slots.size() == 3
                                ? std::string("All three candidates")
                                : "Candidates " + std::to_string(shared.slots[0]) + " and " +
                                      std::to_string(shared.slots[1]);
    return who + " run on one model family (" + shared.model +
           "), so their agreement counts for less.";
  }
  if (shared.slots.size() == 3) {
    return "All three candidates run on one model (" + shared.model +
           "), so their agreement is weaker evidence than agreement between different models.";
  }
  return "Candidates " + std::to_string(shared.slots[0]) + " and " +
         std::to_string(shared.slots[1]) + " run on one model (" + shared.model +
         "), so their agreement counts for less.";
}

}  // namespace pi_fusion::config
