#include "views/tool_result_view.h"

#include <cstdio>

#include "config/shared_model.h"
#include "run/adaptive_text.h"
#include "run/degraded_text.h"
#include "run/source_failures.h"
#include "tasks/resume_hint.h"
#include "views/host_texts.h"
#include "views/lifecycle_texts.h"
#include "views/report_texts.h"
#include "views/resume_texts.h"
#include "views/run_view.h"
#include "views/status_answer.h"
#include "views/view_parts.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::views {
namespace {

using nlohmann::json;

json Note(const char* level, const std::string& text) {
  return json{{"kind", "note"}, {"level", level}, {"text", text}};
}

// The run a bg_* result speaks of.
RunFacts FactsOf(const json& details) {
  RunFacts facts;
  facts.run_id = StringAt(details, "task_id");
  facts.workflow = StringAt(details, "workflow");
  facts.artifact_dir = StringAt(details, "artifact_dir");
  return facts;
}

// A failed call of any tool. Error texts are already written for people; the code line stays in
// the content. The details name the code, so that line is known exactly; a result without them
// (an argument error thrown to Pi, which builds that result itself) is cut at its first code line.
json ErrorView(const json& details, const std::string& text) {
  const json error = details.is_object() ? details.value("error", json()) : json();
  const std::string code = StringAt(error, "code");
  if (const std::string line = ErrorCodeLine(code); !code.empty() && text.ends_with(line)) {
    return Note("error", text.substr(0, text.size() - line.size()));
  }
  const size_t cut = text.find("\n(error code:");
  return Note("error", cut == std::string::npos ? text : text.substr(0, cut));
}

// A launch row whose run has ended since: how it ended, never "started in the background".
json EndedLaunchView(const RunFacts& facts, const tasks::TaskInfo& ended) {
  const std::string id = " (" + facts.run_id + ")";
  if (ended.state == tasks::TaskState::kCompleted) {
    json view = BaseView(facts, "completed", "ran in the background and completed" + id);
    view["notes"] = json::array({"bg_result " + facts.run_id + " gives its verified answer."});
    return view;
  }
  json notes = json::array();
  json view;
  if (ended.state == tasks::TaskState::kKilled) {
    view =
        BaseView(facts, "cancelled",
                 "ran in the background and was " + tasks::CancelledText(ended.cancelled_by) + id);
    if (ended.cancelled_by == tasks::CancelSource::kQuit ||
        ended.cancelled_by == tasks::CancelSource::kReload) {
      notes.push_back("Pi cancels active runs when it quits or reloads.");
    }
  } else {
    view = BaseView(facts, "failed", "ran in the background and failed" + id);
    // One line on the row: an error message may hold more.
    const std::string why = ended.failure.substr(0, ended.failure.find('\n'));
    if (!why.empty()) view["error"] = why;
  }
  if (ended.resume) notes.push_back(PersonResumeText(*ended.resume));
  if (!notes.empty()) view["notes"] = std::move(notes);
  return view;
}

// "Estimate: 1,234 – 5,678 input, … output tokens, $0.0100 – $0.0400 (expected – worst case)"
// from a receipt's details.estimate (budget/cost_text.h); "" without one.
std::string EstimateLine(const json& estimate) {
  const json expected = estimate.is_object() ? estimate.value("expected", json()) : json();
  const json worst = estimate.is_object() ? estimate.value("worst_case", json()) : json();
  auto range = [&](const char* key) -> std::string {
    const json a = expected.is_object() ? expected.value(key, json()) : json();
    const json b = worst.is_object() ? worst.value(key, json()) : json();
    // The details come back from JavaScript, where every number is a double.
    if (!a.is_number() || !b.is_number() || a.get<double>() < 0 || b.get<double>() < 0) return "";
    return Grouped(static_cast<uint64_t>(a.get<double>())) + " – " +
           Grouped(static_cast<uint64_t>(b.get<double>()));
  };
  const std::string input = range("input_tokens");
  const std::string output = range("output_tokens");
  const json low = expected.is_object() ? expected.value("usd", json()) : json();
  const json high = worst.is_object() ? worst.value("usd", json()) : json();
  if (input.empty() || output.empty() || !low.is_number() || !high.is_number()) return "";
  char dollars[96];
  std::snprintf(dollars, sizeof(dollars), "$%.4f – $%.4f", low.get<double>(), high.get<double>());
  return "Estimate: " + input + " input, " + output + " output tokens, " + dollars +
         " (expected – worst case)";
}

// fusion_*: the launch receipt; before it, the preflight update line as it is.
json LaunchView(const json& details, const std::string& text, const tasks::TaskInfo* ended) {
  if (!details.is_object() || !details.contains("task")) return Note("info", text);
  RunFacts facts = FactsOf(details);
  facts.run_id = StringAt(details, "run_id");
  if (ended != nullptr && ended->id == facts.run_id && ended->state != tasks::TaskState::kRunning) {
    return EndedLaunchView(facts, *ended);
  }
  json view = BaseView(facts, "running", "started in the background (" + facts.run_id + ")");
  view["notes"] =
      json::array({"You will be notified when it ends. " + std::string(kActiveRunHint)});
  if (const std::string estimate = EstimateLine(details.value("estimate", json()));
      !estimate.empty()) {
    view["usage"] = estimate;
  }
  if (const json shared = details.value("shared_model", json()); shared.is_object()) {
    const config::SharedModel model{StringAt(shared, "model"),
                                    shared.value("slots", std::vector<int>{}),
                                    shared.value("family", json()) == true};
    if (model.slots.size() > 1) view["notes"].push_back(config::SharedModelText(model));
  }
  return view;
}

// What bg_kill did, said as it happened: only a run this call stopped reads "Cancelled"; a run
// that had already ended, or that an earlier or another Pi owns, says so (details.earlier_process).
json KillView(const json& details) {
  const std::string run_id = StringAt(details, "task_id");
  const std::string state = StringAt(details, "state");
  const bool earlier = details.is_object() && details.value("earlier_process", false);
  if (state == "running") {
    return Note("warning", earlier ? run_id +
                                         " is running in another Pi process; bg_kill stops "
                                         "only runs of the Pi it is called in."
                                   : "Cancellation of " + run_id + " requested; not settled yet.");
  }
  // A state of another shape reads as a cancellation, as "killed" does.
  const tasks::TaskState ended = tasks::ParseTaskState(state).value_or(tasks::TaskState::kKilled);
  if (!earlier && ended == tasks::TaskState::kKilled) {
    return Note("info", "Cancelled " + run_id + " (asked by bg_kill).");
  }
  return Note("info", NothingToStopText(run_id, ended, earlier));
}

// The question of a bg_status row from before rows carried `question`: older versions described
// a task by its canonical request JSON (possibly cut at 240 characters), so the prompt or
// objective is dug out of that text; a plain description is the question itself.
std::string QuestionOfOldRow(const std::string& description) {
  for (const char* key : {"\"prompt\":\"", "\"objective\":\""}) {
    const size_t at = description.find(key);
    if (at == std::string::npos) continue;
    const json whole = json::parse(description, nullptr, /*allow_exceptions=*/false);
    const std::string field = std::string(key).substr(1, std::string(key).size() - 4);
    if (whole.is_object() && whole.contains(field) && whole[field].is_string()) {
      return whole[field].get<std::string>();
    }
    // Cut: take the string's text up to the cut, unescaping nothing but quotes.
    std::string text = description.substr(at + std::string(key).size());
    const size_t end = text.find("\",\"");
    return end == std::string::npos ? text : text.substr(0, end);
  }
  return description;
}

// One row of bg_status's `details.tasks`.
json StatusItem(const json& row) {
  RunFacts r;
  r.run_id = StringAt(row, "task_id");
  r.workflow = StringAt(row, "workflow");
  r.question = row.is_object() && row.contains("question")
                   ? StringAt(row, "question")
                   : QuestionOfOldRow(StringAt(row, "description"));
  const std::string state = StringAt(row, "state");
  const json progress = row.value("progress", json());
  // One word for one state: the contract's "killed" reads "cancelled" to a person.
  const std::string shown = state == "killed" ? "cancelled" : state;
  std::string status = shown + " (" + r.run_id + ")";
  if (progress.is_object() && state == "running") {
    status = StringAt(progress, "stage") == StageName(tasks::Stage::kCandidates)
                 ? "candidates " + std::to_string(progress["candidates"].value("done", 0)) + "/" +
                       std::to_string(workflow::kCandidateCount) + " done"
                 : StringAt(progress, "line");
    status += " · " + tasks::FormatElapsed(progress.value("elapsed_ms", int64_t{0})) + " (" +
              r.run_id + ")";
  }
  // The row's note speaks to the agent; the person reading it here is "you".
  if (!StringAt(row, "note").empty()) status += " — " + PersonNote(StringAt(row, "note"));
  json item = BaseView(r, shown, status);
  item.erase("artifacts");
  return item;
}

json StatusListView(const json& details) {
  json list = {{"kind", "list"},
               {"title", "Fusion runs"},
               {"items", json::array()},
               {"empty", "No Fusion runs in this session."}};
  for (const json& row : details.value("tasks", json::array())) {
    list["items"].push_back(StatusItem(row));
  }
  return list;
}

// The answer a completed bg_result delivered inline: its text from `answer.text_offset`. Results
// from before that key are the header lines, a blank line, then the answer verbatim.
std::string InlineAnswer(const json& answer, const std::string& text) {
  const json offset = answer.is_object() ? answer.value("text_offset", json()) : json();
  if (offset.is_number_integer() && offset.get<int64_t>() >= 0 &&
      offset.get<uint64_t>() <= text.size()) {
    return text.substr(offset.get<size_t>());
  }
  const size_t body = text.find("\n\n");
  return body == std::string::npos ? "" : text.substr(body + 2);
}

json CompletedResultView(const json& details, const std::string& text, const RunFacts& facts) {
  const json result = details.value("result", json());
  const std::string degraded = run::DegradedSentence(result.value("degraded", json()));
  const std::string adaptive = run::AdaptiveStatus(result.value("adaptive", json()));
  json view = BaseView(facts, "completed",
                       "completed" + std::string(degraded.empty() ? "" : " · degraded") +
                           (adaptive.empty() ? "" : " · " + adaptive) + " (" + facts.run_id + ")");
  view["slots"] = CompletedSlots(result.value("models", json()), result.value("degraded", json()),
                                 result.value("adaptive", json()));
  // The notes come before the answer; a degraded answer's sentence is the first of them.
  if (json notes = CompletedNotes(result); !notes.empty()) view["notes"] = std::move(notes);
  view["report"] = ReportHintText(facts.run_id);
  if (const std::string sources = run::SourceWarningStatus(result); !sources.empty()) {
    view["status"] = view["status"].get<std::string>() + " · " + sources;
  }
  const std::string usage =
      RequestsAndUsageText(result.value("model_requests", json()), details.value("usage", json()),
                           result.value("estimate", json()));
  if (!usage.empty()) {
    view["usage"] = usage + (StringAt(details, "usage_attached") == "now"
                                 ? " (added to this session's usage now)"
                                 : " (already in this session's usage)");
  }
  const json answer = details.value("answer", json());
  const std::string bytes =
      answer.is_object() ? Grouped(answer.value("byte_length", uint64_t{0})) + " bytes, verified"
                         : "";
  if (StringAt(details, "delivery") == "inline") {
    view["answer"] = AnswerView(InlineAnswer(answer, text), bytes);
  } else {
    view["answer"] = AnswerView("Answer file: `" + StringAt(answer, "path") + "`", bytes);
  }
  return view;
}

// A running run: this Pi is told when its own runs end; a run another live Pi owns
// (details.owner) ends there, so the view says whose it is and where its answer will be.
json RunningResultView(const json& details, const RunFacts& facts) {
  const json owner = details.value("owner", json());
  if (!owner.is_object() || !owner.value("pid", json()).is_number_integer()) {
    return BaseView(facts, "running", "still running; you will be notified when it ends");
  }
  json view =
      BaseView(facts, "running",
               "running in another Pi process (pid " + std::to_string(owner["pid"].get<int64_t>()) +
                   ", session " + StringAt(owner, "session") + ")");
  view["notes"] =
      json::array({"That Pi owns this run; this Pi will not be notified when it ends.",
                   "Once it has ended: bg_result " + facts.run_id + " again, the answer file " +
                       facts.artifact_dir + "/merged.md, or `pi-fusion runs`."});
  return view;
}

json BgResultView(const json& details, const std::string& text, int64_t now_ms) {
  const RunFacts facts = FactsOf(details);
  const std::string state = StringAt(details, "state");
  if (state == "running") return RunningResultView(details, facts);
  if (state == "completed") return CompletedResultView(details, text, facts);
  // A cancelled run recorded who asked in its terminal error (run/cancel_cause.h).
  const tasks::CancelSource who =
      state == "killed"
          ? tasks::CancelSourceOfMessage(StringAt(details.value("failure", json()), "message"))
          : tasks::CancelSource::kUnknown;
  return FailedRunView(facts, details, state == "killed", who, now_ms);
}

}  // namespace

json ToolResultView(std::string_view tool, const json& details, const std::string& text,
                    bool is_error, int64_t now_ms, const tasks::TaskInfo* ended) {
  if (is_error || (details.is_object() && details.contains("error"))) {
    return ErrorView(details, text);
  }
  if (tool.substr(0, 7) == "fusion_") return LaunchView(details, text, ended);
  if (tool == "bg_kill") return KillView(details);
  if (tool == "bg_status") return StatusListView(details);
  return BgResultView(details, text, now_ms);
}

}  // namespace pi_fusion::views
