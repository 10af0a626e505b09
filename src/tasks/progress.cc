#include "tasks/progress.h"

#include <cstdio>

#include "core/name_table.h"
#include "run/cancel_cause.h"
#include "store/run_id.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::tasks {

using run::ProgressEvent;

namespace {

// Who asked for a cancellation, in the words every notice says it with (kUnknown has none).
constexpr NameTable<CancelSource, 7> kCancelCauses = {
    {CancelSource::kBgKill, CancelSource::kReload, CancelSource::kQuit, CancelSource::kNewSession,
     CancelSource::kResume, CancelSource::kFork, CancelSource::kSignal},
    {"bg_kill", "/reload", "quitting Pi", "/new", "/resume", "/fork", "a signal to Pi"}};

constexpr NameTable<SlotState, 6> kSlotStateNames = {
    {SlotState::kPending, SlotState::kRunning, SlotState::kDone, SlotState::kFailed,
     SlotState::kCancelled, SlotState::kSkipped},
    {"pending", "running", "done", "failed", "cancelled", "skipped"}};

// Each stage's contract name and the words a person reads for it: two tables over the same stages
// in the same order (checked below), so the two never disagree about which stages exist.
constexpr NameTable<Stage, 8> kStageNames = {
    {Stage::kPreflight, Stage::kCandidates, Stage::kEvaluation, Stage::kRepair, Stage::kMerge,
     Stage::kCompleted, Stage::kFailed, Stage::kCancelled},
    {"preflight", "candidates", "evaluation", "repair", "merge", "completed", "failed",
     "cancelled"}};
constexpr NameTable<Stage, 8> kStageSummaries = {
    {Stage::kPreflight, Stage::kCandidates, Stage::kEvaluation, Stage::kRepair, Stage::kMerge,
     Stage::kCompleted, Stage::kFailed, Stage::kCancelled},
    {"preflight", "candidates",  // the summary adds the counts
     "evaluating candidates", "repairing the evaluation", "merging the final answer", "completed",
     "failed", "cancelled"}};

constexpr bool SameStages(const NameTable<Stage, 8>& a, const NameTable<Stage, 8>& b) {
  for (size_t i = 0; i < 8; ++i) {
    if (a.values[i] != b.values[i]) return false;
  }
  return true;
}
static_assert(SameStages(kStageNames, kStageSummaries));

}  // namespace

const char* CancelSourceCause(CancelSource source) {
  // The table's names are string literals: their data() is NUL-terminated.
  return source == CancelSource::kUnknown ? nullptr : kCancelCauses.Name(source).data();
}

std::string CancelSourceText(CancelSource source) {
  const char* cause = CancelSourceCause(source);
  return cause == nullptr ? "" : cause;
}

CancelSource CancelSourceOfCause(std::string_view cause) {
  return kCancelCauses.Parse(cause).value_or(CancelSource::kUnknown);
}

CancelSource CancelSourceOfMessage(std::string_view message) {
  for (CancelSource source : kCancelCauses.values) {
    const std::string said = run::CancelledByMessage(CancelSourceCause(source));
    // The cause ends the message or is followed by more words, never by more of a longer name.
    if (message.starts_with(said) &&
        (message.size() == said.size() || message[said.size()] == ' ' ||
         message[said.size()] == ';' || message[said.size()] == ',')) {
      return source;
    }
  }
  return CancelSource::kUnknown;
}

std::string CancelledText(CancelSource source) {
  const std::string who = CancelSourceText(source);
  return who.empty() ? "cancelled" : run::CancelledByMessage(who);
}

std::string_view SlotStateName(SlotState state) { return kSlotStateNames.Name(state); }

std::string_view StageName(Stage stage) { return kStageNames.Name(stage); }

int ProgressSnapshot::CandidatesIn(SlotState state) const {
  int n = 0;
  for (SlotState s : candidates) n += s == state ? 1 : 0;
  return n;
}

bool ProgressSnapshot::Active() const {
  return stage != Stage::kCompleted && stage != Stage::kFailed && stage != Stage::kCancelled;
}

int64_t ProgressSnapshot::ElapsedMs(int64_t now_ms) const {
  const int64_t end = ended_ms != 0 ? ended_ms : now_ms;
  return end > started_ms ? end - started_ms : 0;
}

void ProgressTracker::Apply(const run::ProgressUpdate& update, int64_t now_ms) {
  ProgressSnapshot& s = snapshot_;
  if (!s.Active()) return;  // terminal states are final
  s.line = update.line;
  const bool slot_ok = update.slot >= 1 && update.slot <= 3;
  switch (update.event) {
    case ProgressEvent::kNote:
      s.warnings.push_back(update.line);
      if (update.grace_ms > 0) s.grace_ends_ms = now_ms + update.grace_ms;
      break;
    case ProgressEvent::kCandidatesRunning:
      s.stage = Stage::kCandidates;
      break;
    case ProgressEvent::kCandidateStarted:
      s.stage = Stage::kCandidates;
      if (slot_ok) s.candidates[update.slot - 1] = SlotState::kRunning;
      break;
    case ProgressEvent::kCandidateDone:
      if (slot_ok) s.candidates[update.slot - 1] = SlotState::kDone;
      break;
    case ProgressEvent::kCandidateFailed:
      if (slot_ok) s.candidates[update.slot - 1] = SlotState::kFailed;
      break;
    case ProgressEvent::kCheckingAgreement:
      break;  // the line says it; the candidates' stage goes on until the decision
    case ProgressEvent::kEvaluating:
      s.stage = Stage::kEvaluation;
      s.evaluator = SlotState::kRunning;
      break;
    case ProgressEvent::kRepairing:
      s.stage = Stage::kRepair;
      s.evaluator = SlotState::kRunning;
      break;
    case ProgressEvent::kMerging:
      s.stage = Stage::kMerge;
      s.evaluator = SlotState::kDone;
      s.merger = SlotState::kRunning;
      break;
    case ProgressEvent::kCompleted:
      s.merger = SlotState::kDone;
      End(Stage::kCompleted, SlotState::kDone, now_ms);
      break;
    case ProgressEvent::kFailed:
      End(Stage::kFailed, SlotState::kFailed, now_ms);
      break;
    case ProgressEvent::kCancelled:
      End(Stage::kCancelled, SlotState::kCancelled, now_ms);
      break;
  }
}

void ProgressTracker::Note(const run::ChildActivity& activity) {
  ProgressSnapshot& s = snapshot_;
  if (!s.Active()) return;
  ChildLife* life = nullptr;
  switch (activity.stage) {
    case pi_fusion::Stage::kCandidate:
      if (activity.slot && *activity.slot >= 1 && *activity.slot <= 3) {
        life = &s.candidate_life[*activity.slot - 1];
      }
      break;
    case pi_fusion::Stage::kEvaluation:
    case pi_fusion::Stage::kAgreement:
    case pi_fusion::Stage::kOrderCheck:  // on the evaluator's route
      life = &s.evaluator_life;
      break;
    case pi_fusion::Stage::kMerge:
      life = &s.merger_life;
      break;
  }
  if (life == nullptr) return;
  life->last_output_ms = activity.last_output_ms;
  life->tool_calls = activity.tool_calls;
  life->tools_running = activity.tools_running;
  life->pooled = activity.pooled;
}

// Whatever was still running takes the run's end; what never started is skipped.
void ProgressTracker::End(Stage stage, SlotState running_becomes, int64_t now_ms) {
  ProgressSnapshot& s = snapshot_;
  s.stage = stage;
  s.ended_ms = now_ms;
  auto settle = [&](SlotState& slot) {
    if (slot == SlotState::kRunning) slot = running_becomes;
    if (slot == SlotState::kPending) slot = SlotState::kSkipped;
  };
  for (SlotState& slot : s.candidates) settle(slot);
  settle(s.evaluator);
  settle(s.merger);
}

std::string FormatElapsed(int64_t elapsed_ms) {
  const int64_t total = elapsed_ms < 0 ? 0 : elapsed_ms / 1000;
  char out[32];
  if (total >= 3600) {
    std::snprintf(out, sizeof(out), "%lld:%02lld:%02lld", static_cast<long long>(total / 3600),
                  static_cast<long long>(total / 60 % 60), static_cast<long long>(total % 60));
  } else {
    std::snprintf(out, sizeof(out), "%lld:%02lld", static_cast<long long>(total / 60),
                  static_cast<long long>(total % 60));
  }
  return out;
}

std::vector<RunningChild> RunningChildren(const ProgressSnapshot& s) {
  std::vector<RunningChild> children;
  for (int slot = 1; slot <= 3; ++slot) {
    const ChildLife& life = s.candidate_life[slot - 1];
    if (s.candidates[slot - 1] != SlotState::kRunning || life.last_output_ms == 0) continue;
    children.push_back({"candidate " + std::to_string(slot), Role::kCandidate, slot, life});
  }
  if (s.evaluator == SlotState::kRunning && s.evaluator_life.last_output_ms != 0) {
    children.push_back({"evaluator", Role::kEvaluator, 0, s.evaluator_life});
  }
  if (s.merger == SlotState::kRunning && s.merger_life.last_output_ms != 0) {
    children.push_back({"merger", Role::kMerger, 0, s.merger_life});
  }
  return children;
}

std::string FormatSince(int64_t since_ms) {
  const int64_t total = since_ms < 0 ? 0 : since_ms / 1000;
  char out[32];
  if (total < 60) {
    std::snprintf(out, sizeof(out), "%llds", static_cast<long long>(total));
  } else if (total < 3600) {
    std::snprintf(out, sizeof(out), "%lldm %02llds", static_cast<long long>(total / 60),
                  static_cast<long long>(total % 60));
  } else {
    std::snprintf(out, sizeof(out), "%lldh %02lldm", static_cast<long long>(total / 3600),
                  static_cast<long long>(total / 60 % 60));
  }
  return out;
}

namespace {

// Calls made so far: the finished ones and those in flight.
int64_t CallsSoFar(const ChildLife& life) { return *life.tool_calls + life.tools_running; }

std::string ToolCallsText(const ChildLife& life) {
  if (!life.tool_calls) return "";
  const int64_t calls = CallsSoFar(life);
  std::string text = " (" + std::to_string(calls) + (calls == 1 ? " tool call" : " tool calls");
  if (life.tools_running > 0) text += ", " + std::to_string(life.tools_running) + " running";
  return text + ")";
}

}  // namespace

std::string ChildLifeText(const ChildLife& life, int64_t now_ms) {
  return "last output " + FormatSince(now_ms - life.last_output_ms) + " ago" + ToolCallsText(life);
}

std::string ActivitySummary(const ProgressSnapshot& s, int64_t now_ms) {
  std::string text;
  for (const RunningChild& child : RunningChildren(s)) {
    text += text.empty() ? "last output: " : ", ";
    text += child.name + (child.life.pooled ? " (warm)" : "") + " " +
            FormatSince(now_ms - child.life.last_output_ms) + " ago" + ToolCallsText(child.life);
  }
  return text;
}

std::string StageSummary(const ProgressSnapshot& s) {
  std::string text(kStageSummaries.Name(s.stage));
  if (s.stage != Stage::kCandidates) return text;
  text += " " + std::to_string(s.CandidatesIn(SlotState::kDone)) + "/" +
          std::to_string(workflow::kCandidateCount) + " done";
  const int failed = s.CandidatesIn(SlotState::kFailed);
  if (failed > 0) text += ", " + std::to_string(failed) + " failed";
  return text;
}

nlohmann::json ProgressJson(const ProgressSnapshot& s, std::string_view run_id,
                            std::string_view workflow, int64_t now_ms) {
  nlohmann::json slots = nlohmann::json::array();
  for (SlotState slot : s.candidates) slots.push_back(SlotStateName(slot));
  nlohmann::json activity = nlohmann::json::array();
  for (const RunningChild& child : RunningChildren(s)) {
    const int64_t since = now_ms - child.life.last_output_ms;
    activity.push_back(
        {{"role", RoleName(child.role)},
         {"slot", child.slot > 0 ? nlohmann::json(child.slot) : nlohmann::json(nullptr)},
         {"since_output_ms", since < 0 ? 0 : since},
         {"tool_calls",
          child.life.tool_calls ? nlohmann::json(CallsSoFar(child.life)) : nlohmann::json(nullptr)},
         {"tools_running", child.life.tool_calls ? nlohmann::json(child.life.tools_running)
                                                 : nlohmann::json(nullptr)}});
  }
  return {{"schema_version", kProgressSchema},
          {"run_id", run_id},
          {"workflow", workflow},
          {"stage", StageName(s.stage)},
          {"line", s.line},
          {"candidates",
           {{"total", 3},
            {"done", s.CandidatesIn(SlotState::kDone)},
            {"failed", s.CandidatesIn(SlotState::kFailed)},
            {"running", s.CandidatesIn(SlotState::kRunning)},
            {"slots", slots}}},
          {"evaluator", SlotStateName(s.evaluator)},
          {"merger", SlotStateName(s.merger)},
          {"elapsed_ms", s.ElapsedMs(now_ms)},
          {"warnings", s.warnings},
          {"activity", activity}};
}

std::string GraceCountdown(const ProgressSnapshot& s, int64_t now_ms) {
  if (s.stage != Stage::kCandidates || !s.Active() || s.grace_ends_ms <= now_ms) return "";
  // Rounded up, so the line never says "0s left" while the window still runs.
  return "grace " + FormatSince(((s.grace_ends_ms - now_ms + 999) / 1000) * 1000) + " left";
}

std::string StatusLine(const ProgressSnapshot& s, std::string_view label, std::string_view run_id,
                       int64_t now_ms) {
  std::string line = std::string(label) + " " + std::string(store::ShortRunId(run_id)) + ": " +
                     StageSummary(s) + " · " + FormatElapsed(s.ElapsedMs(now_ms));
  if (const std::string grace = GraceCountdown(s, now_ms); !grace.empty()) line += " · " + grace;
  const std::string activity = ActivitySummary(s, now_ms);
  if (!activity.empty()) line += " · " + activity;
  return line;
}

namespace {

// Whether an event's line only repeats what the stage summary says ("candidates 2/3 complete"
// beside "candidates 2/3 done").
bool RepeatsStage(const run::ProgressUpdate& update) {
  switch (update.event) {
    case run::ProgressEvent::kCandidatesRunning:
    case run::ProgressEvent::kCandidateDone:
    case run::ProgressEvent::kCompleted:
      return true;
    case run::ProgressEvent::kEvaluating:
      return update.line == "evaluating candidates";
    case run::ProgressEvent::kMerging:
      return update.line == "merging final answer";
    default:
      return false;
  }
}

}  // namespace

std::string PlainProgressLine(const ProgressSnapshot& s, std::string_view label,
                              std::string_view run_id, int64_t now_ms,
                              const run::ProgressUpdate& update) {
  std::string line = std::string(label) + " " + std::string(store::ShortRunId(run_id)) + ": " +
                     StageSummary(s) + " · " + FormatElapsed(s.ElapsedMs(now_ms));
  if (!RepeatsStage(update) && !update.line.empty()) line += " · " + update.line;
  return line;
}

}  // namespace pi_fusion::tasks
