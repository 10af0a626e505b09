#include <fcntl.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/eventfd.h>
#endif

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/error_codes.h"
#include "core/file_system.h"
#include "process/cancel_token.h"

namespace pi_fusion::process {

// The descriptor is never read: once written it stays readable, so any number of poll loops
// (one per child of a run) see the cancellation, now or whenever they next poll.
struct CancelToken::State {
  std::atomic<bool> cancelled{false};
  std::atomic<int64_t> grace_ms{-1};        // -1: no grace asked for
  std::atomic<const char*> cause{nullptr};  // static text; the first one given wins
  int read_fd = -1;
  int write_fd = -1;  // == read_fd for an eventfd
  std::mutex mu;
  std::vector<std::weak_ptr<State>> children;  // guarded by mu
  std::shared_ptr<State> parent;               // set once, before the token is shared

  ~State() {
    if (write_fd >= 0 && write_fd != read_fd) close(write_fd);
    if (read_fd >= 0) close(read_fd);
  }
};

Result<CancelToken> CancelToken::Create() {
  auto state = std::make_shared<State>();
#if defined(__linux__)
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    return Status::Error(kOrchestrationFailed, "eventfd for cancellation: " + ErrnoText(errno));
  }
  state->read_fd = state->write_fd = fd;
#else
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return Status::Error(kOrchestrationFailed, "pipe for cancellation: " + ErrnoText(errno));
  }
  state->read_fd = fds[0];
  state->write_fd = fds[1];
#endif
  return CancelToken(std::move(state));
}

namespace {

// Lowers the stored grace to `grace_ms` unless a shorter one is already there.
void LowerGrace(std::atomic<int64_t>& stored, int64_t grace_ms) {
  int64_t current = stored.load();
  while ((current < 0 || grace_ms < current) && !stored.compare_exchange_weak(current, grace_ms)) {
  }
}

}  // namespace

void CancelToken::CancelState(const std::shared_ptr<State>& state, int64_t grace_ms) {
  if (grace_ms >= 0) LowerGrace(state->grace_ms, grace_ms);
  std::vector<std::shared_ptr<State>> children;
  {
    std::lock_guard lock(state->mu);
    if (state->cancelled.exchange(true)) return;
    for (const auto& weak : state->children) {
      if (auto child = weak.lock()) children.push_back(std::move(child));
    }
    state->children.clear();
  }
  // Only the first Cancel() writes, so the eventfd counter or pipe can never fill up; a failed
  // write is impossible on a fresh descriptor short of EBADF, which would be our own bug.
  const uint64_t one = 1;
  ssize_t n;
  do {
    n = write(state->write_fd, &one, sizeof(one));
  } while (n < 0 && errno == EINTR);
  for (const auto& child : children) CancelState(child, -1);
}

void CancelToken::RecordCause(State& state, const char* cause) {
  const char* none = nullptr;
  if (cause != nullptr) state.cause.compare_exchange_strong(none, cause);
}

void CancelToken::Cancel() const {
  if (state_) CancelState(state_, -1);
}

void CancelToken::Cancel(const char* cause) const {
  if (!state_) return;
  RecordCause(*state_, cause);  // before the wake-up, so whoever wakes sees it
  CancelState(state_, -1);
}

void CancelToken::CancelWithGrace(std::chrono::milliseconds grace, const char* cause) const {
  if (!state_) return;
  RecordCause(*state_, cause);
  CancelState(state_, grace.count() < 0 ? 0 : grace.count());
}

const char* CancelToken::cause() const {
  for (const State* s = state_.get(); s != nullptr; s = s->parent.get()) {
    if (const char* cause = s->cause.load()) return cause;
  }
  return nullptr;
}

std::optional<std::chrono::milliseconds> CancelToken::stop_grace() const {
  // A child stops as promptly as any of its ancestors asked, even when they asked after it was
  // already cancelled.
  std::optional<std::chrono::milliseconds> shortest;
  for (const State* s = state_.get(); s != nullptr; s = s->parent.get()) {
    const int64_t ms = s->grace_ms.load();
    if (ms >= 0 && (!shortest || ms < shortest->count())) shortest = std::chrono::milliseconds(ms);
  }
  return shortest;
}

Result<CancelToken> CancelToken::NewChild() const {
  Result<CancelToken> child = Create();
  if (!child.ok() || !state_) return child;
  child->state_->parent = state_;
  bool cancel_now = false;
  {
    std::lock_guard lock(state_->mu);
    cancel_now = state_->cancelled.load();
    if (!cancel_now) state_->children.push_back(child->state_);
  }
  if (cancel_now) CancelState(child->state_, -1);
  return child;
}

bool CancelToken::IsCancelled() const { return state_ && state_->cancelled.load(); }

int CancelToken::wait_fd() const { return state_ ? state_->read_fd : -1; }

}  // namespace pi_fusion::process
