// RunSeams: the operating-system seams one Fusion run uses, in one small struct, so preflight, the
// orchestrator and the stage children can be driven by tests through fakes (a FileSystem that
// fails on the n-th write, a clock that stands still, children that answer from a script, a fixed
// random source) exactly as they run in production.
//
// Every member is a non-owning pointer that must outlive the run; the defaults are the POSIX
// implementations, which live for the whole program.
#pragma once

#include <memory>

#include "core/clock.h"
#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "process/cancel_token.h"
#include "process/supervisor.h"
#include "process/warm_child.h"
#include "workflow/anonymize.h"

namespace pi_fusion::run {

class WarmPool;

// Starts one stage child and supervises it to its end (process::RunChild in production).
// Thread-safe: the candidates of a run call it concurrently.
class ChildLauncher {
 public:
  virtual ~ChildLauncher() = default;
  virtual Result<process::ChildOutcome> Run(const process::ChildSpec& spec,
                                            const process::CancelToken& cancel) = 0;
  // Run() reporting the child's start and output to `progress` (the supervisor's callback); a
  // launcher that cannot report runs it unwatched.
  virtual Result<process::ChildOutcome> RunWatched(const process::ChildSpec& spec,
                                                   const process::CancelToken& cancel,
                                                   const process::ProgressCallback&) {
    return Run(spec, cancel);
  }
  // Starts a child ahead of its input (process::WarmChild), or returns null when this launcher
  // cannot; the stage then starts cold. The default cannot.
  virtual Result<std::unique_ptr<process::WarmChild>> Prestart(const process::ChildSpec&) {
    return std::unique_ptr<process::WarmChild>();
  }
};

// process::RunChild. Stateless; lives for the whole program.
ChildLauncher& PosixChildLauncher();

struct RunSeams {
  FileSystem* fs = &PosixFileSystem();
  const Clock* clock = &SystemClock();
  ChildLauncher* children = &PosixChildLauncher();
  RandomSource* random = &SystemRandom();
  // The host's pool of warm candidate processes (warm_pool.h), used when the run's policy sets
  // keep_warm_seconds; null: every candidate starts cold.
  WarmPool* pool = nullptr;
};

}  // namespace pi_fusion::run
