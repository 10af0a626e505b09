// /fusion-resume through RunLifecycle with scripted children: a resumed run reuses the old run's
// verified stages and starts only the missing children; a route no longer admitted, or a request
// that no longer normalizes, fails preflight; the picker's and the receipt's texts.
#include <unistd.h>

#include <catch2/catch.hpp>

#include "core/error_codes.h"
#include "lifecycle_harness.h"
#include "run/resume_inputs.h"
#include "store/resumability.h"
#include "store/run_id.h"
#include "views/resume_texts.h"

using namespace lifecycle_testing;

namespace {

// A run whose merger failed after the candidates and the evaluation verified; its directory.
std::string FailedAtMerger(Harness& h) {
  h.Run();
  REQUIRE(h.sink.launch.ok);
  REQUIRE(h.sink.terminal.has_value());
  REQUIRE(h.sink.terminal->outcome.end == run::RunEnd::kFailed);
  return h.sink.launch.artifact_dir;
}

// `second` resumes `first`'s run from the same project directory; `edit` changes its request more.
void ResumeIn(Harness& second, const Harness& first,
              std::function<void(run::RunRequest&)> edit = nullptr) {
  second.resume_run_dir = first.sink.launch.artifact_dir;
  const std::string cwd = first.dir.path();
  second.edit_request = [cwd, edit](run::RunRequest& request) {
    request.host.cwd = cwd;
    if (edit) edit(request);
  };
}

}  // namespace

TEST_CASE("resume: a failed merger is the only child of the resumed run", "[tasks][resume]") {
  Script failing;
  failing.failing_merger = true;
  Harness first(failing);
  FailedAtMerger(first);

  Harness second;
  ResumeIn(second, first);
  second.Run();
  REQUIRE(second.sink.launch.ok);
  CHECK(second.sink.launch.resumed_text ==
        "Resumes " + first.sink.launch.run_id +
            ": reuses candidates 1, 2 and 3 and the evaluation; runs the merger.");
  REQUIRE(second.sink.terminal.has_value());
  CHECK(second.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  CHECK(second.launcher.started() == std::vector<std::string>{"merger"});
  const store::Manifest m = second.DiskManifest();
  CHECK(m.cwd == first.dir.path());
  CHECK(m.resumed_from == first.sink.launch.run_id);
  int reused = 0;
  for (const store::AttemptRecord& a : m.attempts) reused += a.reused_from ? 1 : 0;
  CHECK(reused == 4);  // three candidates and the evaluator
  // The landed candidates say where they came from.
  std::lock_guard lock(second.sink.mu);
  REQUIRE(second.sink.landed.size() == 3);
  CHECK(second.sink.landed[0].candidate.reused_from == first.sink.launch.run_id);
}

TEST_CASE("resume: a route no longer admitted fails preflight naming its slot", "[tasks][resume]") {
  Script failing;
  failing.failing_merger = true;
  Harness first(failing);
  FailedAtMerger(first);

  Harness second;
  ResumeIn(second, first, [](run::RunRequest& request) {
    request.host.registry.models[0].id = "scripted-renamed";  // scripted-a is gone
    request.host.registry.current = request.host.registry.models[0];
  });
  second.Run();
  REQUIRE_FALSE(second.sink.launch.ok);
  CHECK(second.sink.launch.error.code() == kModelUnavailable);
  CHECK(second.sink.launch.error.message().find("Candidate 1") != std::string::npos);
  CHECK(second.sink.launch.error.message().find("admitted again for its resume") !=
        std::string::npos);
  CHECK(second.launcher.started().empty());
}

TEST_CASE("resume: a run that ran in another directory is refused", "[tasks][resume]") {
  Script failing;
  failing.failing_merger = true;
  Harness first(failing);
  const std::string old_dir = FailedAtMerger(first);
  Harness second;  // its own temp directory as cwd
  second.resume_run_dir = old_dir;
  second.edit_request = [](run::RunRequest& request) { request.host.cwd += "/elsewhere"; };
  second.Run();
  REQUIRE_FALSE(second.sink.launch.ok);
  CHECK(second.sink.launch.error.code() == kRunNotResumable);
  CHECK(second.sink.launch.error.message().find("cannot be resumed here: it ran in") !=
        std::string::npos);
}

TEST_CASE("resume: the old routes pinned, today's policy kept", "[tasks][resume]") {
  store::RunModels old;
  old.candidates = {{{"p", "a"}, {"p", "b"}, {"q", "c/d"}}};
  old.evaluator = {"p", "e"};
  old.merger = {"p", "m"};
  config::ModelsConfig current;
  current.policy.quorum = 2;
  const config::ModelsConfig pinned = run::PinnedRoutes(old, current);
  CHECK(pinned.candidates == std::array<std::string, 3>{"p/a", "p/b", "q/c/d"});
  CHECK(pinned.evaluator == "p/e");
  CHECK(pinned.merger == "p/m");
  CHECK(pinned.policy.quorum == 2);
}

TEST_CASE("resume: a canonical input that is not the old run's is refused", "[tasks][resume]") {
  store::ResumeSource source;
  source.manifest.run_id = "reason-0123456789abcdef0123456789abcdef";
  source.manifest.workflow = "reason";
  source.canonical_input =
      "{\"request\":{\"prompt\":\"x\"}, \"workflow\":\"reason\"}";  // not canonical
  CHECK(run::ResumedCanonicalInput(source).status().code() == kRunNotResumable);
  source.canonical_input = "{\"request\":{\"prompt\":\"\"},\"workflow\":\"reason\"}";
  Result<workflow::CanonicalDocument> input = run::ResumedCanonicalInput(source);
  REQUIRE(input.ok());
  const Status blank = run::ResumedRequest(source, *input).status();
  CHECK(blank.code() == kRunNotResumable);
  CHECK(blank.message().find("no longer passes today's checks") != std::string::npos);
}

TEST_CASE("resume: picker rows and the usage text", "[tasks][resume]") {
  Script failing;
  failing.failing_merger = true;
  Harness h(failing);
  h.prompt = "Why is the sky \x1b[31mblue?";
  FailedAtMerger(h);
  const std::vector<tasks::RunListing> runs = views::ResumableRuns(PosixFileSystem(), h.dir.path());
  REQUIRE(runs.size() == 1);
  const std::string row = views::ResumePickerLabel(runs[0]);
  CHECK(row.rfind(std::string(store::ShortRunId(runs[0].run_id)) +
                      " · reason · failed (child_exit_failed) · 3/3 verified · Why is the sky ",
                  0) == 0);
  CHECK(row.find('\x1b') == std::string::npos);  // a question is data, never terminal control
  CHECK(views::ResumeUsageText(runs).rfind(
            "Usage: /fusion-resume <run id or prefix>. Resumable runs here, newest first:\n  ",
            0) == 0);
  CHECK(views::ResumeUsageText({}) ==
        "Usage: /fusion-resume <run id or prefix> (no run here can be resumed)");
}

// Bug: the project check compared the paths' text, so a project opened once through a symlink
// and once by its real path refused its own runs.
TEST_CASE("resume: a project reached through a symlink is the same project", "[tasks][resume]") {
  Script failing;
  failing.failing_merger = true;
  Harness first(failing);
  FailedAtMerger(first);
  Harness second;
  ResumeIn(second, first);
  const std::string link = second.dir.path() + "/project-link";
  REQUIRE(::symlink(first.dir.path().c_str(), link.c_str()) == 0);
  second.edit_request = [link](run::RunRequest& request) { request.host.cwd = link; };
  second.Run();
  REQUIRE(second.sink.launch.ok);
  REQUIRE(second.sink.terminal.has_value());
  CHECK(second.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  CHECK(second.launcher.started() == std::vector<std::string>{"merger"});
}

// Bug: a run already resumed to completion was still offered and resumed again, paying twice for
// one answer.
TEST_CASE("resume: a run a completed run resumed is not offered or resumed again",
          "[tasks][resume]") {
  Script failing;
  failing.failing_merger = true;
  Harness first(failing);
  FailedAtMerger(first);
  REQUIRE(views::ResumableRuns(PosixFileSystem(), first.dir.path()).size() == 1);
  Harness second;
  ResumeIn(second, first);
  second.Run();
  REQUIRE(second.sink.terminal.has_value());
  REQUIRE(second.sink.terminal->outcome.end == run::RunEnd::kCompleted);

  CHECK(views::ResumableRuns(PosixFileSystem(), first.dir.path()).empty());
  for (const tasks::RunListing& run : tasks::ListRuns(PosixFileSystem(), first.dir.path())) {
    const bool old = run.run_id == first.sink.launch.run_id;
    CHECK(run.resumed_as == (old ? second.sink.launch.run_id : ""));
    CHECK_FALSE(run.Resume().has_value());
  }
  Harness third;
  ResumeIn(third, first);
  third.Run();
  REQUIRE_FALSE(third.sink.launch.ok);
  CHECK(third.sink.launch.error.code() == kRunNotResumable);
  CHECK(third.sink.launch.error.message() ==
        "run " + first.sink.launch.run_id + " cannot be resumed: it was resumed as " +
            second.sink.launch.run_id + ", which completed; read its answer with bg_result " +
            second.sink.launch.run_id);
  CHECK(third.launcher.started().empty());
}
