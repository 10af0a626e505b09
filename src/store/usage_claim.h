// The once-only usage claim: the first successful bg_result retrieval of a completed run attaches
// the run's usage to the session; every later retrieval, in this or any other process (a Pi
// restart included), must not attach it again.
//
// The claim is `usage-claim.json` in the run directory, created with O_CREAT|O_EXCL (mode 0600),
// so exactly one creator wins even across processes. It records what was claimed:
//   {"run_id": "...", "claimed_at": "<RFC 3339>", "usage": Usage}
// (schema: schemas/artifacts/usage-claim.json). It is not a manifest artifact: the
// manifest of a completed run is final.
//
// Crash behaviour is at-most-once: if the process dies after creating the file but before its
// bytes are durable, the run counts as claimed and its usage is never attached twice. A write
// error that the process survives removes the claim again, so a later retrieval can retry.
//
// Thread-safe.
#pragma once

#include <string>

#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "store/usage.h"
#include "store/wall_clock.h"

namespace pi_fusion::store {

// true exactly once per run directory; false once claimed. kArtifactError on I/O failure (the
// caller then reports usage as not attached).
Result<bool> ClaimUsageOnce(FileSystem& fs, const Clock& clock, const std::string& run_dir,
                            const std::string& run_id, const Usage& usage);

}  // namespace pi_fusion::store
