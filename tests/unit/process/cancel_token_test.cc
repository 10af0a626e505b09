// CancelToken: linked children, the stop grace a cancellation asks for, and its cause.
#include <poll.h>

#include <catch2/catch.hpp>

#include "process_test_util.h"

using namespace pi_fusion;
using namespace pi_fusion::process;
using namespace pi_fusion::process::testing;

namespace {

bool Readable(const CancelToken& token) {
  pollfd p{token.wait_fd(), POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0;
}

}  // namespace

TEST_CASE("CancelToken: cancelling the parent cancels its children, never the reverse") {
  Result<CancelToken> run = CancelToken::Create();
  REQUIRE(run.ok());
  Result<CancelToken> siblings = run->NewChild();
  Result<CancelToken> other = run->NewChild();
  REQUIRE(siblings.ok());
  REQUIRE(other.ok());
  siblings->Cancel();
  CHECK(siblings->IsCancelled());
  CHECK(Readable(*siblings));
  CHECK_FALSE(run->IsCancelled());
  CHECK_FALSE(other->IsCancelled());
  CHECK_FALSE(Readable(*run));
  run->Cancel();
  CHECK(run->IsCancelled());
  CHECK(other->IsCancelled());
  CHECK(Readable(*other));
}

TEST_CASE("CancelToken: a child of a cancelled token starts cancelled") {
  Result<CancelToken> run = CancelToken::Create();
  REQUIRE(run.ok());
  run->Cancel();
  Result<CancelToken> child = run->NewChild();
  REQUIRE(child.ok());
  CHECK(child->IsCancelled());
  CHECK(Readable(*child));
}

TEST_CASE("CancelToken: the first cause given is kept, and children see their ancestors'") {
  Result<CancelToken> run = CancelToken::Create();
  REQUIRE(run.ok());
  Result<CancelToken> child = run->NewChild();
  REQUIRE(child.ok());
  CHECK(run->cause() == nullptr);
  child->CancelWithGrace(300ms);  // a failed sibling names no cause
  CHECK(child->cause() == nullptr);
  run->Cancel(nullptr);
  CHECK(run->IsCancelled());
  CHECK(run->cause() == nullptr);
  run->CancelWithGrace(1000ms, "quitting Pi");  // named after a plain cancel: recorded
  CHECK(std::string(run->cause()) == "quitting Pi");
  CHECK(std::string(child->cause()) == "quitting Pi");
  run->Cancel("bg_kill");  // the first cause stays
  CHECK(std::string(run->cause()) == "quitting Pi");
  CHECK(CancelToken().cause() == nullptr);
  CancelToken().Cancel("bg_kill");  // a default token records nothing and does nothing
}

TEST_CASE("CancelToken: the shortest grace asked for wins, also through ancestors") {
  Result<CancelToken> run = CancelToken::Create();
  REQUIRE(run.ok());
  Result<CancelToken> child = run->NewChild();
  REQUIRE(child.ok());
  CHECK_FALSE(child->stop_grace().has_value());
  run->Cancel();  // a plain cancel (bg_kill) asks for no grace
  CHECK_FALSE(child->stop_grace().has_value());
  run->CancelWithGrace(1000ms);  // a quit afterwards still shortens the stop
  CHECK(child->stop_grace() == 1000ms);
  child->CancelWithGrace(2000ms);
  CHECK(child->stop_grace() == 1000ms);
  child->CancelWithGrace(300ms);
  CHECK(child->stop_grace() == 300ms);
  CHECK(run->stop_grace() == 1000ms);
}

TEST_CASE("Supervisor: a cancellation's grace shortens a SIGTERM-ignoring child's stop") {
  const auto fds = OpenFds();
  Result<CancelToken> token = CancelToken::Create();
  REQUIRE(token.ok());
  const auto fds_with_token = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.term_grace = 20s;  // the child's own grace would keep the test waiting
  const CancelToken& t = token.value();
  Result<ChildOutcome> out =
      RunChild(Misbehave({"ignore-term"}, limits), t, [&t](const ChildProgress& p) {
        if (p.stdout_size > 0) t.CancelWithGrace(100ms);  // "ready": SIG_IGN is in place
      });
  REQUIRE(out.ok());
  CHECK(out->status.code() == "child_cancelled");
  CHECK(out->term_signal == SIGKILL);
  CHECK(out->duration < 10s);
  CHECK_CHILD_CLEAN(*out, fds_with_token);
}
