// Candidates that run on one model, or on one model family. Three answers of one model share its
// blind spots, so their agreement is weaker evidence than agreement between different models; the
// receipt, the run's views, bg_result and /fusion-models say so. All three on one exact model is
// the default (every slot `$current`) and gets a warning; two of three on one exact model, and
// two or three on one family, a softer note.
//
// One family (ModelsOfOneFamily): the same provider and the same family stem (the leading letters
// of the model's name: `anthropic/claude-sonnet-4-5` and `anthropic/claude-opus-4-1` are both
// `claude`), or the same model through two providers (`anthropic/claude-sonnet-4-5` and
// `openrouter/anthropic/claude-sonnet-4.5`: the name after the last `/`, compared without case,
// `.`/`_` read as `-`, and a `:variant`, `@version`, `-latest` or date suffix dropped). A stem of
// fewer than three letters (`o3`, `m1`) says nothing of a family and never matches.
//
// Pure functions; thread-safe.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pi_fusion::config {

struct SharedModel {
  // "provider/model" for one exact model; for a family, the members' ids joined by ", ".
  std::string model;
  std::vector<int> slots;  // the candidate slots (1-based) on it: all three, or two
  bool family = false;     // one family, not one exact model
  bool operator==(const SharedModel&) const = default;
};

// The candidates on one exact model when two or three share one; else the candidates on one
// family when two or three are; none when all three are of different families. Empty ids (a
// model not known) never count as shared.
std::optional<SharedModel> SharedCandidateModel(const std::array<std::string, 3>& models);

// Whether two "provider/model" ids are of one family (above). Ids without a `/` never are.
bool ModelsOfOneFamily(std::string_view a, std::string_view b);

// What to tell the person: a warning for three on one exact model, a note otherwise.
std::string SharedModelText(const SharedModel& shared);

}  // namespace pi_fusion::config
