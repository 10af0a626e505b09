#include "run/stage_watch.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "protocol/stderr_scan.h"
#include "store/artifact_ref.h"

namespace pi_fusion::run {

int64_t CountJournalLines(FileSystem& fs, const std::string& journal) {
  const size_t slash = journal.rfind('/');
  const std::string name = slash == std::string::npos ? journal : journal.substr(slash + 1);
  Result<std::string> bytes = fs.ReadFile(journal, store::ArtifactReadCap(name));
  if (!bytes.ok()) return 0;
  return std::count(bytes->begin(), bytes->end(), '\n');
}

process::ProgressCallback WatchStageChild(RunObserver& observer, const Clock& clock, FileSystem& fs,
                                          const store::AttemptKey& key, std::string journal) {
  // The journal only grows: it is counted again only when its size changed, not on every output.
  struct Counted {
    uint64_t size = 0;
    int64_t lines = 0;
    int64_t running = 0;  // from the child's last progress frame
  };
  auto counted = std::make_shared<Counted>();
  return [&observer, &clock, &fs, key, journal = std::move(journal),
          counted](const process::ChildProgress& progress) {
    // Must not throw (the supervisor's contract, thread_entry.h): a failure here only costs a sign
    // of life.
    try {
      ChildActivity activity;
      activity.stage = key.stage;
      activity.slot = key.slot;
      activity.pooled = progress.pooled;
      activity.last_output_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(clock.WallNow().time_since_epoch())
              .count();
      if (!journal.empty()) {
        if (Result<FileInfo> info = fs.Stat(journal); info.ok() && info->size != counted->size) {
          counted->size = info->size;
          counted->lines = CountJournalLines(fs, journal);
        }
        // A call in flight (a fetch waiting on a slow page) is in no journal line yet: the
        // child's progress frames say how many have started and not finished.
        if (std::optional<int64_t> running = protocol::LastToolsRunning(progress.stderr_bytes)) {
          counted->running = *running;
        }
        activity.tool_calls = counted->lines;
        activity.tools_running = counted->running;
      }
      observer.Activity(activity);
    } catch (...) {
    }
  };
}

}  // namespace pi_fusion::run
