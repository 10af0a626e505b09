// Drives one PooledChild for an end-to-end test (tests/e2e/run/pooled_child.test.mjs): reads a
// JSON job on stdin, starts the process, runs its tasks in order, ends it, and prints one JSON
// object per task and a last one for the end on stdout.
//
//   {"argv":[…],"env":["K=V",…],"cwd":"…","tasks":[{"task_id":"…","vars":{…},"prompt":"…",
//    "provider":"…","model":"…","thinking":"…"},…]}
//   -> {"started":…,"reusable":…,"reason":"…","pid":…,"exit_code":…,"stop_reason":"…",
//       "stdout":"…","stderr":"…","duration_ms":…}\n … {"ended":"…","tasks":N}\n
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "process/pooled_child.h"

using nlohmann::json;
using namespace pi_fusion;
using namespace pi_fusion::process;

int main() {
  const std::string input((std::istreambuf_iterator<char>(std::cin)),
                          std::istreambuf_iterator<char>());
  const json job = json::parse(input);
  ChildSpec spec;
  spec.argv = job.at("argv").get<std::vector<std::string>>();
  spec.env = job.at("env").get<std::vector<std::string>>();
  spec.cwd = job.value("cwd", "");
  Result<std::unique_ptr<PooledChild>> child = PooledChild::StartPosix(spec);
  if (!child.ok()) {
    std::cout << json{{"error", child.status().ToString()}}.dump() << "\n";
    return 1;
  }
  for (const json& t : job.at("tasks")) {
    ChildSpec task;
    task.stdin_data = t.at("prompt").get<std::string>();
    task.limits.wall = std::chrono::seconds(60);
    task.limits.idle = std::chrono::seconds(30);
    task.limits.term_grace = std::chrono::milliseconds(500);
    pooled_task::Task record{t.at("task_id").get<std::string>(),
                             t.at("vars").get<std::map<std::string, std::string>>()};
    const TaskRoute route{t.at("provider").get<std::string>(), t.at("model").get<std::string>(),
                          t.at("thinking").get<std::string>()};
    TaskResult r = (*child)->RunTask(task, record, route, CancelToken());
    const ChildOutcome& o = r.outcome;
    std::cout << json{{"started", r.started},
                      {"reusable", r.reusable},
                      {"reason", r.reason},
                      {"pid", (*child)->pid()},
                      {"exit_code", o.exit_code ? json(*o.exit_code) : json()},
                      {"term_signal", o.term_signal ? json(*o.term_signal) : json()},
                      {"stop_reason", StopReasonName(o.stop_reason)},
                      {"stdout", o.stdout_bytes},
                      {"stderr", o.stderr_bytes},
                      {"duration_ms", o.duration.count()}}
                     .dump(-1, ' ', false, json::error_handler_t::replace)
              << "\n"
              << std::flush;
    if (!r.reusable) break;
  }
  const int tasks = (*child)->tasks();
  std::cout << json{{"ended", (*child)->End()}, {"tasks", tasks}}.dump() << "\n";
  return 0;
}
