// FUZZ_CHECK: an invariant a fuzz target asserts about the code under test. A broken invariant
// aborts with the condition and its place, so libFuzzer saves the input as a crash and the replay
// test (replay_main.cc) fails on it.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition)                                                                \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (false)
