// The cause of a cancellation outlives the Pi process that saw it: the run records it in its
// terminal error (run/cancel_cause.h), and a later Pi's views (bg_status, bg_result and its person
// view, `pi-fusion runs`) read it back from the run directory. A run another live Pi owns is said
// to be that Pi's, with no promise of a notification this Pi will never get.
#include <thread>

#include "lifecycle_harness.h"
#include "run/cancel_cause.h"
#include "tasks/run_catalog.h"
#include "tasks/run_lookup.h"
#include "tasks/session_runs.h"
#include "views/result_answer.h"
#include "views/status_answer.h"
#include "views/tool_result_view.h"

using namespace pi_fusion;
using namespace pi_fusion::tasks;
using namespace pi_fusion::views;
using namespace pi_fusion::host;
using namespace lifecycle_testing;
using nlohmann::json;
using store::testing::kRunId;
using store::testing::StoreFixture;

namespace {

constexpr CancelSource kSources[] = {
    CancelSource::kBgKill, CancelSource::kReload, CancelSource::kQuit,  CancelSource::kNewSession,
    CancelSource::kResume, CancelSource::kFork,   CancelSource::kSignal};

// Runs the harness's launch until its run is registered, then cancels every run as `source`
// does (the addon's CancelAllRuns goes through the registry the same way).
void CancelWhileRunning(Harness& h, CancelSource source) {
  std::thread run([&] { h.Run(); });
  while (h.registry.List().empty()) std::this_thread::sleep_for(5ms);
  h.registry.CancelAll(source);
  run.join();
}

Script BlockedCandidates() {
  Script script;
  script.block_others = true;  // every candidate waits until cancelled
  return script;
}

}  // namespace

TEST_CASE("CancelSourceOfMessage: reads back the cause a run recorded, and nothing else",
          "[tasks][cancel_cause]") {
  for (CancelSource source : kSources) {
    const std::string said = run::CancelledByMessage(CancelSourceCause(source));
    INFO(said);
    CHECK(said == CancelledText(source));
    CHECK(CancelSourceOfMessage(said) == source);
    CHECK(CancelSourceOfMessage(said + " during preflight; no child started") == source);
  }
  CHECK(CancelledText(CancelSource::kQuit) == "cancelled by quitting Pi");
  CHECK(CancelledText(CancelSource::kUnknown) == "cancelled");
  CHECK(CancelSourceCause(CancelSource::kUnknown) == nullptr);
  // Older runs and other messages have no cause.
  for (const char* other : {"child cancelled", "", "cancelled by ", "cancelled by /reloaded",
                            "cancelled by quitting Pixel", "Cancelled by quitting Pi"}) {
    INFO(other);
    CHECK(CancelSourceOfMessage(other) == CancelSource::kUnknown);
  }
}

TEST_CASE("A run cancelled by quitting Pi records why, and a later Pi's views say it",
          "[tasks][cancel_cause]") {
  Harness h(BlockedCandidates());
  CancelWhileRunning(h, CancelSource::kQuit);
  REQUIRE(h.sink.terminal.has_value());
  const std::string id = h.sink.launch.run_id;
  CHECK(h.sink.terminal->outcome.end == run::RunEnd::kCancelled);

  // Durable: the manifest's terminal error and error.json.
  const store::Manifest manifest = h.DiskManifest();
  REQUIRE(manifest.error.has_value());
  CHECK(manifest.error->code == "child_cancelled");
  CHECK(manifest.error->message == "cancelled by quitting Pi");
  const json error =
      json::parse(store::testing::ReadAll(h.sink.launch.artifact_dir + "/error.json"));
  CHECK(error["error"]["message"] == "cancelled by quitting Pi");
  // This Pi's notice says the cause once.
  CHECK_THAT(h.sink.terminal->text,
             Catch::StartsWith("fusion reason " + id +
                               " cancelled by quitting Pi\nPi cancels active runs when it quits"));

  // A later Pi: bg_result finds it on disk and says who cancelled it, in its text and its view.
  Result<std::optional<TaskInfo>> found = FindRunOnDisk(h.fs, h.clock, h.dir.path(), id);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->cancelled_by == CancelSource::kQuit);
  Result<ResultAnswer> result = BuildResultAnswer(h.fs, h.clock, **found, Delivery::kInline);
  REQUIRE(result.ok());
  CHECK_THAT(result->text, Catch::StartsWith("Fusion " + id +
                                             " (reason) cancelled by quitting Pi; no answer was "
                                             "committed.\n"));
  CHECK_THAT(result->text, !Catch::Contains("killed"));
  CHECK(result->details["state"] == "killed");  // the contract's word stays in the details
  const json person = ToolResultView("bg_result", result->details, result->text, false, 0);
  CHECK(person["state"] == "cancelled");
  CHECK(person["notes"][0] == "Cancelled by quitting Pi.");
  CHECK(person["notes"][1] == "Pi cancels active runs when it quits or reloads.");

  // bg_status in a later Pi of the same session.
  TaskRegistry later;
  const std::vector<TaskInfo> earlier =
      SessionRunsOnDisk(h.fs, h.clock, h.dir.path(), "session", 1);
  REQUIRE(earlier.size() == 1);
  const StatusAnswer status = BuildStatusAnswer(later, earlier, 0);
  CHECK(status.text == id + "  cancelled  fusion reason  (earlier Pi process; cancelled by "
                            "quitting Pi)\n");
  CHECK(status.details["tasks"][0]["state"] == "killed");
  const json rows = ToolResultView("bg_status", status.details, status.text, false, 0);
  CHECK(rows["items"][0]["status"] ==
        "cancelled (" + id + ") — earlier Pi process; cancelled by quitting Pi");

  // `pi-fusion runs`.
  const std::vector<RunListing> runs = ListRuns(h.fs, h.dir.path());
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].State() == "cancelled");
  CHECK(runs[0].CancelCause() == "quitting Pi");
}

TEST_CASE("Every cancellation source is recorded and read back", "[tasks][cancel_cause]") {
  for (CancelSource source : kSources) {
    INFO(CancelSourceText(source));
    Harness h(BlockedCandidates());
    CancelWhileRunning(h, source);
    REQUIRE(h.sink.terminal.has_value());
    CHECK(h.DiskManifest().error->message == CancelledText(source));
    CHECK(h.DiskManifest().error->cancelled_by == CancelSourceText(source));
    Result<std::optional<TaskInfo>> found =
        FindRunOnDisk(h.fs, h.clock, h.dir.path(), h.sink.launch.run_id);
    REQUIRE(found.ok());
    REQUIRE(found->has_value());
    CHECK((*found)->cancelled_by == source);
  }
}

TEST_CASE("The cause is a typed field: read from it, not from the message; a v4 manifest's message",
          "[tasks][cancel_cause]") {
  Harness h(BlockedCandidates());
  CancelWhileRunning(h, CancelSource::kBgKill);
  const std::string path = h.sink.launch.artifact_dir + "/manifest.json";
  json manifest = json::parse(store::testing::ReadAll(path));
  CHECK(manifest["schema_version"] == "pi-background-tasks.fusion-manifest.v5");
  CHECK(manifest["error"]["cancelled_by"] == "bg_kill");
  const auto cause_on_disk = [&](const json& m) {
    store::testing::WriteAll(path, m.dump());
    Result<std::optional<TaskInfo>> found =
        FindRunOnDisk(h.fs, h.clock, h.dir.path(), h.sink.launch.run_id);
    REQUIRE(found.ok());
    REQUIRE(found->has_value());
    return (*found)->cancelled_by;
  };
  // The field wins over a message that says something else.
  manifest["error"]["message"] = "cancelled by quitting Pi";
  CHECK(cause_on_disk(manifest) == CancelSource::kBgKill);
  // A v4 manifest has no field: its message is read back, as before.
  manifest["schema_version"] = "pi-background-tasks.fusion-manifest.v4";
  manifest["error"].erase("cancelled_by");
  CHECK(cause_on_disk(manifest) == CancelSource::kQuit);
}

TEST_CASE("A run cancelled in preflight records the cause too", "[tasks][cancel_cause]") {
  Harness h;
  // The addon cancels a launch still in preflight through its token, with the cause.
  h.cancel.CancelWithGrace(1s, CancelSourceCause(CancelSource::kQuit));
  h.Run();
  CHECK(h.sink.launch.error.code() == "child_cancelled");
  CHECK(h.DiskManifest().error->message ==
        "cancelled by quitting Pi during preflight; no child started");
  CHECK(h.DiskManifest().error->cancelled_by == "quitting Pi");
  CHECK(ListRuns(h.fs, h.dir.path())[0].CancelCause() == "quitting Pi");
}

TEST_CASE("A cancelled run that recorded no cause reads 'cancelled', never 'killed'",
          "[tasks][cancel_cause]") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  f.store->Fail(store::RunState::kCancelled, {"child_cancelled", "child cancelled", {}, {}, {}});
  Result<std::optional<TaskInfo>> found = FindRunOnDisk(f.fs, f.clock, f.dir.path(), kRunId);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->cancelled_by == CancelSource::kUnknown);
  Result<ResultAnswer> result = BuildResultAnswer(f.fs, f.clock, **found, Delivery::kInline);
  REQUIRE(result.ok());
  CHECK_THAT(result->text, Catch::StartsWith("Fusion " + std::string(kRunId) +
                                             " (reason) cancelled; no answer was committed.\n"));
  CHECK(ListRuns(f.fs, f.dir.path())[0].CancelCause().empty());
}

TEST_CASE("bg_result of a run another live Pi owns names that Pi and promises nothing",
          "[tasks][cancel_cause]") {
  StoreFixture f;  // its run directory is <session>-4242; the fixture holds the owner lock
  f.WalkTo(store::RunState::kCandidatesRunning);
  const std::string dir = f.store->run_dir();
  const std::string session = dir.substr(0, dir.rfind('/'));
  const std::string session_name =
      session.substr(session.rfind('/') + 1, session.size() - session.rfind('/') - 1 - 5);
  Result<std::optional<TaskInfo>> found = FindRunOnDisk(f.fs, f.clock, f.dir.path(), kRunId);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->state == TaskState::kRunning);
  CHECK((*found)->owner_pid == 4242);
  CHECK((*found)->owner_session == session_name);

  Result<ResultAnswer> result = BuildResultAnswer(f.fs, f.clock, **found, Delivery::kInline);
  REQUIRE(result.ok());
  CHECK_THAT(result->text, Catch::Contains("running in another Pi process (pid 4242, session " +
                                           session_name + "), at candidates_running"));
  CHECK_THAT(result->text, Catch::Contains("this Pi will not be"));
  CHECK_THAT(result->text, Catch::Contains(dir + "/merged.md"));
  CHECK_THAT(result->text, Catch::Contains("pi-fusion runs"));
  CHECK_THAT(result->text, !Catch::Contains("Wait for the terminal notification"));
  CHECK(result->details["state"] == "running");
  CHECK(result->details["owner"] == json{{"pid", 4242}, {"session", session_name}});

  const json person = ToolResultView("bg_result", result->details, result->text, false, 0);
  CHECK(person["state"] == "running");
  CHECK(person["status"] ==
        "running in another Pi process (pid 4242, session " + session_name + ")");
  CHECK_THAT(person.dump(), !Catch::Contains("you will be notified"));
  CHECK_THAT(person["notes"][1].get<std::string>(), Catch::Contains(dir + "/merged.md"));

  // A run of this Pi keeps its promise: it is notified.
  TaskInfo own = **found;
  own.owner_pid = 0;
  Result<ResultAnswer> mine = BuildResultAnswer(f.fs, f.clock, own, Delivery::kInline);
  REQUIRE(mine.ok());
  CHECK_THAT(mine->text, Catch::Contains("Wait for the terminal notification"));
  CHECK(ToolResultView("bg_result", mine->details, mine->text, false, 0)["status"] ==
        "still running; you will be notified when it ends");

  // bg_status in a later Pi of another process names the owner as well.
  const std::vector<TaskInfo> earlier =
      SessionRunsOnDisk(f.fs, f.clock, f.dir.path(), "session/ünïcode id", 1);
  REQUIRE(earlier.size() == 1);
  CHECK(earlier[0].terminal_text ==
        "running in another Pi process (pid 4242, session " + session_name + ")");
}

TEST_CASE("RunDirOwner: the pid and session a run directory's parent names") {
  long pid = 0;
  std::string session;
  REQUIRE(RunDirOwner("/p/.pi/fusion/abc-def-77/reason-01", &pid, &session));
  CHECK(pid == 77);
  CHECK(session == "abc-def");
  for (const char* bad : {"reason-01", "/p/.pi/fusion/abc/reason-01", "/p/fusion/abc-/reason-01",
                          "/p/.pi/fusion/-12/reason-01", "/p/.pi/fusion/a-1234567890123/r"}) {
    INFO(bad);
    CHECK_FALSE(RunDirOwner(bad, &pid, &session));
  }
}
