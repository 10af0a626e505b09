// Waiting for a child of ours to exit without reaping it, and saying how it ended: shared by the
// children the process layer holds outside a supervised run (WarmChild, PooledChild).
//
// Thread-compatible; no state.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "process/process_env.h"

namespace pi_fusion::process {

// Waits up to `limit` for our child `pid` to exit (through its exit watch where there is one, else
// by polling CheckExit). Leaves it unreaped. True when it exited, or when its status cannot be
// read (someone else reaped it: there is nothing left to wait for).
bool WaitForExit(ProcessEnv* env, pid_t pid, std::chrono::milliseconds limit);

// "killed by signal 9", "exited with code 1".
std::string DescribeExit(const ExitStatus& status);

}  // namespace pi_fusion::process
