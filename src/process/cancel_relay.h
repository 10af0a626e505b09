// CancelRelay: forwards one token's cancellation to other tokens, so that a group of children
// can be cancelled together (the run was cancelled) or one by one (a sibling's failure decided
// the run). Each child polls its own token; the relay cancels all of them when the source is.
//
// Thread-safe. The relay's thread lives from Start() until the destructor, which joins it; the
// targets stay valid and independent afterwards.
#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "pi_fusion/status.h"
#include "process/cancel_token.h"

namespace pi_fusion::process {

class CancelRelay {
 public:
  // Starts forwarding `source` to every token of `targets`. A source that can never be
  // cancelled (default-constructed) starts no thread. Errors: orchestration_failed when no
  // descriptor or thread can be created.
  static Result<std::unique_ptr<CancelRelay>> Start(const CancelToken& source,
                                                    std::vector<CancelToken> targets);
  ~CancelRelay();

  CancelRelay(const CancelRelay&) = delete;
  CancelRelay& operator=(const CancelRelay&) = delete;

 private:
  CancelRelay() = default;

  CancelToken stop_;
  std::thread thread_;
};

}  // namespace pi_fusion::process
