#include "tasks/progress.h"

#include <cstdio>

#include "run/cancel_cause.h"
#include "store/run_id.h"

namespace pi_fusion::tasks {

using run::ProgressEvent;

const char* CancelSourceCause(CancelSource source) {
  switch (source) {
    case CancelSource::kBgKill:
      return "bg_kill";
    case CancelSource::kReload:
      return "/reload";
    case CancelSource::kQuit:
      return "quitting Pi";
    case CancelSource::kNewSession:
      return "/new";
    case CancelSource::kResume:
      return "/resume";
    case CancelSource::kFork:
      return "/fork";
    case CancelSource::kSignal:
      return "a signal to Pi";
    case CancelSource::kUnknown:
      break;
  }
  return nullptr;
}

std::string CancelSourceText(CancelSource source) {
  const char* cause = CancelSourceCause(source);
  return cause == nullptr ? "" : cause;
}

CancelSource CancelSourceOfCause(std::string_view cause) {
  for (CancelSource source : {CancelSource::kBgKill, CancelSource::kReload, CancelSource::kQuit,
                              CancelSource::kNewSession, CancelSource::kResume, CancelSource::kFork,
                              CancelSource::kSignal}) {
    if (cause == CancelSourceCause(source)) return source;
  }
  return CancelSource::kUnknown;
}

CancelSource CancelSourceOfMessage(std::string_view message) {
  for (CancelSource source : {CancelSource::kBgKill, CancelSource::kReload, CancelSource::kQuit,
                              CancelSource::kNewSession, CancelSource::kResume, CancelSource::kFork,
                              CancelSource::kSignal}) {
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

std::string_view SlotStateName(SlotState state) {
  switch (state) {
    case SlotState::kPending:
      return "pending";
    case SlotState::kRunning:
      return "running";
    case SlotState::kDone:
      return "done";
    case SlotState::kFailed:
      return "failed";
    case SlotState::kCancelled:
      return "cancelled";
    case SlotState::kSkipped:
      break;
  }
  return "skipped";
}

namespace {

// Each stage's contract name and the words a person reads for it, in one table: the two must
// never disagree about which stages exist.
struct StageTexts {
  std::string_view name;
  std::string_view summary;
};

StageTexts TextsOf(Stage stage) {
  switch (stage) {
    case Stage::kPreflight:
      return {"preflight", "preflight"};
    case Stage::kCandidates:
      return {"candidates", "candidates"};  // the summary adds the counts
    case Stage::kEvaluation:
      return {"evaluation", "evaluating candidates"};
    case Stage::kRepair:
      return {"repair", "repairing the evaluation"};
    case Stage::kMerge:
      return {"merge", "merging the final answer"};
    case Stage::kCompleted:
      return {"completed", "completed"};
    case Stage::kFailed:
      return {"failed", "failed"};
    case Stage::kCancelled:
      break;
  }
  return {"cancelled", "cancelled"};
}

}  // namespace

std::string_view StageName(Stage stage) { return TextsOf(stage).name; }

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
      life = &s.evaluator_life;
      break;
    case pi_fusion::Stage::kMerge:
      life = &s.merger_life;
      break;
  }
  if (life == nullptr) return;
  life->last_output_ms = activity.last_output_ms;
  life->tool_calls = activity.tool_calls;
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

std::string ToolCallsText(const ChildLife& life) {
  if (!life.tool_calls) return "";
  return " (" + std::to_string(*life.tool_calls) +
         (*life.tool_calls == 1 ? " tool call)" : " tool calls)");
}

}  // namespace

std::string ChildLifeText(const ChildLife& life, int64_t now_ms) {
  return "last output " + FormatSince(now_ms - life.last_output_ms) + " ago" + ToolCallsText(life);
}

std::string ActivitySummary(const ProgressSnapshot& s, int64_t now_ms) {
  std::string text;
  for (const RunningChild& child : RunningChildren(s)) {
    text += text.empty() ? "last output: " : ", ";
    text += child.name + " " + FormatSince(now_ms - child.life.last_output_ms) + " ago" +
            ToolCallsText(child.life);
  }
  return text;
}

std::string StageSummary(const ProgressSnapshot& s) {
  std::string text(TextsOf(s.stage).summary);
  if (s.stage != Stage::kCandidates) return text;
  text += " " + std::to_string(s.CandidatesIn(SlotState::kDone)) + "/3 done";
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
         {"tool_calls", child.life.tool_calls ? nlohmann::json(*child.life.tool_calls)
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

std::string StatusLine(const ProgressSnapshot& s, std::string_view label, std::string_view run_id,
                       int64_t now_ms) {
  std::string line = std::string(label) + " " + std::string(store::ShortRunId(run_id)) + ": " +
                     StageSummary(s) + " · " + FormatElapsed(s.ElapsedMs(now_ms));
  const std::string activity = ActivitySummary(s, now_ms);
  if (!activity.empty()) line += " · " + activity;
  return line;
}

}  // namespace pi_fusion::tasks
