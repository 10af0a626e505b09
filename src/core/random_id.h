// Cryptographic randomness behind a small seam, and random hex identifiers.
//
// Run ids and the A/B/C anonymization must not be guessable or repeat, so they come from the
// kernel's CSPRNG (getrandom(2)), never from std::rand or a seeded engine. Tests substitute a
// RandomSource that returns fixed or failing bytes.
//
// Thread-safety: SystemRandom() is stateless and safe from any thread. Test sources document
// their own.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "core/error_codes.h"
#include "pi_fusion/status.h"

namespace pi_fusion {

class RandomSource {
 public:
  virtual ~RandomSource() = default;
  // Fills all of `out` or fails with kRandomUnavailable.
  virtual Status Fill(std::span<unsigned char> out) = 0;
};

// getrandom(2) from the urandom pool, blocking only until the pool is first initialized; falls
// back to reading /dev/urandom where the system call is missing (ENOSYS). Never null.
RandomSource& SystemRandom();

// `bytes` random bytes as 2*`bytes` lowercase hex digits.
Result<std::string> RandomHex(RandomSource& random, size_t bytes);

}  // namespace pi_fusion
