// Per-environment state of the host binding (Napi instance data; no globals). JS thread only.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>

namespace pi_fusion::addon {

struct AddonState {
  // The `pi` object of the live registration; empty before register() and after
  // session_shutdown, so a /reload (new `pi`, same loaded library) registers afresh while a
  // second register() with the same `pi` is a no-op.
  Napi::ObjectReference pi;
  // Counts registrations; lifecycle handlers remember theirs.
  uint64_t generation = 0;
  // Package root (the folder holding extensions/ and build/), from the loader.
  std::string package_root;
};

// REQUIRES: called on the JS thread of `env` after module init.
AddonState& State(Napi::Env env);

}  // namespace pi_fusion::addon
