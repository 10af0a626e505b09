// Numbers as people read them. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace pi_fusion {

// Decimal digits grouped by thousands with commas: 17600 -> "17,600".
std::string GroupedDigits(uint64_t n);

}  // namespace pi_fusion
