#include "budget/stage_text.h"

#include "budget/budget_constants.h"

namespace pi_fusion::budget {

namespace {

std::string N(int64_t value) { return std::to_string(value); }

}  // namespace

std::string StageLabel(Role stage, int slot) {
  switch (stage) {
    case Role::kCandidate:
      return "candidate " + N(slot);
    case Role::kEvaluator:
      return "evaluation";
    case Role::kRepair:
      return "evaluation repair";
    case Role::kMerger:
      break;
  }
  return "merge";
}

std::string RouteText(const RouteCapacity& route) {
  return std::string(SlotLabel(route.spec.slot)) + " route " + route.QualifiedId();
}

std::string FormatBasisPoints(int64_t bp) {
  const int64_t frac = bp % 100;
  return N(bp / 100) + "." + (frac < 10 ? "0" : "") + N(frac) + "%";
}

std::string FormatRateX100(int64_t rate_x100) {
  const int64_t frac = rate_x100 % kRateScale;
  return N(rate_x100 / kRateScale) + "." + (frac < 10 ? "0" : "") + N(frac);
}

std::string BlockerText(const StageForecast& s, const RouteCapacity& route) {
  return "the " + s.Label() + " stage on " + RouteText(route) + " needs " +
         N(s.estimate.bytes.known()) + " UTF-8 bytes, estimated at " + N(s.input_tokens) +
         " input tokens against " + N(s.allowed_input) + " allowed (over by " +
         N(s.input_tokens - s.allowed_input) + ")";
}

std::string RepairInputText(const StageForecast& s, const RouteCapacity& route) {
  return "the conditional " + s.Label() + " stage on " + RouteText(route) +
         " does not fit its known input (" + N(s.input_tokens) + " > " + N(s.allowed_input) +
         " input tokens); it runs only if the evaluator's JSON is invalid, and would then be "
         "refused by the measured check";
}

std::string ReservationText(const StageForecast& s, const RouteCapacity& route) {
  return "the " + s.Label() + " stage on " + RouteText(route) + " fits its known input (" +
         N(s.input_tokens) + " of " + N(s.allowed_input) + " input tokens), but with " +
         N(s.reserved_output_contract_bytes) +
         " bytes reserved for upstream output the worst case is " + N(s.estimate.tokens) +
         " tokens (" + FormatBasisPoints(s.utilization_bp) +
         "); the exact prompt is measured again before launch";
}

std::string UtilizationText(const StageForecast& s, const RouteCapacity& route) {
  return "the " + s.Label() + " stage on " + RouteText(route) + " needs " + N(s.input_tokens) +
         " of " + N(s.allowed_input) + " allowed input tokens (" +
         FormatBasisPoints(s.input_utilization_bp) +
         ") before any upstream output; the exact prompt is measured again before launch";
}

std::string ShortenRequestText(int64_t request_bytes) {
  return "Shortening the request can help: every stage fits with an empty request. Shorten the "
         "request or narrow its scope (it is " +
         N(request_bytes) + " UTF-8 bytes as rendered) and retry.";
}

std::string ReduceHistoryText(int64_t history_bytes) {
  return "Shortening the request cannot help: the session history (" + N(history_bytes) +
         " UTF-8 bytes as projected) is the blocker. Start a fresh Pi conversation or run "
         "Fusion earlier in the session, or choose a larger-context model with /fusion-models.";
}

std::string LargerModelText(const StageForecast& s, const RouteCapacity& route, bool had_history) {
  return "Shortening the request cannot help: the " + s.Label() +
         " stage does not fit the context window of " + RouteText(route) + " (" +
         N(route.allowed_input) + " allowed input tokens) even with an empty request" +
         (had_history ? " and no session history" : "") + ". Choose a larger-context model for " +
         std::string(SlotLabel(route.spec.slot)) + " with /fusion-models.";
}

std::string ByteClassDiagnostic(const TokenEstimate& e) {
  if (e.rate.source == RateSource::kConservativeLowWhitespace) {
    return " The prompt is dense ASCII (white space is " + N(e.rate.whitespace_fraction_x10000) +
           " of every 10000 bytes, as in base64, minified code or hex), so its ASCII bytes were "
           "rated conservatively at " +
           FormatRateX100(e.rate.effective_x100) + " bytes/token.";
  }
  ByteClassCounts known = e.bytes;
  known.unknown_output_contract = 0;
  if (DominantByteClass(known) == ByteClass::kMultibyte) {
    return " Most of the prompt is multibyte UTF-8, rated at one token per byte.";
  }
  return "";
}

}  // namespace pi_fusion::budget
