// Where an exception from the layers below stops in a run. An exception escaping a std::thread
// ends the host, so each thread a run works on catches at one place, its entry, and turns what it
// caught into what that thread reports:
//   the run's own thread     Execute (orchestrator.h): the run's durable terminal state, an
//                            internal error (FailAfterException, run_failure.h)
//   candidate and reviewer   RunOrReuse (run_reuse.h): the stage's internal error, which the
//   threads                  quorum or the minority rule then judges like any failed child
//   a child's supervisor     ChildJob::Supervise (child_job.h): the child's orchestration_failed
//   the warm-stage watcher   WarmStages::Watch (warm_stages.h): the stages start cold
// A child's signs of life (stage_watch.h) catch as well: the supervisor requires its callbacks not
// to throw. The run's own thread has a last line outside the run layer (the task's worker).
//
// Header only; thread-safe.
#pragma once

#include <exception>
#include <string>

#include "core/json_text.h"

namespace pi_fusion::run {

// body(), or on_exception(what) when an exception escapes it: `what` is the exception's text
// (ExceptionText), or "unknown exception".
template <typename Body, typename OnException>
auto CatchAtThreadEntry(Body&& body, OnException&& on_exception) -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception& e) {
    return on_exception(ExceptionText(e));
  } catch (...) {
    return on_exception(std::string("unknown exception"));
  }
}

}  // namespace pi_fusion::run
