// Tool-argument normalization on hostile model tool calls. The input is a tool name, "\n", and
// the arguments as JSON text. Invariants: normalizing normalized arguments changes nothing, and
// the canonical text of an accepted fusion_* call is exactly the canonical JSON of its request.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "pi_fusion/canonical_json.h"
#include "schema/normalize.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pi_fusion::schema;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  if (newline == std::string_view::npos) return 0;
  const std::string_view tool = input.substr(0, newline);
  const nlohmann::json args =
      nlohmann::json::parse(input.substr(newline + 1), nullptr, /*allow_exceptions=*/false);
  if (args.is_discarded()) return 0;

  const auto normalized = NormalizeToolArguments(tool, args);
  if (normalized.ok()) {
    const auto again = NormalizeToolArguments(tool, *normalized);
    FUZZ_CHECK(again.ok() && *again == *normalized);
  }
  const auto call = NormalizeFusionCall(tool, args);
  if (call.ok()) {
    FUZZ_CHECK(call->canonical == pi_fusion::CanonicalJson(call->request));
    const auto again = NormalizeFusionCall(tool, call->request);
    FUZZ_CHECK(again.ok() && again->canonical == call->canonical);
  }
  return 0;
}
