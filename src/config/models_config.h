// fusion-models.json: the five model slots of a Fusion run, its policy, and their file format.
//
//   v1 {"schema_version":"pi-background-tasks.fusion-models.v1",
//       "candidates":[sel, sel, sel], "evaluator": sel, "merger": sel}
//   v2 {"schema_version":"pi-background-tasks.fusion-models.v2", <v1's keys>,
//       "policy": {"quorum": 2|3, "grace_seconds": number >= 0 | null,
//                  "max_cost_usd": number > 0 | null}}      (policy optional)
//   v3 {"schema_version":"pi-background-tasks.fusion-models.v3", <v2's keys>,
//       "policy": {<v2's policy keys>, "stall_seconds"?: number in (0, 3000] | null,
//                  "panel"?: "full" | "adaptive", "order_check"?: "off" | "on_conflict",
//                  "evaluator_tools"?: boolean},
//       "panels"?: {<name>: <panel>}, "default_panel"?: <name>}     (config/panels.h)
//       The contract's other v3 policy key (keep_warm_seconds)
//       is not supported by this version: a file that uses one is config_invalid, saying so,
//       rather than run as if they were absent.
// Both objects are closed (unknown and missing keys are rejected), the version must be one of the
// two, there are exactly three candidates, and every selection is "$current" or "provider/model"
// (a '/' with a non-empty provider before the first '/' and a non-empty model after it; model ids
// may contain more slashes), not blank and without leading or trailing white space. In v2 the
// `policy` key may be left out (the default policy), but a policy object that is present must
// name all three of its keys, a null spelled out: the contract's example writes every key, and a
// half-written policy is more likely a typo than a wish. Any violation is config_invalid with a
// message naming the slot ("Candidate 2", "Evaluator", ...) or the key ("policy.quorum") and the
// rule. schemas/config/fusion-models.json is the same contract as a JSON Schema (a test checks
// both agree). Values and pure functions; thread-safe.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "config/config_constants.h"
#include "core/role.h"  // Slot: the five routes this file configures
#include "pi_fusion/status.h"

namespace pi_fusion::config {

// How a run treats a failing or lagging candidate and what it may spend. The default is today's
// run: all three candidates must verify, no cap. This layer only parses, checks and writes the
// policy; the run applies it.
// policy.order_check's values.
enum class OrderCheck { kOff, kOnConflict };
inline constexpr std::string_view kOrderCheckOff = "off";
inline constexpr std::string_view kOrderCheckOnConflict = "on_conflict";

struct Policy {
  // 3: every candidate must verify, a failure fails the run. 2: two verified answers suffice; the
  // third gets a grace window and is cancelled when it fails or outlasts it.
  int quorum = kDefaultQuorum;
  // The grace window in seconds once two candidates are verified. nullopt is the default rule:
  // the larger of kDefaultGraceFloorSeconds and half the elapsed time of the second verified
  // candidate (measured by the run, so it cannot be a number here).
  std::optional<double> grace_seconds;
  // The most a run may cost in US dollars; nullopt: no cap.
  std::optional<double> max_cost_usd;
  // v3: how long a stage child may show no progress before it is stopped as stalled
  // (child_stalled). nullopt is the default rule, kDefaultStallSeconds.
  std::optional<double> stall_seconds;
  // v3: "adaptive" asks candidates 1 and 2 first and the third only when their answers do not
  // agree (docs/config.md); false is "full", every candidate asked.
  bool adaptive = false;
  // v3: whether a run whose evaluation names conflicts asks, under two other relabellings of the
  // candidates, which position each conflict favours, and tells the merger the conflicts whose
  // favoured position did not survive the reorder as unresolved ("on_conflict"); "off" (the
  // default) never asks.
  OrderCheck order_check = OrderCheck::kOff;
  // v3: the evaluator of an investigate, research or validate run gets the candidates' read-only
  // tools (research: its declared sources too) under a budget of kEvaluatorToolBudget calls, and
  // answers pi-background-tasks.fusion-evaluation.v2 with its checked claims. A reason run has no
  // tools and behaves as without it. false (the default) is written to no file.
  bool evaluator_tools = false;
  // v3: after a run ends, keep up to kWarmPoolSize candidate processes of this project ready for
  // this many seconds, so the next run's candidates start warm (docs/config.md). 0 (the default,
  // written to no file): every child starts cold, as before.
  double keep_warm_seconds = 0;

  bool IsDefault() const { return *this == Policy{}; }
  bool operator==(const Policy&) const = default;
};

// The thinking level a panel gives each role's children: one of Pi's level names (kThinkingLevels);
// nullopt is "inherit", the parent session's level, as every child of a run without panels has.
struct RoleThinking {
  std::optional<std::string> candidates;
  std::optional<std::string> evaluator;  // also the evaluator's repair
  std::optional<std::string> merger;

  // The level of `role`'s children; nullopt: the parent's.
  const std::optional<std::string>& of(Role role) const;
  bool IsInherit() const { return !candidates && !evaluator && !merger; }
  bool operator==(const RoleThinking&) const = default;
};

// A named panel (v3): a full cast, its thinking per role and, optionally, its own policy.
struct Panel {
  std::array<std::string, 3> candidates;
  std::string evaluator;
  std::string merger;
  RoleThinking thinking;
  // nullopt: the file's top-level policy applies to runs of this panel. A panel's own policy
  // replaces the top-level one whole (it is a complete policy object, like the top-level one).
  std::optional<Policy> policy;

  const std::string& selection(Slot slot) const;
  std::string& selection(Slot slot);
  bool operator==(const Panel&) const = default;
};

// The five selections and the policy. Defaults: every slot "$current" and the default policy
// (also the meaning of a missing file).
struct ModelsConfig {
  std::array<std::string, 3> candidates = {std::string(kCurrentSelection),
                                           std::string(kCurrentSelection),
                                           std::string(kCurrentSelection)};
  std::string evaluator = std::string(kCurrentSelection);
  std::string merger = std::string(kCurrentSelection);
  Policy policy;
  // v3: the named panels, by name (sorted), and the one a run uses when none is named (nullopt:
  // the top-level cast above). Empty and nullopt in v1 and v2 files.
  std::map<std::string, Panel> panels;
  std::optional<std::string> default_panel;

  const std::string& selection(Slot slot) const;
  std::string& selection(Slot slot);
  bool operator==(const ModelsConfig&) const = default;
};

// A syntactically valid selection.
struct Selection {
  bool is_current = false;
  std::string provider;  // empty when is_current
  std::string model;     // empty when is_current
};

// Checks one selection by the rules above; config_invalid "<Slot> ..." on failure.
Result<Selection> ParseSelection(Slot slot, std::string_view text);

// Checks the policy's values by the rules above; config_invalid "policy.<key> must ..." naming
// the first broken key in the order quorum, grace_seconds, max_cost_usd, stall_seconds.
Status ValidatePolicy(const Policy& policy);

// Checks every slot of `config`, then its policy, then its panels (config/panels.h); the first
// failing slot in slot order wins.
Status ValidateModelsConfig(const ModelsConfig& config);

// A policy number as the file writes it and the selector shows it: an integral value without a
// fraction ("20"), any other as the shortest text that reads back as the same double ("0.25").
std::string PolicyNumberText(double value);

// Parses the file's bytes. `path` only appears in error messages.
Result<ModelsConfig> ParseModelsConfig(std::string_view bytes, std::string_view path);

// The bytes a save writes. The default policy writes v1 exactly as before v2 existed (keys in the
// order schema_version, candidates, evaluator, merger), so files of people who never chose a
// policy stay readable by older releases; any other policy writes v2 with `policy` last, its keys
// in the order quorum, grace_seconds, max_cost_usd and unset values as null; a policy with
// stall_seconds set, or any panel or default_panel, writes v3: the same with stall_seconds after
// them (policy left out when it is the default), then `panels` and `default_panel`
// (config/panels.h). So a file whose content fits v2 or v1 is written as that. Two-space
// indentation, one trailing newline, non-ASCII kept as UTF-8.
// config_invalid when a selection or a policy value breaks a rule or a selection is not UTF-8.
Result<std::string> SerializeModelsConfig(const ModelsConfig& config);

}  // namespace pi_fusion::config
