// CancelRelay (src/process/cancel_relay.h): a source's cancellation reaches every target; a
// target cancelled alone leaves the source and the other targets alone.
#include "process/cancel_relay.h"

#include <poll.h>

#include <catch2/catch.hpp>

using pi_fusion::process::CancelRelay;
using pi_fusion::process::CancelToken;

namespace {

// Waits until `token` polls readable (at most 5 s); true when it did.
bool WaitCancelled(const CancelToken& token) {
  pollfd fd{token.wait_fd(), POLLIN, 0};
  return poll(&fd, 1, 5000) == 1 && token.IsCancelled();
}

}  // namespace

TEST_CASE("CancelRelay: cancelling the source cancels every target") {
  const CancelToken source = CancelToken::Create().value();
  const CancelToken a = CancelToken::Create().value(), b = CancelToken::Create().value();
  auto relay = CancelRelay::Start(source, {a, b});
  REQUIRE(relay.ok());
  CHECK_FALSE(a.IsCancelled());
  source.Cancel();
  CHECK(WaitCancelled(a));
  CHECK(WaitCancelled(b));
}

TEST_CASE(
    "CancelRelay: a target cancelled alone stays alone, and a stopped relay forwards "
    "nothing") {
  const CancelToken source = CancelToken::Create().value();
  const CancelToken a = CancelToken::Create().value(), b = CancelToken::Create().value();
  {
    auto relay = CancelRelay::Start(source, {a, b});
    REQUIRE(relay.ok());
    a.Cancel();
    CHECK_FALSE(source.IsCancelled());
    CHECK_FALSE(b.IsCancelled());
  }
  source.Cancel();
  pollfd fd{b.wait_fd(), POLLIN, 0};
  CHECK(poll(&fd, 1, 100) == 0);
  CHECK_FALSE(b.IsCancelled());
}

TEST_CASE("CancelRelay: a source that can never be cancelled needs no thread") {
  const CancelToken a = CancelToken::Create().value();
  auto relay = CancelRelay::Start(CancelToken(), {a});
  REQUIRE(relay.ok());
  CHECK_FALSE(a.IsCancelled());
}
