// SHA-256 helpers. Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pi_fusion {

// Lowercase hex digest of `data`.
std::string Sha256Hex(std::string_view data);
// "sha256:<hex>", the form every artifact reference uses.
std::string Sha256Ref(std::string_view data);

}  // namespace pi_fusion
