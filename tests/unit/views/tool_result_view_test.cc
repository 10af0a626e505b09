// The views of tool results (tool_result_view.h), from a result's details and text only, as Pi
// hands them back at render time: launch, status list, kill, completed and failed bg_result,
// errors. Nothing the model needs (hashes, "Do not poll.") appears in a view.
#include "views/tool_result_view.h"

#include <catch2/catch.hpp>

#include "view_checks.h"

#include "run/source_failures.h"
#include "views/host_texts.h"
#include "views/lifecycle_texts.h"
#include "views/report_texts.h"

using nlohmann::json;
using namespace pi_fusion;
using namespace pi_fusion::tasks;
using namespace pi_fusion::views;

namespace {

using pi_fusion::views::testing::kRun;
using pi_fusion::views::testing::kStart;
using pi_fusion::views::testing::Usage;

// A completed bg_result's details as BuildResultAnswer writes them, without `answer.text_offset`
// when `offset` is negative (a result from before that key).
json CompletedDetails(const std::string& answer, long offset) {
  json details = {{"schema_version", "pi-background-tasks.fusion-result-view.v1"},
                  {"task_id", kRun},
                  {"state", "completed"},
                  {"delivery", "inline"},
                  {"workflow", "reason"},
                  {"artifact_dir", "/w/run"},
                  {"answer",
                   {{"present", true},
                    {"path", "/w/run/merged.md"},
                    {"byte_length", answer.size()},
                    {"sha256", "sha256:abc"}}},
                  {"usage", Usage()},
                  {"usage_attached", "already"},
                  {"result", json::object()}};
  if (offset >= 0) details["answer"]["text_offset"] = offset;
  return details;
}

using pi_fusion::views::testing::MentionsModelText;

}  // namespace

TEST_CASE("tool results: launch, status list, kill, completed and failed bg_result, errors") {
  const std::string dir = "/w/.pi/fusion/s-1/" + std::string(kRun);
  const json launch = {{"schema_version", "pi-background-tasks.fusion-launch.v1"},
                       {"task", {{"id", kRun}}},
                       {"run_id", kRun},
                       {"workflow", "reason"},
                       {"artifact_dir", dir}};
  const json started =
      ToolResultView("fusion_reason", launch, "Started … Do not poll.", false, kStart);
  CHECK(started["state"] == "running");
  CHECK(started["status"] == "started in the background (" + std::string(kRun) + ")");
  CHECK_FALSE(MentionsModelText(started));
  CHECK(ToolResultView("fusion_reason", json::object(), "fusion reason: preflight (routes)", false,
                       kStart) ==
        json{{"kind", "note"}, {"level", "info"}, {"text", "fusion reason: preflight (routes)"}});

  CHECK(ToolResultView("bg_result", {{"error", {{"code", "invalid_arguments"}}}},
                       "Unknown background task ID: x\n(error code: invalid_arguments)", true,
                       kStart) ==
        json{{"kind", "note"}, {"level", "error"}, {"text", "Unknown background task ID: x"}});

  const json progress = {{"stage", "candidates"},
                         {"candidates", {{"done", 2}}},
                         {"elapsed_ms", 42'000},
                         {"line", "candidates 2/3 complete"}};
  const json status = ToolResultView("bg_status",
                                     {{"tasks",
                                       {{{"task_id", kRun},
                                         {"state", "running"},
                                         {"workflow", "reason"},
                                         {"description", "Why?"},
                                         {"progress", progress}},
                                        {{"task_id", "research-01"},
                                         {"state", "killed"},
                                         {"workflow", "research"},
                                         {"description", "Where?"}}}}},
                                     "…", false, kStart);
  CHECK(status["kind"] == "list");
  CHECK(status["items"][0]["status"] == "candidates 2/3 done · 0:42 (" + std::string(kRun) + ")");
  CHECK(status["items"][0]["question"] == "Why?");
  CHECK(status["items"][1]["state"] == "cancelled");
  CHECK(status["items"][1]["status"] == "cancelled (research-01)");  // never "killed"
  CHECK(ToolResultView("bg_status", {{"tasks", json::array()}}, "", false, kStart)["items"] ==
        json::array());

  CHECK(ToolResultView("bg_kill", {{"task_id", kRun}, {"state", "killed"}}, "killed …", false,
                       kStart)["text"] ==
        "Cancelled " + std::string(kRun) + " (asked by bg_kill).");
  // Only a run this call stopped reads "Cancelled": the truth for runs that had already ended.
  const auto kill_note = [](const json& details) {
    return ToolResultView("bg_kill", details, "…", false, kStart)["text"].get<std::string>();
  };
  const std::string run(kRun);
  CHECK(kill_note({{"task_id", kRun}, {"state", "completed"}}) ==
        run + " completed before it could be stopped; its answer is committed.");
  CHECK(kill_note({{"task_id", kRun}, {"state", "failed"}}) ==
        run + " failed before it could be stopped.");
  CHECK(kill_note({{"task_id", kRun}, {"state", "completed"}, {"earlier_process", true}}) ==
        run + " ran in an earlier Pi process and completed; nothing to stop.");
  CHECK(kill_note({{"task_id", kRun}, {"state", "killed"}, {"earlier_process", true}}) ==
        run + " ran in an earlier Pi process and was cancelled; nothing to stop.");
  CHECK(kill_note({{"task_id", kRun}, {"state", "running"}, {"earlier_process", true}}) ==
        run +
            " is running in another Pi process; bg_kill stops only runs of the Pi it is "
            "called in.");

  const std::string text = "Fusion " + std::string(kRun) +
                           " completed (reason).\nAnswer: 9 bytes, sha256:abc (verified).\n"
                           "Artifacts: " +
                           dir + "\nUsage: …\n\n# Answer\n";
  const json completed = ToolResultView(
      "bg_result",
      {{"schema_version", "pi-background-tasks.fusion-result-view.v1"},
       {"task_id", kRun},
       {"state", "completed"},
       {"delivery", "inline"},
       {"workflow", "reason"},
       {"artifact_dir", dir},
       {"answer", {{"byte_length", 9}, {"sha256", "sha256:abc"}}},
       {"usage", Usage()},
       {"usage_attached", "now"},
       {"result",
        {{"models",
          {{"candidates", {"a/1", "b/2", "c/3"}}, {"evaluator", "e/4"}, {"merger", "m/5"}}}}}},
      text, false, kStart);
  CHECK(completed["answer"]["markdown"] == "# Answer\n");
  CHECK(completed["answer"]["note"] == "9 bytes, verified");
  CHECK(completed["usage"] == "14,210 tokens · $0.0123 (added to this session's usage now)");
  CHECK(completed["slots"][4]["model"] == "m/5");
  CHECK(completed["report"] == ReportHintText(kRun));
  CHECK_FALSE(MentionsModelText(completed));

  const json killed = ToolResultView(
      "bg_result",
      {{"task_id", kRun},
       {"state", "killed"},
       {"workflow", "reason"},
       {"artifact_dir", dir},
       {"failure", {{"code", "child_cancelled"}, {"message", "cancelled by bg_kill"}}}},
      "…", false, kStart);
  CHECK(killed["state"] == "cancelled");
}

TEST_CASE("bg_result: the usage line counts the run's model requests before its tokens and cost") {
  json details = CompletedDetails("# Answer\n", 0);
  details["result"]["model_requests"] = 8;
  CHECK(ToolResultView("bg_result", details, "# Answer\n", false, kStart)["usage"] ==
        "8 model requests · 14,210 tokens · $0.0123 (already in this session's usage)");
  details["usage_attached"] = "now";
  details["result"]["model_requests"] = 1;
  CHECK(ToolResultView("bg_result", details, "# Answer\n", false, kStart)["usage"] ==
        "1 model request · 14,210 tokens · $0.0123 (added to this session's usage now)");

  // A failed run: what it used before it stopped, from its failure view.
  const json failed = {{"task_id", kRun},
                       {"state", "failed"},
                       {"workflow", "reason"},
                       {"artifact_dir", "/w/run"},
                       {"failure", {{"code", "cost_cap_exceeded"}, {"message", "cap"}}},
                       {"usage_so_far", Usage()},
                       {"model_requests", 4}};
  CHECK(ToolResultView("bg_result", failed, "…", false, kStart)["usage"] ==
        "4 model requests · 14,210 tokens · $0.0123");
}

TEST_CASE("bg_status rows: the question each row carries, even beside a cut JSON description") {
  const std::string prompt =
      "How should we migrate the run store to the new manifest version without downtime?";
  const json row = {{"task_id", kRun},
                    {"state", "completed"},
                    {"workflow", "reason"},
                    {"description", R"({"prompt":"How should we migrate the run st)"},
                    {"question", prompt}};
  const json list = ToolResultView("bg_status", {{"tasks", {row}}}, "…", false, kStart);
  CHECK(list["items"][0]["question"] ==
        "How should we migrate the run store to the new manifest version without…");
  // A row that carries no question (an earlier run whose request could not be read) shows none,
  // whatever its description says.
  json bare = row;
  bare["question"] = "";
  CHECK_FALSE(
      ToolResultView("bg_status", {{"tasks", {bare}}}, "…", false, kStart)["items"][0].contains(
          "question"));
}

TEST_CASE(
    "bg_status rows from before rows carried a question: the prompt or objective in the "
    "description's JSON") {
  const auto question_of = [](const std::string& description) {
    const json row = {{"task_id", kRun},
                      {"state", "completed"},
                      {"workflow", "reason"},
                      {"description", description}};
    return ToolResultView("bg_status", {{"tasks", {row}}}, "…", false, kStart)["items"][0].value(
        "question", json());
  };
  CHECK(question_of(R"({"prompt":"Why is the sky blue?"})") == "Why is the sky blue?");
  CHECK(question_of(R"({"background":[],"deliverable":"d","objective":"Find the leak"})") ==
        "Find the leak");
  CHECK(question_of(R"({"prompt":"a long prompt cut at 240 charac)") ==
        "a long prompt cut at 240 charac");
  CHECK(question_of("Why?") == "Why?");  // a description that is the request text itself
  CHECK(question_of("").is_null());
}

TEST_CASE("bg_result inline: the answer from where the details say it starts, whatever it holds") {
  const std::string answer =
      "# Answer\n\nFirst paragraph.\n\nThe log said:\n(error code: child_timeout)\nand more.\n";
  // A header line that itself holds a blank line: only the offset finds the answer.
  const std::string head = "Fusion " + std::string(kRun) +
                           " completed (reason).\nArtifacts: /w/run\nUsage: …\n\nCandidate 2 had "
                           "1 tool call refused.\n\n";
  const json view = ToolResultView("bg_result", CompletedDetails(answer, long(head.size())),
                                   head + answer, false, kStart);
  CHECK(view["answer"]["markdown"] == answer);
  CHECK(view["answer"]["note"] == std::to_string(answer.size()) + " bytes, verified");
  CHECK(view["state"] == "completed");

  // An offset past the text (a text Pi did not keep whole) reads as an old result.
  const std::string text = "Fusion … completed.\nUsage: …\n\n" + answer;
  CHECK(ToolResultView("bg_result", CompletedDetails(answer, 100'000), text, false,
                       kStart)["answer"]["markdown"] == answer);
}

TEST_CASE(
    "bg_result inline from before answer.text_offset: the answer after the first blank line") {
  const std::string answer = "# Answer\n\nTwo paragraphs.\n(error code: not_an_error)\n";
  const std::string text = "Fusion " + std::string(kRun) +
                           " completed (reason).\nAnswer: 9 bytes, sha256:abc (verified).\n"
                           "Artifacts: /w/run\nUsage: …\n\n" +
                           answer;
  const json view = ToolResultView("bg_result", CompletedDetails(answer, -1), text, false, kStart);
  CHECK(view["answer"]["markdown"] == answer);
  CHECK(view["usage"] == "14,210 tokens · $0.0123 (already in this session's usage)");
}

TEST_CASE("error notes: the text without its code line, known exactly from the details' code") {
  // A message that quotes an error text of its own keeps it.
  const Status quoting = Status::Error(
      "evaluation_invalid", "the evaluator wrote \"x\n(error code: y)\" instead of JSON");
  CHECK(ToolResultView("bg_result",
                       {{"error", {{"code", quoting.code()}, {"message", quoting.message()}}}},
                       ToolErrorText(quoting), true, kStart) ==
        json{{"kind", "note"}, {"level", "error"}, {"text", quoting.message()}});

  // A failed launch: its text for people is the failure line and the artifacts, not only the
  // message the details carry.
  const LaunchReport failed = FailedLaunch({Status::Error("model_unavailable", "no current model"),
                                            "/w/.pi/fusion/s-1/" + std::string(kRun)});
  CHECK(failed.receipt_text ==
        "Fusion failed (stage=preflight, slot=none, attempt=none): no current model\n"
        "Artifacts: /w/.pi/fusion/s-1/" +
            std::string(kRun) + "\n(error code: model_unavailable)");
  CHECK(
      ToolResultView("fusion_reason", failed.details, failed.receipt_text, false, kStart)["text"] ==
      "Fusion failed (stage=preflight, slot=none, attempt=none): no current model\n"
      "Artifacts: /w/.pi/fusion/s-1/" +
          std::string(kRun));

  // Without details (a call Pi failed itself, or an old result): cut at the first code line.
  CHECK(ToolResultView("bg_status", json::object(), "bad taskId\n(error code: invalid_arguments)",
                       true, kStart)["text"] == "bad taskId");
  CHECK(ToolResultView("bg_status", json::object(), "plain failure", true, kStart)["text"] ==
        "plain failure");
}

TEST_CASE(
    "bg_result of research whose declared sources failed: the count in the status, a warning "
    "each") {
  const std::string answer = "# Answer\n";
  json details = CompletedDetails(answer, 0);
  details["workflow"] = "research";
  const std::string plain = "completed (" + std::string(kRun) + ")";
  const json fetched_all = ToolResultView("bg_result", details, answer, false, kStart);
  CHECK(fetched_all["status"] == plain);
  CHECK_FALSE(fetched_all.contains("notes"));

  details["result"]["source_failures"] = {
      {{"url", "http://docs.test:81/page"}, {"code", "network_error"}},
      {{"url", "http://nowhere.test/page"}, {"code", "dns_failure"}}};
  const json view = ToolResultView("bg_result", details, answer, false, kStart);
  CHECK(view["state"] == "completed");
  CHECK(view["status"] == plain + " · 2 declared sources failed");
  CHECK(view["notes"] ==
        json::array({"Warning: the declared source http://docs.test:81/page could not be fetched "
                     "(network_error); no candidate read it.",
                     "Warning: the declared source http://nowhere.test/page could not be fetched "
                     "(dns_failure); no candidate read it."}));
  CHECK(view["answer"]["markdown"] == answer);

  details["result"]["source_failures"] = {
      {{"url", "http://nowhere.test/page"}, {"code", "dns_failure"}}};
  CHECK(ToolResultView("bg_result", details, answer, false, kStart)["status"] ==
        plain + " · 1 declared source failed");

  // No declared source fetched at all: said in the status and as a note.
  details["result"].erase("source_failures");
  details["result"]["no_source_fetched"] = true;
  const json none = ToolResultView("bg_result", details, answer, false, kStart);
  CHECK(none["status"] == plain + " · no declared source fetched");
  CHECK(none["notes"] == json::array({run::kNoSourceFetchedWarning}));
}

TEST_CASE("bg_status rows speak to the person who reads them: 'you can resume it'") {
  const json row = {
      {"task_id", kRun},
      {"state", "failed"},
      {"workflow", "reason"},
      {"question", "q"},
      {"note", "earlier Pi process; the person can resume it with /fusion-resume 01234567"}};
  const json list = ToolResultView("bg_status", {{"tasks", {row}}}, "…", false, kStart);
  CHECK(list["items"][0]["status"] ==
        "failed (" + std::string(kRun) +
            ") — earlier Pi process; you can resume it with /fusion-resume 01234567");
}
