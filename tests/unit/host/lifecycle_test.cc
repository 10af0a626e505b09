// RunLifecycle through fake seams (lifecycle_harness.h): the paths of one launch.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <set>

#include "config/config_constants.h"
#include "lifecycle_harness.h"
#include "process/supervisor.h"
#include "store/constants.h"
#include "views/result_answer.h"
#include "views/resume_texts.h"
#include "views/tool_result_view.h"

using namespace pi_fusion;
using namespace std::chrono_literals;
using store::testing::FaultFileSystem;
using store::testing::FsOp;
using store::testing::TempDir;

using namespace lifecycle_testing;

TEST_CASE("RunLifecycle: a clean run commits a verified answer, the receipt coming first",
          "[tasks][lifecycle]") {
  Harness h;
  h.Run();
  REQUIRE(h.sink.launch.ok);
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  CHECK(h.launcher.started() ==
        std::vector<std::string>{"candidate", "candidate", "candidate", "evaluator", "merger"});
  auto verified = store::VerifyCompletedRun(PosixFileSystem(), h.sink.launch.artifact_dir,
                                            h.sink.launch.run_id);
  REQUIRE(verified.ok());
  CHECK(verified->merged == "The answer is four.");
  auto task = h.registry.Resolve(h.sink.launch.run_id);
  REQUIRE(task.ok());
  CHECK(task->state == tasks::TaskState::kCompleted);
  CHECK(task->description == "What is 2 + 2?");
  CHECK(task->question == "What is 2 + 2?");
  CHECK(h.sink.terminal->view["question"] == "What is 2 + 2?");
}

// The same bytes on every call: 0x00, 0x11, 0x22, ...
class FixedRandom : public RandomSource {
 public:
  Status Fill(std::span<unsigned char> out) override {
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(i * 17);
    return Status::Ok();
  }
};

TEST_CASE("RunLifecycle: the run id and the times come from the run's seams",
          "[tasks][lifecycle]") {
  FixedRandom fixed;
  Harness h;
  h.seams.random = &fixed;
  h.Run();
  REQUIRE(h.sink.launch.ok);
  const std::string id = "reason-00112233445566778899aabbccddeeff";
  CHECK(h.sink.launch.run_id == id);
  CHECK_THAT(h.sink.launch.artifact_dir, Catch::EndsWith("/" + id));
  const store::Manifest manifest = h.DiskManifest();
  CHECK(manifest.run_id == id);
  CHECK(manifest.created_at == "2025-01-02T03:04:05.006Z");  // the FixedClock's instant
  REQUIRE(h.registry.Resolve(id).ok());
}

TEST_CASE("RunLifecycle: a failing candidate cancels its siblings at once (fail fast)",
          "[tasks][lifecycle]") {
  Script script;
  script.failing_candidate = 2;
  script.block_others = true;  // without fail fast the run would never end
  Harness h(script);
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == run::RunEnd::kFailed);
  const store::Manifest m = h.DiskManifest();
  CHECK(m.state == store::RunState::kFailed);
  REQUIRE(m.error.has_value());
  CHECK(m.error->code == "child_exit_failed");
  int cancelled = 0, failed = 0;
  for (const auto& a : m.attempts) {
    cancelled += a.state == store::AttemptState::kCancelled;
    failed += a.state == store::AttemptState::kFailed;
  }
  CHECK(cancelled == 2);
  CHECK(failed == 1);
}

TEST_CASE("RunLifecycle: an empty merger answer is a typed failure, never an empty merged.md",
          "[tasks][lifecycle]") {
  Script script;
  script.merger = " \n ";
  Harness h(script);
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == run::RunEnd::kFailed);
  CHECK(h.sink.terminal->outcome.error.code() == "child_event_invalid");
  CHECK_FALSE(store::testing::Exists(h.sink.launch.artifact_dir + "/" + store::kMergedFile));
}

TEST_CASE("RunLifecycle: cancelled during preflight, the run ends cancelled with no child",
          "[tasks][lifecycle]") {
  Harness h;
  h.cancel.Cancel();  // the session ended while preflight worked
  h.Run();
  CHECK_FALSE(h.sink.launch.ok);
  CHECK(h.sink.launch.error.code() == "child_cancelled");
  CHECK(h.launcher.started().empty());
  CHECK(h.DiskManifest().state == store::RunState::kCancelled);
}

TEST_CASE("RunLifecycle: a full disk at any write of preflight is reported as itself",
          "[tasks][lifecycle]") {
  for (int skip = 0; skip < 40; ++skip) {
    Harness h;
    h.fs.FailOn(FsOp::kAppend, ENOSPC, "", skip);
    h.Run();
    if (h.sink.launch.ok) break;  // past preflight: every preflight write was covered
    INFO("failing append #" << skip);
    CHECK(h.sink.launch.error.code() == "artifact_error");
    CHECK_THAT(h.sink.launch.error.message(), Catch::Contains("No space left on device"));
    CHECK(h.launcher.started().empty());
    if (h.sink.launch.artifact_dir.empty()) continue;
    // Whatever became durable is legal: a manifest that is either absent, or terminal failed.
    auto m = store::ReadManifest(PosixFileSystem(), h.sink.launch.artifact_dir);
    if (m.ok()) CHECK(m->state == store::RunState::kFailed);
  }
}

TEST_CASE("RunLifecycle: the host's own per-child PI_FUSION_* values never reach a child",
          "[tasks][lifecycle]") {
  Harness h;
  // A Pi that was itself started with these (say, from inside a child's shell) must not hand
  // them on: getenv() sees the first of duplicate entries, so they would win over the per-child
  // values and make every child a "merger" writing its oversized answer elsewhere.
  h.host_env = {"PI_FUSION_CHILD_ROLE=merger", "PI_FUSION_OVERSIZE_PATH=/tmp/elsewhere",
                "PI_FUSION_TOOLS=bash", "PATH=/usr/bin"};
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  CHECK(h.launcher.started() ==
        std::vector<std::string>{"candidate", "candidate", "candidate", "evaluator", "merger"});
  for (const std::vector<std::string>& env : h.launcher.envs()) {
    int roles = 0, oversize = 0;
    for (const std::string& entry : env) {
      roles += entry.rfind("PI_FUSION_CHILD_ROLE=", 0) == 0;
      if (entry.rfind("PI_FUSION_OVERSIZE_PATH=", 0) == 0) {
        ++oversize;
        CHECK(entry.rfind("PI_FUSION_OVERSIZE_PATH=" + h.sink.launch.artifact_dir + "/", 0) == 0);
      }
      CHECK(entry.rfind("PI_FUSION_TOOLS=", 0) == std::string::npos);  // a reason child has none
    }
    CHECK(roles == 1);
    CHECK(oversize <= 1);
  }
}

TEST_CASE("RunLifecycle: the task description is the request text, whitespace-collapsed, 240 chars",
          "[tasks][lifecycle]") {
  Harness h;
  std::string prompt = "  Why\n\tis the\r\n sky   blue? ";
  for (int i = 0; i < 60; ++i) prompt += "more words ";
  h.prompt = prompt;
  h.Run();
  REQUIRE(h.sink.launch.ok);
  const std::string description = h.sink.launch.details["task"]["description"];
  CHECK(description.rfind("Why is the sky blue? more words more", 0) == 0);
  CHECK(description.size() == 240);
  CHECK(description.find("  ") == std::string::npos);
  CHECK(h.registry.Resolve(h.sink.launch.run_id)->description == description);
  CHECK(h.registry.Resolve(h.sink.launch.run_id)->question == description);
}

TEST_CASE("RunLifecycle: a failure notice says what each child did and the usage so far",
          "[tasks][lifecycle]") {
  Script script;
  script.failing_candidate = 2;
  script.block_others = true;
  Harness h(script);
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  const std::string& text = h.sink.terminal->text;
  CHECK_THAT(text, Catch::StartsWith("Fusion failed (stage=candidate, slot="));
  CHECK_THAT(text, Catch::Contains(
                       "\nChildren: candidates 1 of 3 failed, 2 of 3 cancelled; evaluation not "
                       "started; merge not started.\n"));
  CHECK_THAT(text, Catch::Contains("\nUsage so far: "));
  CHECK_THAT(text, !Catch::Contains("Failure summary unavailable"));
  CHECK_THAT(text, Catch::EndsWith("\nArtifacts: " + h.sink.launch.artifact_dir));
  // The failure line alone, typed, for the views that show one line (the launch row).
  const std::string line = text.substr(0, text.find('\n'));
  CHECK(h.sink.terminal->task.failure == line);
  CHECK(h.registry.Resolve(h.sink.launch.run_id)->failure == line);
}

TEST_CASE("RunLifecycle: a failure summary that cannot be written is named in the notice",
          "[tasks][lifecycle]") {
  Script script;
  script.merger = "";  // the run fails at the merge: every other child completed
  Harness h(script);
  h.fs.FailOn(FsOp::kCreateExclusive, ENOSPC, store::kFailureSummaryFile);
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  const std::string& text = h.sink.terminal->text;
  CHECK_THAT(text, Catch::Contains("\nChildren: candidates 3 of 3 completed; evaluation completed; "
                                   "merge failed.\n"));
  // The store's note is bounded (256 bytes), so it may stop before the errno text.
  CHECK_THAT(text, Catch::Contains("\nFailure summary unavailable: ") &&
                       Catch::Contains("failure-summary.json"));
  // The durable state is still the truth: failed, error.json bound, no summary.
  const store::Manifest m = h.DiskManifest();
  CHECK(m.state == store::RunState::kFailed);
  CHECK(m.artifacts.count(store::kErrorFile) == 1);
  CHECK(m.artifacts.count(store::kFailureSummaryFile) == 0);
}

TEST_CASE("RunLifecycle: a run under PI_FUSION_CHILD_WRAPPER says so in receipt, progress, details",
          "[tasks][lifecycle]") {
  Harness h;
  h.host_env = {"PI_FUSION_CHILD_WRAPPER=/opt/trace/wrap.sh"};
  h.Run();
  REQUIRE(h.sink.launch.ok);
  const std::string notice =
      "every child of this run runs through PI_FUSION_CHILD_WRAPPER=/opt/trace/wrap.sh (a "
      "debugging aid): its answers and tool-call audit logs are not trustworthy";
  CHECK_THAT(h.sink.launch.receipt_text, Catch::Contains("\nWarning: " + notice + ".\n"));
  {
    std::lock_guard lock(h.sink.mu);
    // The progress line in the TUI's words: "fusion reason <short>: <stage> · <elapsed> · <line>".
    CHECK(std::any_of(h.sink.lines.begin(), h.sink.lines.end(), [&](const std::string& line) {
      return line.starts_with("fusion reason ") && line.ends_with(" · " + notice);
    }));
  }
  REQUIRE(h.sink.terminal.has_value());
  REQUIRE(h.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  auto verified = store::VerifyCompletedRun(PosixFileSystem(), h.sink.launch.artifact_dir,
                                            h.sink.launch.run_id);
  REQUIRE(verified.ok());
  CHECK(verified->details["child_wrapper"] == "/opt/trace/wrap.sh");
  const nlohmann::json warning = verified->details["warnings"].back();
  CHECK(warning == nlohmann::json{{"kind", "child_wrapper"}, {"message", notice}});

  // Without one, none of it.
  Harness plain;
  plain.Run();
  REQUIRE(plain.sink.terminal.has_value());
  CHECK_THAT(plain.sink.launch.receipt_text, !Catch::Contains("PI_FUSION_CHILD_WRAPPER"));
  auto verified_plain = store::VerifyCompletedRun(PosixFileSystem(), plain.sink.launch.artifact_dir,
                                                  plain.sink.launch.run_id);
  REQUIRE(verified_plain.ok());
  CHECK_FALSE(verified_plain->details.contains("child_wrapper"));
}

TEST_CASE("RunLifecycle: the receipt, the /fusion notice and the launch block state the estimate",
          "[tasks][lifecycle][cost]") {
  Harness h;
  h.prices = config::ModelPrices{0.5, 1.5, 0.05, 0.625};
  h.Run();
  REQUIRE(h.sink.launch.ok);
  const std::string& receipt = h.sink.launch.receipt_text;
  CHECK_THAT(receipt, Catch::Contains("\nEstimate (expected – worst case): "));
  CHECK_THAT(receipt, Catch::Contains("\n- candidate 1, scripted/scripted-a: "));
  CHECK_THAT(receipt, Catch::Contains("\n- evaluation repair (only after an invalid evaluation), "
                                      "scripted/scripted-a: "));
  CHECK_THAT(receipt, Catch::Contains("\n- merge, scripted/scripted-a: "));
  CHECK_THAT(receipt, !Catch::Contains("no price"));
  CHECK_THAT(receipt, !Catch::Contains("tool call"));  // reason candidates have no tools
  CHECK_THAT(receipt, !Catch::Contains("subscription"));
  CHECK_THAT(views::CommandStartedText(h.sink.launch),
             Catch::EndsWith("\n" + h.sink.launch.estimate_text));
  // The one-model warning the receipt gives the agent reaches the person before the run, too.
  CHECK_THAT(views::CommandStartedText(h.sink.launch),
             Catch::Contains("\nAll three candidates run on one model (scripted/scripted-a), so "
                             "their agreement is weaker evidence than agreement between different "
                             "models.\nEstimate (expected – worst case): "));
  const nlohmann::json& estimate = h.sink.launch.details["estimate"];
  CHECK(estimate["stages"].size() == 6);
  CHECK(estimate["expected"]["usd"].get<double>() > 0);
  CHECK(estimate["worst_case"]["usd"].get<double>() > estimate["expected"]["usd"].get<double>());
  const nlohmann::json view =
      views::ToolResultView("fusion_reason", h.sink.launch.details, receipt, false, 0, nullptr);
  CHECK_THAT(view["usage"].get<std::string>(),
             Catch::StartsWith("Estimate: ") && Catch::EndsWith(" (expected – worst case)"));

  // The run's result counts each child's requests (one each here) and splits usage by role.
  REQUIRE(h.sink.terminal.has_value());
  auto verified = store::VerifyCompletedRun(PosixFileSystem(), h.sink.launch.artifact_dir,
                                            h.sink.launch.run_id);
  REQUIRE(verified.ok());
  CHECK(verified->details["model_requests"] == 5);
  CHECK(verified->details["usage_by_role"].size() == 5);
  for (const store::AttemptRecord& a : h.DiskManifest().attempts) CHECK(a.requests == 1u);

  // A route without prices: tokens only, and the text says so.
  Harness unpriced;
  unpriced.Run();
  REQUIRE(unpriced.sink.launch.ok);
  CHECK_THAT(
      unpriced.sink.launch.receipt_text,
      Catch::Contains("6 stage(s) run on a route with no price; the dollars leave them out"));
}

TEST_CASE("RunLifecycle: a relative PI_FUSION_CHILD_WRAPPER is refused before anything exists",
          "[tasks][lifecycle]") {
  Harness h;
  h.host_env = {"PI_FUSION_CHILD_WRAPPER=scripts/wrap.sh"};
  h.Run();
  CHECK_FALSE(h.sink.launch.ok);
  CHECK(h.sink.launch.error.code() == "config_invalid");
  CHECK_THAT(h.sink.launch.receipt_text,
             Catch::Contains("PI_FUSION_CHILD_WRAPPER='scripts/wrap.sh' is not an absolute path"));
  CHECK(h.sink.launch.artifact_dir.empty());
  CHECK_FALSE(store::testing::Exists(h.dir.path() + "/.pi"));
  CHECK(h.launcher.started().empty());
}

TEST_CASE("RunLifecycle: bg_result's inline answer view is the merged answer, whatever it holds",
          "[tasks][lifecycle]") {
  Script script;
  script.merger = "# Four\n\nThe answer is four.\n(error code: none) is not an error.";
  Harness h(script);
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  Result<tasks::TaskInfo> task = h.registry.Resolve(h.sink.launch.run_id);
  REQUIRE(task.ok());
  Result<views::ResultAnswer> result =
      views::BuildResultAnswer(PosixFileSystem(), SystemClock(), *task, views::Delivery::kInline);
  REQUIRE(result.ok());
  const nlohmann::json& answer = result->details["answer"];
  REQUIRE(answer.contains("text_offset"));
  CHECK(result->text.substr(answer["text_offset"].get<size_t>()) == script.merger);
  const nlohmann::json view =
      views::ToolResultView("bg_result", result->details, result->text, false, 0);
  CHECK(view["answer"]["markdown"] == script.merger);

  // Delivered as a file, the text holds no answer and the details no offset.
  Result<views::ResultAnswer> file =
      views::BuildResultAnswer(PosixFileSystem(), SystemClock(), *task, views::Delivery::kArtifact);
  REQUIRE(file.ok());
  CHECK_FALSE(file->details["answer"].contains("text_offset"));
  CHECK(views::ToolResultView("bg_result", file->details, file->text, false,
                              0)["answer"]["markdown"] ==
        "Answer file: `" + file->details["answer"]["path"].get<std::string>() + "`");
}

TEST_CASE("RunLifecycle: each verified candidate is reported once, with the bytes of its artifact",
          "[tasks][lifecycle][landed]") {
  Harness h(Script{[](int n) { return "answer of candidate " + std::to_string(n); }});
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  REQUIRE(h.sink.landed.size() == 3);
  std::set<int> slots;
  for (const views::LandedReport& r : h.sink.landed) {
    slots.insert(r.candidate.slot);
    CHECK(r.run_id == h.sink.launch.run_id);
    CHECK(r.workflow == "reason");
    CHECK(r.label == "fusion reason");
    CHECK(r.candidate.model == "scripted/scripted-a");
    CHECK(r.candidate.elapsed_ms >= 0);
    CHECK_FALSE(r.candidate.tool_calls.has_value());  // reason candidates use no tools
    CHECK(r.candidate.artifact ==
          "candidate-" + std::to_string(r.candidate.slot) + ".attempt-1.response.md");
    auto bytes = PosixFileSystem().ReadFile(h.sink.launch.artifact_dir + "/" + r.candidate.artifact,
                                            1 << 20);
    REQUIRE(bytes.ok());
    CHECK(r.candidate.answer == *bytes);
    CHECK(r.candidate.answer.rfind("answer of candidate ", 0) == 0);
  }
  CHECK(slots == std::set<int>{1, 2, 3});
}

TEST_CASE("RunLifecycle: a failed candidate never lands", "[tasks][lifecycle][landed]") {
  Script script;
  script.failing_candidate = 1;
  script.block_others = true;
  Harness h(script);
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == run::RunEnd::kFailed);
  CHECK(h.sink.landed.empty());
}

TEST_CASE("RunLifecycle: every stage child's signs of life reach the task's progress",
          "[tasks][lifecycle][activity]") {
  Harness h;
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.launcher.watched() == 5);  // three candidates, the evaluator, the merger
  auto task = h.registry.Resolve(h.sink.launch.run_id);
  REQUIRE(task.ok());
  const int64_t wall = tasks::ToEpochMs(h.clock.WallNow());
  for (const tasks::ChildLife& life : task->progress.candidate_life) {
    CHECK(life.last_output_ms > 0);
    CHECK(life.last_output_ms <= wall);
  }
  CHECK(task->progress.evaluator_life.last_output_ms > 0);
  CHECK(task->progress.merger_life.last_output_ms > 0);
}

TEST_CASE("RunLifecycle: a run that failed after its candidates verified ends saying it resumes",
          "[tasks][lifecycle][resume]") {
  Script script;
  script.merger = "";  // the run fails at the merge: the candidates and the evaluation verified
  Harness h(script);
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  REQUIRE(h.sink.terminal->outcome.end == run::RunEnd::kFailed);
  const tasks::ResumeHint hint{h.sink.launch.run_id, {1, 2, 3}, true};
  // A tool's run: the agent reads the notice, and is told to suggest the command.
  CHECK_THAT(h.sink.terminal->text, Catch::EndsWith("\n" + views::AgentResumeText(hint)));
  // The person's view of it says the same in the person's words.
  CHECK(h.sink.terminal->view["notes"].back() == views::PersonResumeText(hint));

  // A run whose candidates failed fast has nothing to reuse: no word of resuming.
  Script fast;
  fast.failing_candidate = 2;
  fast.block_others = true;
  Harness none(fast);
  none.Run();
  REQUIRE(none.sink.terminal.has_value());
  CHECK_THAT(none.sink.terminal->text, !Catch::Contains("/fusion-resume"));
  CHECK_THAT(none.sink.terminal->view.dump(), !Catch::Contains("/fusion-resume"));
}

// Bug: when the grace window ended just as the third answer verified, progress said the third
// was "cut … answering from 2 of 3" while the run went on to use its answer.
TEST_CASE("RunLifecycle: quorum 2, a third answer that lands as it is cut is used, and said so",
          "[tasks][quorum]") {
  Script script;
  script.answers_when_cancelled = 3;
  Harness h(script);
  const std::string agent = h.dir.path() + "/agent";
  REQUIRE(::mkdir(agent.c_str(), 0700) == 0);
  store::testing::WriteAll(
      agent + "/fusion-models.json",
      R"({"schema_version":"pi-background-tasks.fusion-models.v2",)"
      R"("candidates":["$current","$current","$current"],"evaluator":"$current",)"
      R"("merger":"$current","policy":{"quorum":2,"grace_seconds":0,"max_cost_usd":null}})");
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  CHECK_FALSE(h.DiskManifest().degraded.has_value());
  std::lock_guard lock(h.sink.mu);
  bool used = false;
  for (const std::string& line : h.sink.lines) {
    INFO(line);
    CHECK(line.find(" cut: ") == std::string::npos);
    used = used ||
           line.find("answered as the grace window ended; its answer is used") != std::string::npos;
  }
  CHECK(used);
}

TEST_CASE("config: the longest grace window is the candidate stage's wall limit",
          "[tasks][quorum]") {
  const process::ChildLimits limits;
  CHECK(config::kMaxGraceSeconds == std::chrono::duration<double>(limits.wall).count());
}
