// Child frame parsing and parent-side verification on hostile child output. The input is
// stdout, NUL, stderr[, NUL, the preserved oversized original]; the same bytes are also read as
// one JSON frame. Invariants: a parsed frame prints back as the JSON it came from
// (Parse(ToJson(x)) == x), and an accepted run's answer is exactly what stdout said.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "protocol/frames.h"
#include "protocol/verify.h"

namespace {

using namespace pi_fusion::protocol;

template <typename Frame, typename Parse>
void CheckRoundTrip(const nlohmann::json& value, Parse parse) {
  const auto parsed = parse(value);
  if (!parsed.ok()) return;
  const nlohmann::json printed = ToJson(*parsed);
  const auto again = parse(printed);
  FUZZ_CHECK(again.ok() && *again == *parsed);
  EncodeFrameLine(printed);
}

void FuzzOneFrame(std::string_view input) {
  const nlohmann::json value = nlohmann::json::parse(input, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return;
  CheckRoundTrip<CacheObservation>(value, ParseCacheObservation);
  CheckRoundTrip<MetadataRecord>(value, ParseMetadataRecord);
  CheckRoundTrip<RuntimeGuardFrame>(value, ParseRuntimeGuard);
  CheckRoundTrip<SettlementFrame>(value, ParseSettlement);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  FuzzOneFrame(input);

  VerifyRequest request;
  request.provider = "scripted";
  request.model = "scripted-a";
  request.exit.exit_code = 0;
  const size_t first = input.find('\0');
  request.stdout_bytes = input.substr(0, first);
  if (first != std::string_view::npos) {
    const std::string_view rest = input.substr(first + 1);
    const size_t second = rest.find('\0');
    request.stderr_bytes = rest.substr(0, second);
    if (second != std::string_view::npos)
      request.oversized_original = std::string(rest.substr(second + 1));
  }
  const ChildReport report = VerifyChildRun(request);
  if (report.ok()) {
    FUZZ_CHECK(request.stdout_bytes.substr(0, report.answer.size()) == report.answer);
    FUZZ_CHECK(report.settlement.has_value());
  }
  return 0;
}
