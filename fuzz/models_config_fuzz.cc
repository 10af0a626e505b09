// fusion-models.json parsing on hostile or damaged files. Invariants: an accepted file is a
// valid configuration, and saving it writes bytes that read back to the same configuration and
// save again to the same bytes.
#include <cstdint>
#include <string_view>

#include "config/models_config.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pi_fusion::config;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto config = ParseModelsConfig(bytes, "/agent/fusion-models.json");
  if (!config.ok()) {
    FUZZ_CHECK(!config.status().message().empty());
    return 0;
  }
  FUZZ_CHECK(ValidateModelsConfig(*config).ok());
  for (pi_fusion::Slot slot : pi_fusion::kAllSlots)
    FUZZ_CHECK(ParseSelection(slot, config->selection(slot)).ok());
  const auto saved = SerializeModelsConfig(*config);
  FUZZ_CHECK(saved.ok());
  const auto again = ParseModelsConfig(*saved, "/agent/fusion-models.json");
  FUZZ_CHECK(again.ok() && *again == *config);
  const auto saved_again = SerializeModelsConfig(*again);
  FUZZ_CHECK(saved_again.ok() && *saved_again == *saved);
  return 0;
}
