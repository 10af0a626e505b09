// Finalizing a run whose owner died.
//
// A run whose manifest is not terminal and whose owner lock is free (owner_lock.h) can never end
// on its own: its host process ended (SIGKILL, a crash, OOM) while it ran. The first later host
// that looks at it finalizes it durably as failed with code host_ended — error.json, the terminal
// manifest, one failure-summary attempt, exactly as RunStore::Fail — so every reader afterwards
// reports the truth (what finished, the usage so far) and never "running". Attempts that were
// running stay `running` in the terminal manifest: that is how the manifest says "interrupted".
//
// Two hosts finalizing at once are serialized by the owner lock itself: whoever takes it
// finalizes, the other sees it held and leaves the run alone.
//
// Thread-safe; all I/O through the FileSystem seam.
#pragma once

#include <string>

#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "store/wall_clock.h"

namespace pi_fusion::store {

// true when this call finalized the run; false when there was nothing to do (the run is
// terminal, its owner is alive, or another host is finalizing it). kArtifactError when the
// manifest cannot be read or parsed (naming the file), or when the owner is gone but the
// finalization could not be written (a read-only directory): the run is then neither running nor
// durably failed, and the caller reports that rather than "running".
Result<bool> FinalizeIfAbandoned(FileSystem& fs, const Clock& clock, const std::string& run_dir);

}  // namespace pi_fusion::store
