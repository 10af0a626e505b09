#include "workflow/canonical_document.h"

#include "pi_fusion/canonical_json.h"

namespace pi_fusion::workflow {

Result<CanonicalDocument> MakeCanonicalDocument(nlohmann::json value, std::string_view error_code,
                                                std::string_view what) {
  // CanonicalJson uses nlohmann's strict UTF-8 handling, which throws rather than guessing: a
  // host string that is not UTF-8 must fail the run loudly instead of being hashed as garbage.
  try {
    std::string bytes = CanonicalJson(value);
    return CanonicalDocument{std::move(value), std::move(bytes)};
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(
        std::string(error_code),
        std::string(what) + " cannot be serialized as canonical JSON: " + e.what());
  }
}

}  // namespace pi_fusion::workflow
