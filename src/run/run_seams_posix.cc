#include "run/run_seams.h"

namespace pi_fusion::run {
namespace {

class PosixLauncher : public ChildLauncher {
 public:
  Result<process::ChildOutcome> Run(const process::ChildSpec& spec,
                                    const process::CancelToken& cancel) override {
    return process::RunChild(spec, cancel);
  }
  Result<process::ChildOutcome> RunWatched(const process::ChildSpec& spec,
                                           const process::CancelToken& cancel,
                                           const process::ProgressCallback& progress) override {
    return process::RunChild(spec, cancel, progress);
  }
  Result<std::unique_ptr<process::WarmChild>> Prestart(const process::ChildSpec& spec) override {
    return process::WarmChild::StartPosix(spec);
  }
};

}  // namespace

ChildLauncher& PosixChildLauncher() {
  // Stateless, so sharing one instance is not shared mutable state.
  static PosixLauncher launcher;
  return launcher;
}

}  // namespace pi_fusion::run
