// CancelToken: a one-way, thread-safe "stop now" flag that can wake a poll loop.
//
// One token usually covers a whole run: the task registry cancels it on bg_kill or session
// shutdown (from any thread), and every supervisor running a child of that run sees it within one
// poll round, because the token's wait_fd() turns readable and stays readable. Copies share the
// same state; the descriptor lives until the last copy is destroyed.
//
// Thread-safety: all methods may be called concurrently from any thread. Cancel() is an atomic
// exchange plus one write(2), so it neither blocks nor allocates.
#pragma once

#include <memory>
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

  bool IsCancelled() const;

  // A descriptor that polls readable (POLLIN) once Cancel() was called; never drain it. Owned by
  // the token: do not close. -1 for a default-constructed token.
  int wait_fd() const;

 private:
  struct State;
  explicit CancelToken(std::shared_ptr<State> state) : state_(std::move(state)) {}

  std::shared_ptr<State> state_;
};

}  // namespace pi_fusion::process
