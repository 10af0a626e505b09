#include "report/report_timeline.h"

#include <algorithm>
#include <string>
#include <vector>

#include "protocol/tool_audit.h"
#include "store/attempt_files.h"
#include "tasks/run_catalog.h"

namespace pi_fusion::report {
namespace {

struct LaneName {
  std::string label;
  std::string role;
};

LaneName NameOf(const store::AttemptKey& key) {
  switch (key.stage) {
    case Stage::kCandidate: {
      std::string label = "candidate " + std::to_string(key.slot.value_or(0));
      if (key.attempt > 1) label += " (attempt " + std::to_string(key.attempt) + ")";
      return {label, "candidate"};
    }
    case Stage::kEvaluation:
      return key.attempt == 1 ? LaneName{"evaluator", "evaluator"} : LaneName{"repair", "repair"};
    case Stage::kMerge:
      return {"merger", "merger"};
    case Stage::kAgreement:
      return key.attempt == 1 ? LaneName{"agreement check", "evaluator"}
                              : LaneName{"agreement repair", "repair"};
    case Stage::kOrderCheck:
      return {"order check (attempt " + std::to_string(key.attempt) + ")", "evaluator"};
  }
  return {"child", "candidate"};
}

std::optional<int64_t> Since(const std::optional<int64_t>& origin, const std::string& at) {
  const std::optional<int64_t> ms = tasks::TimestampMillis(at);
  if (!origin || !ms) return std::nullopt;
  return std::max<int64_t>(0, *ms - *origin);
}

// "exit code 0", "signal 15 (stopped: after_answer)", "not reaped".
std::string ExitNote(const store::ChildExitRecord& exit) {
  std::string note = exit.code     ? "exit code " + std::to_string(*exit.code)
                     : exit.signal ? "signal " + std::to_string(*exit.signal)
                                   : std::string("not reaped");
  if (exit.stop_reason != "none") note += " (stopped: " + exit.stop_reason + ")";
  return note;
}

// The recorded moments of an attempt's child beyond its start and end.
void AddChildMoments(const store::AttemptRecord& a, const std::optional<int64_t>& origin,
                     const VerifiedBytes& verified, TimelineLane& lane) {
  if (a.first_output_at) lane.first_output_ms = Since(origin, *a.first_output_at);
  if (a.exit) {
    lane.exit_note = ExitNote(*a.exit);
    if (a.exit->exited_at) lane.exit_ms = Since(origin, *a.exit->exited_at);
  }
  const auto journal = verified.find(store::AttemptFileName(a.key, store::AttemptFile::kToolCalls));
  if (origin && journal != verified.end()) lane.calls = TimelineCallsOf(journal->second, *origin);
}

// The lane's last drawn moment: its end, its exit, or its last call's end.
int64_t LastMoment(const TimelineLane& lane) {
  int64_t last = std::max(lane.start_ms, lane.end_ms.value_or(lane.start_ms));
  last = std::max(last, lane.exit_ms.value_or(last));
  for (const TimelineCall& call : lane.calls)
    last = std::max(last, call.start_ms + call.duration_ms);
  return last;
}

void AddCost(std::vector<RoleCost>& costs, const LaneName& name, const store::Usage& usage) {
  // A candidate's later attempts add to its row.
  const std::string label = name.label.substr(0, name.label.find(" (attempt"));
  auto it = std::find_if(costs.begin(), costs.end(),
                         [&](const RoleCost& row) { return row.label == label; });
  if (it == costs.end()) it = costs.insert(costs.end(), RoleCost{label, name.role, 0, 0});
  it->tokens += usage.total_tokens;
  it->cost_usd += usage.cost.total;
}

// The quorum's grace window: it opened when the second candidate answer verified.
std::optional<GraceWindow> GraceOf(const store::Manifest& m,
                                   const std::vector<TimelineLane>& lanes) {
  if (!m.degraded || m.degraded->reason != "cut_after_grace" || !m.degraded->grace_seconds) {
    return std::nullopt;
  }
  std::vector<int64_t> answered;
  for (const TimelineLane& lane : lanes) {
    if (lane.role == "candidate" && lane.end_state == "completed" && lane.end_ms) {
      answered.push_back(*lane.end_ms);
    }
  }
  if (answered.size() < 2) return std::nullopt;
  std::sort(answered.begin(), answered.end());
  const auto grace_ms = static_cast<int64_t>(*m.degraded->grace_seconds * 1000.0);
  return GraceWindow{answered[1], answered[1] + grace_ms, m.degraded->slot};
}

int RoleRank(const std::string& role) {
  return role == "candidate" ? 0 : role == "evaluator" ? 1 : role == "repair" ? 2 : 3;
}

// Candidates by label (slot, then attempt), then the stages in their order.
template <typename Row>
bool ShownBefore(const Row& a, const Row& b) {
  const int ra = RoleRank(a.role);
  const int rb = RoleRank(b.role);
  if (ra != rb) return ra < rb;
  return ra == 0 && a.label < b.label;
}

}  // namespace

std::vector<TimelineCall> TimelineCallsOf(std::string_view journal, int64_t origin_ms) {
  std::vector<TimelineCall> calls;
  size_t start = 0;
  while (start < journal.size()) {
    size_t end = journal.find('\n', start);
    if (end == std::string_view::npos) end = journal.size();
    const nlohmann::json line = nlohmann::json::parse(journal.substr(start, end - start), nullptr,
                                                      /*allow_exceptions=*/false);
    start = end + 1;
    if (line.is_discarded()) continue;
    Result<protocol::ToolCallRecord> record = protocol::ParseToolCallRecord(line);
    if (!record.ok() || !record->started_at) continue;
    const std::optional<int64_t> at = tasks::TimestampMillis(*record->started_at);
    if (!at) continue;
    calls.push_back(
        {std::max<int64_t>(0, *at - origin_ms), record->duration_ms, record->status != "ok"});
  }
  return calls;
}

std::optional<int64_t> AttemptDurationMs(const store::AttemptRecord& attempt) {
  if (!attempt.ended_at) return std::nullopt;
  const std::optional<int64_t> start = tasks::TimestampMillis(attempt.started_at);
  const std::optional<int64_t> end = tasks::TimestampMillis(*attempt.ended_at);
  if (!start || !end) return std::nullopt;
  return std::max<int64_t>(0, *end - *start);
}

void AddTimeline(const store::Manifest& m, ReportModel& model, const VerifiedBytes& verified) {
  const std::optional<int64_t> origin = tasks::TimestampMillis(m.created_at);
  int64_t span = Since(origin, m.updated_at).value_or(0);
  for (const store::AttemptRecord& a : m.attempts) {
    const LaneName name = NameOf(a.key);
    TimelineLane lane{name.label,
                      name.role,
                      Since(origin, a.started_at).value_or(0),
                      a.ended_at ? Since(origin, *a.ended_at) : std::nullopt,
                      std::string(store::AttemptStateName(a.state)),
                      0,
                      0};
    if (a.key.stage == Stage::kCandidate && a.key.slot) {
      const CandidateReport& c = model.candidates.at(*a.key.slot - 1);
      lane.tool_calls = c.calls_total;
      lane.tool_ms = c.tool_ms;
    }
    AddChildMoments(a, origin, verified, lane);
    span = std::max(span, LastMoment(lane));
    if (a.usage) AddCost(model.costs, name, *a.usage);
    model.lanes.push_back(std::move(lane));
  }
  for (const store::WarmChildRecord& w : m.warm_children) {
    TimelineLane lane{w.stage == Stage::kMerge ? "warm merger" : "warm evaluator",
                      w.stage == Stage::kMerge ? "merger" : "evaluator",
                      Since(origin, w.started_at).value_or(0),
                      Since(origin, w.ended_at),
                      store::WarmChildOutcomeName(w.outcome),
                      0,
                      0};
    span = std::max(span, lane.end_ms.value_or(lane.start_ms));
    model.lanes.push_back(std::move(lane));
  }
  // Candidates by slot first, then the stages in their order; a lane's own order is kept.
  std::stable_sort(model.lanes.begin(), model.lanes.end(), ShownBefore<TimelineLane>);
  std::stable_sort(model.costs.begin(), model.costs.end(), ShownBefore<RoleCost>);
  model.grace = GraceOf(m, model.lanes);
  if (model.grace) span = std::max(span, model.grace->end_ms);
  model.span_ms = std::max<int64_t>(span, 1);
}

}  // namespace pi_fusion::report
