#include "pi_fusion/canonical_json.h"

namespace pi_fusion {

// nlohmann::json's default object type is std::map<std::string, …>, whose ordering is the
// byte-wise std::string comparison: dump() without indentation is therefore already canonical.
// Keeping the one call here makes the contract explicit and the place to change it single.
std::string CanonicalJson(const nlohmann::json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::strict);
}

size_t JsonRenderedBytes(const std::string& text) {
  const std::string quoted =
      nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return quoted.size() - 2;
}

}  // namespace pi_fusion
