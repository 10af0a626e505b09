// CancelToken: a one-way, thread-safe "stop now" flag that can wake a poll loop.
//
// One token usually covers a whole run: the task registry cancels it on bg_kill or session
// shutdown (from any thread), and every supervisor running a child of that run sees it within one
// poll round, because the token's wait_fd() turns readable and stays readable. Copies share the
// same state; the descriptor lives until the last copy is destroyed.
//
// A token can have linked children (NewChild): cancelling the parent cancels every child, never
// the other way round. The candidates of one run share such a child token, so one failing
// candidate stops its siblings without cancelling the run.
//
// A cancellation may ask for a shorter stop than the child's own TERM grace (CancelWithGrace):
// quitting the host or a failed sibling must not wait the full grace.
//
// A cancellation may name its cause (who asked, in the words people read: "quitting Pi"), so the
// run can record it durably with its terminal state and every later view can say it.
//
// Thread-safety: all methods may be called concurrently from any thread. Cancel() takes one short
// mutex and writes once per token, so it never blocks for long and never allocates.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "pi_fusion/status.h"

namespace pi_fusion::process {

class CancelToken {
 public:
  // A token that is never cancelled and has no descriptor (wait_fd() == -1).
  CancelToken() = default;

  // A cancellable token backed by an eventfd (Linux) or a pipe, close-on-exec.
  // Error code "orchestration_failed" when no descriptor can be created (EMFILE).
  static Result<CancelToken> Create();

  // Marks the token cancelled and wakes every poller. Idempotent.
  // REQUIRES: the token came from Create(); on a default token it does nothing.
  void Cancel() const;
  // Cancel(), recording `cause` unless a cause was recorded before (the first one given wins, as
  // the first cancellation does). REQUIRES: `cause` is a string literal or other static text: it
  // is kept as a pointer, so Cancel stays allocation-free. nullptr records nothing.
  void Cancel(const char* cause) const;
  // Cancel(), asking every supervisor that stops a child for it to wait at most `grace` between
  // SIGTERM and SIGKILL. The shortest grace asked for wins, also when asked after the token was
  // already cancelled (a quit after a bg_kill); linked children honour their ancestors' grace.
  void CancelWithGrace(std::chrono::milliseconds grace, const char* cause = nullptr) const;

  bool IsCancelled() const;
  // The cause recorded on this token or, failing that, its nearest ancestor with one; nullptr when
  // no cancellation named one.
  const char* cause() const;
  // The shortest grace asked for by CancelWithGrace on this token or an ancestor, if any.
  std::optional<std::chrono::milliseconds> stop_grace() const;

  // A new token that is cancelled whenever this one is (now, if it already is), and can also be
  // cancelled on its own. The same errors as Create().
  Result<CancelToken> NewChild() const;

  // A descriptor that polls readable (POLLIN) once Cancel() was called; never drain it. Owned by
  // the token: do not close. -1 for a default-constructed token.
  int wait_fd() const;

 private:
  struct State;
  explicit CancelToken(std::shared_ptr<State> state) : state_(std::move(state)) {}
  // Cancels `state` and, once, its children; grace_ms < 0 asks for no grace.
  static void CancelState(const std::shared_ptr<State>& state, int64_t grace_ms);
  // Records `cause` on `state` unless one is recorded already.
  static void RecordCause(State& state, const char* cause);

  std::shared_ptr<State> state_;
};

}  // namespace pi_fusion::process
