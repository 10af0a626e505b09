// Whether a launched run has ended, for its launch row. Pi renders a tool result again on every
// redraw, and after `pi -c` from the session, where the launch receipt still reads "started in
// the background": the row must say how a run that has ended since ended. This Pi's registry
// answers for its own runs (a lookup under one mutex); a run of an earlier or another Pi is read
// from its run directory, once when it has ended (a terminal state is final) and at most every
// kRecheckMs while it has not, so a redraw reads no file.
//
// Not thread-safe: one instance, on the JS thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/file_system.h"
#include "tasks/task_registry.h"

namespace pi_fusion::tasks {

class LaunchedRuns {
 public:
  // How long a run directory that was not terminal is trusted before it is read again.
  static constexpr int64_t kRecheckMs = 5000;

  // The run `run_id` (directory `run_dir`) once it has ended: from `live` when this Pi knows it,
  // else from its directory (store state and owner lock, read only, like bg_status lists it).
  // nullopt while it runs, or when neither knows it.
  std::optional<TaskInfo> Ended(const TaskRegistry& live, FileSystem& fs, const std::string& run_id,
                                const std::string& run_dir, int64_t now_ms);

 private:
  struct Seen {
    std::optional<TaskInfo> ended;
    int64_t checked_ms = 0;
  };
  std::map<std::string, Seen> seen_;  // by run id
};

}  // namespace pi_fusion::tasks
