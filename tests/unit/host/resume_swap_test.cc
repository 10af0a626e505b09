// /fusion-resume --slot: the arguments, another route for a slot whose answer did not verify
// (recorded in the manifest beside the old one), a reused slot refused, and the failure texts
// and picker choices that offer it.
#include <catch2/catch.hpp>

#include "core/error_codes.h"
#include "lifecycle_harness.h"
#include "run/resume_arguments.h"
#include "run/resume_inputs.h"
#include "tasks/resume_hint.h"
#include "views/resume_texts.h"

using namespace lifecycle_testing;

namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string RefusalOf(std::string_view args) {
  Result<run::ResumeArguments> parsed = run::ParseResumeArguments(args);
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.status().code() == kInvalidArguments);
  return parsed.status().message();
}

// A second model in the registry: the route a swap names.
config::ModelInfo SecondModel(const config::ModelInfo& first) {
  config::ModelInfo other = first;
  other.id = "scripted-b";
  return other;
}

// A run whose merger failed after everything else verified, and a resume of it with `swaps`.
struct ResumedOnce {
  explicit ResumedOnce(std::vector<run::RouteSwap> swaps) : first(FailingMerger()) {
    first.Run();
    REQUIRE(first.sink.terminal.has_value());
    second.resume_run_dir = first.sink.launch.artifact_dir;
    const std::string cwd = first.dir.path();
    second.edit_request = [cwd, swaps](run::RunRequest& request) {
      request.host.cwd = cwd;
      request.host.registry.models.push_back(SecondModel(request.host.registry.models[0]));
      request.route_swaps = swaps;
    };
    second.Run();
  }
  static Script FailingMerger() {
    Script s;
    s.failing_merger = true;
    return s;
  }
  Harness first;
  Harness second;
};

}  // namespace

TEST_CASE("resume --slot: the arguments", "[tasks][resume]") {
  Result<run::ResumeArguments> plain = run::ParseResumeArguments("  1a2b3c4d ");
  REQUIRE(plain.ok());
  CHECK(plain->query == "1a2b3c4d");
  CHECK(plain->swaps.empty());

  Result<run::ResumeArguments> swapped = run::ParseResumeArguments(
      "--slot 3=local/qwen 1a2b3c4d --slot=evaluator=$current --slot candidate-1=a/b/c");
  REQUIRE(swapped.ok());
  CHECK(swapped->query == "1a2b3c4d");
  REQUIRE(swapped->swaps.size() == 3);
  CHECK(swapped->swaps[0].slot == Slot::kCandidate3);
  CHECK(swapped->swaps[0].route == "local/qwen");
  CHECK(swapped->swaps[1].slot == Slot::kEvaluator);
  CHECK(swapped->swaps[1].route == "$current");
  CHECK(swapped->swaps[2].slot == Slot::kCandidate1);
  CHECK(swapped->swaps[2].route == "a/b/c");

  CHECK(run::ParseResumeArguments("").ok());  // the picker
  CHECK(Has(RefusalOf("x --slot 4=a/b"), "--slot names 1, 2, 3, evaluator or merger, not \"4\""));
  CHECK(Has(RefusalOf("x --slot 3=qwen"), "--slot 3 needs a route as provider/model"));
  CHECK(Has(RefusalOf("x --slot 3=a/"), "needs a route as provider/model"));
  CHECK(Has(RefusalOf("x --slot 3"), "--slot takes N=provider/model"));
  CHECK(Has(RefusalOf("x --slot"), "--slot needs N=provider/model"));
  CHECK(Has(RefusalOf("x --slot 3=a/b --slot 3=a/c"), "--slot 3 is named twice"));
  CHECK(Has(RefusalOf("--slot merger=a/b"), "--slot needs the run to resume"));
  CHECK(Has(RefusalOf("x y"), "one run at a time"));
  CHECK(Has(RefusalOf("x --model a/b"), "unknown option \"--model\""));
  CHECK(Has(RefusalOf("x -s"), "Usage: /fusion-resume <run id or prefix> [--slot"));
}

TEST_CASE("resume --slot: the failed merger runs on another model, recorded beside the old",
          "[tasks][resume]") {
  ResumedOnce resumed({{Slot::kMerger, "scripted/scripted-b"}});
  REQUIRE(resumed.second.sink.launch.ok);
  CHECK(resumed.second.sink.launch.resumed_text ==
        "Resumes " + resumed.first.sink.launch.run_id +
            ": reuses candidates 1, 2 and 3 and the evaluation; runs the merger. Merger runs on "
            "scripted/scripted-b instead of scripted/scripted-a.");
  REQUIRE(resumed.second.sink.terminal.has_value());
  INFO(resumed.second.DiskManifest().error.value_or(store::RunError{}).message);
  CHECK(resumed.second.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  CHECK(resumed.second.launcher.started() == std::vector<std::string>{"merger"});
  const store::Manifest m = resumed.second.DiskManifest();
  CHECK(m.models.merger.QualifiedId() == "scripted/scripted-b");
  CHECK(m.models.evaluator.QualifiedId() == "scripted/scripted-a");  // reused: kept
  CHECK(m.config.at("route_changes") ==
        nlohmann::json::parse(R"([{"slot":"merger","from":"scripted/scripted-a",)"
                              R"("to":"scripted/scripted-b"}])"));
}

TEST_CASE("resume --slot: a slot whose verified answer is reused keeps its model",
          "[tasks][resume]") {
  ResumedOnce resumed({{Slot::kCandidate2, "scripted/scripted-b"}});
  REQUIRE_FALSE(resumed.second.sink.launch.ok);
  CHECK(resumed.second.sink.launch.error.code() == kInvalidArguments);
  const std::string message = resumed.second.sink.launch.error.message();
  CHECK(Has(message, "--slot 2: run " + resumed.first.sink.launch.run_id +
                         " reuses the verified answer of Candidate 2 with the model that wrote "
                         "it (scripted/scripted-a)"));
  CHECK(Has(message, "only a slot whose answer did not verify takes another model: merger"));
  CHECK(resumed.second.launcher.started().empty());
}

TEST_CASE("resume --slot: a resume without swaps records no route change", "[tasks][resume]") {
  ResumedOnce resumed({});
  REQUIRE(resumed.second.sink.launch.ok);
  CHECK_FALSE(resumed.second.DiskManifest().config.contains("route_changes"));
}

TEST_CASE("resume --slot: the failed route, and the texts that offer another model",
          "[tasks][resume]") {
  store::Manifest m;
  m.run_id = "reason-0123456789abcdef0123456789abcdef";
  m.error = store::RunError{kChildExitFailed, "provider said 500", Stage::kCandidate, 3, 1};
  CHECK(tasks::FailedRouteOf(m) == Slot::kCandidate3);
  m.error = store::RunError{kEvaluationInvalid, "bad JSON twice", Stage::kEvaluation, {}, 2};
  CHECK(tasks::FailedRouteOf(m) == Slot::kEvaluator);
  m.error = store::RunError{kChildStalled, "no progress", Stage::kMerge, {}, 1};
  CHECK(tasks::FailedRouteOf(m) == Slot::kMerger);
  m.error = store::RunError{kCostCapExceeded, "cap", Stage::kCandidate, 3, 1};
  CHECK_FALSE(tasks::FailedRouteOf(m).has_value());  // the cap, not the model
  m.error = store::RunError{"child_cancelled", "quit", Stage::kCandidate, 3, 1};
  CHECK_FALSE(tasks::FailedRouteOf(m).has_value());

  tasks::ResumeHint hint{m.run_id, {1, 2}, false, Slot::kCandidate3};
  const std::string person = views::PersonResumeText(hint);
  CHECK(Has(person,
            "If Candidate 3's model keeps failing, you can resume on another: "
            "/fusion-resume 01234567 --slot 3=provider/model."));
  CHECK(Has(person, "With quorum 2 (/fusion-models)"));
  CHECK(Has(views::AgentResumeText(hint), "they can resume on another"));
  hint.candidate_slots = {1};  // one verified: quorum 2 would not have helped
  CHECK_FALSE(Has(views::PersonResumeText(hint), "quorum 2"));
  hint.failed_route.reset();
  CHECK_FALSE(Has(views::PersonResumeText(hint), "--slot"));

  // The hint survives the round trip through a view's details.
  hint.failed_route = Slot::kEvaluator;
  const std::optional<tasks::ResumeHint> back =
      tasks::ResumeHintFromJson(m.run_id, tasks::ResumeHintJson(hint));
  REQUIRE(back.has_value());
  CHECK(back->failed_route == Slot::kEvaluator);
}

TEST_CASE("resume --slot: the picker's models are those admitted now", "[tasks][resume]") {
  config::RegistrySnapshot registry;
  config::ModelInfo local;
  local.provider = "local";
  local.id = "zeta";
  local.context_window = 8192;
  config::ModelInfo other = local;
  other.id = "alpha";
  config::ModelInfo api_key_frontier = local;
  api_key_frontier.provider = "anthropic";
  api_key_frontier.id = "claude-x";  // an API-key frontier route: refused
  registry.models = {local, api_key_frontier, other};
  CHECK(views::SwapChoices(registry) == std::vector<std::string>{"local/alpha", "local/zeta"});
  registry.current = other;
  CHECK(views::SwapChoices(registry) ==
        std::vector<std::string>{"$current", "local/alpha", "local/zeta"});
  CHECK(views::ResumeModelsOptions(Slot::kCandidate2) ==
        std::vector<std::string>{"Resume with the same models",
                                 "Resume with another model for Candidate 2"});
}
