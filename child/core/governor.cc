#include "child/core/governor.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "child/core/cache_policy.h"
#include "child/core/path_confinement.h"
#include "core/error_codes.h"
#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/text_digest.h"

namespace pi_fusion::child {

using nlohmann::json;
using protocol::Route;

std::string CompressionPrompt(uint64_t answer_json_bytes) {
  const std::string cap = std::to_string(kCandidateOutputMaxBytes);
  return "Your previous answer is " + std::to_string(answer_json_bytes) +
         " bytes when rendered as a JSON string, over the hard limit of " + cap +
         " JSON-rendered UTF-8 bytes. Rewrite only that answer so it fits within " + cap +
         " bytes: compress or restructure it. Do not investigate again, do not call tools and do "
         "not add new material. Keep its conclusions and the evidence they rest on, and say "
         "explicitly what you shortened or left out. Reply with the complete replacement answer "
         "only.";
}

ChildGovernor::ChildGovernor(ChildConfig config, ChildEnv* env)
    : config_(std::move(config)), env_(env) {
  if (config_.request_signal_fd >= 0) env_->KeepSignalPrivate(config_.request_signal_fd);
}

void ChildGovernor::Emit(const std::string& line) {
  if (!env_->WriteStderrLine(line).ok()) io_failed_ = true;
}

void ChildGovernor::ReportLateActivity(const std::string& what) {
  if (late_activity_reported_) return;
  late_activity_reported_ = true;
  // Not a frame: after the settlement only Pi's kind of line may appear.
  Emit("pi-fusion child: " + what +
       " after the settlement was refused (the child settled before it was finally idle)\n");
}

void ChildGovernor::Latch(std::string_view code) {
  if (!failure_code_) failure_code_ = std::string(code);
}

void ChildGovernor::EmitGuard(protocol::RuntimeGuardFrame guard) {
  Latch(guard.code);
  if (guard_emitted_) return;  // the parent rejects a second guard frame: one refusal is enough
  guard_emitted_ = true;
  guard.message = TruncateUtf8(guard.message, protocol::kMaxFrameMessageBytes);
  Emit(protocol::EncodeFrameLine(protocol::ToJson(guard)));
}

ChildGovernor::ProviderDecision ChildGovernor::RefuseRequest(std::string_view code,
                                                             const Route& route,
                                                             PayloadEvidence evidence,
                                                             std::string message) {
  protocol::RuntimeGuardFrame guard;
  guard.code = std::string(code);
  guard.hook = "before_provider_request";
  guard.route = route;
  guard.provider_request_ordinal = requests_;
  guard.tool_call_ordinal = tool_calls_;
  guard.payload_bytes = evidence.bytes;
  guard.payload_sha256 = evidence.sha256;
  guard.message = std::move(message);
  EmitGuard(std::move(guard));
  pending_observation_.reset();  // nothing was sent
  return {.abort = true, .fail_process = true, .payload = json()};
}

ChildGovernor::ProviderDecision ChildGovernor::OnProviderRequest(ProviderRequest request) {
  ++requests_;
  // After a refusal or the settlement nothing more may reach the provider; the one frame that
  // explains why was already written (or, after the settlement, none may be).
  if (settled_) ReportLateActivity("provider request " + std::to_string(requests_));
  if (settled_ || Failing()) return {.abort = true, .fail_process = true, .payload = json()};
  const Route& route = request.route;
  if (!request.payload.ok()) {
    return RefuseRequest(kChildRuntimePayloadInvalid, route, {},
                         request.payload.status().message());
  }
  json payload = std::move(request.payload).value();
  auto evidence = [](const json& value) {
    const std::string canonical = CanonicalJson(value);
    return PayloadEvidence{canonical.size(), Sha256Ref(canonical)};
  };
  Result<CachePolicy> policy = ResolveCachePolicy(config_.cache_retention);
  if (!policy.ok()) {
    return RefuseRequest(kChildCachePolicyInvalid, route, evidence(payload),
                         policy.status().message());
  }
  const PayloadEvidence original = evidence(payload);
  Result<protocol::CacheObservation> observation =
      ApplyCachePolicy(&payload, *policy, route.api, request.long_retention_allowed, requests_);
  if (!observation.ok()) {
    return RefuseRequest(kChildCachePolicyInvalid, route, original, observation.status().message());
  }
  if (requests_ > config_.max_provider_requests) {
    return RefuseRequest(kChildRuntimeLimitExceeded, route, evidence(payload),
                         "provider request " + std::to_string(requests_) +
                             " exceeds the limit of " +
                             std::to_string(config_.max_provider_requests) + " per child");
  }
  if (std::optional<ProviderDecision> refused =
          AdmitCost(request, &payload, observation->effective_retention == "long")) {
    return *refused;
  }
  pending_observation_ = *observation;
  if (requests_ == 1 && config_.request_signal_fd >= 0) {
    env_->SignalAndClose(config_.request_signal_fd);  // past start-up: the parent may warm now
  }
  return {.abort = false, .fail_process = false, .payload = std::move(payload)};
}

std::optional<ChildGovernor::ProviderDecision> ChildGovernor::AdmitCost(
    const ProviderRequest& request, json* payload, bool long_cache_writes) {
  if (!config_.cost_allowance_usd) return std::nullopt;
  // A request admitted before that left no message (stopped mid-stream) is counted at its worst.
  if (pending_worst_usd_) spent_usd_ += *std::exchange(pending_worst_usd_, std::nullopt);
  const std::string canonical = CanonicalJson(*payload);
  const PayloadEvidence evidence{canonical.size(), Sha256Ref(canonical)};
  Result<WorstCasePrices> prices = WorstCasePricesOf(request.model.cost, long_cache_writes);
  if (!prices.ok()) {
    return RefuseRequest(kCostCapExceeded, request.route, evidence, prices.status().message());
  }
  const double left = *config_.cost_allowance_usd - spent_usd_;
  const Admission admission =
      AdmitRequest(payload, request.route.api, request.model, *prices, canonical.size(), left);
  if (!admission.send) {
    return RefuseRequest(kCostCapExceeded, request.route, evidence, admission.refusal);
  }
  pending_worst_usd_ = admission.worst_case_usd;
  return std::nullopt;
}

void ChildGovernor::CountSpend(const std::string& stop_reason, const json& usage) {
  if (!config_.cost_allowance_usd) return;
  const double worst = std::exchange(pending_worst_usd_, std::nullopt).value_or(0);
  double cost = worst;
  const json* total = usage.is_object() && usage.contains("cost") && usage["cost"].is_object() &&
                              usage["cost"].contains("total")
                          ? &usage["cost"]["total"]
                          : nullptr;
  if (total != nullptr && total->is_number() && std::isfinite(total->get<double>()) &&
      total->get<double>() >= 0) {
    cost = total->get<double>();
  }
  if (stop_reason == "error" || stop_reason == "aborted") cost = std::max(cost, worst);
  spent_usd_ += cost;
}

void ChildGovernor::HandleOversized(const protocol::MetadataRecord& record,
                                    const std::vector<std::string>& text_blocks,
                                    MessageDecision* decision) {
  if (compression_started_) {
    // The one compression turn produced another oversized answer: keep it (the parent saves it
    // as the partial response) and fail; never ask again.
    Latch(kChildOutputCap);
    decision->fail_process = true;
    return;
  }
  compression_started_ = true;
  if (!env_->WriteFileDurably(config_.oversize_path, protocol::PrintedText(text_blocks)).ok()) {
    Latch(kChildOutputCap);  // the original cannot be preserved: do not replace it
    decision->fail_process = true;
    return;
  }
  oversized_ordinal_ = record.ordinal;
  decision->follow_up = CompressionPrompt(record.text.answer_json_bytes);
}

ChildGovernor::MessageDecision ChildGovernor::OnAssistantMessage(const AssistantMessage& m) {
  MessageDecision decision;
  if (settled_) {
    ReportLateActivity("an assistant message");  // no frame may follow the settlement
    decision.fail_process = true;
    return decision;
  }
  protocol::MetadataRecord record;
  record.ordinal = static_cast<int64_t>(stop_reasons_.size()) + 1;
  record.route = m.route;
  record.response_model = m.response_model;
  record.stop_reason = m.stop_reason;
  record.text = protocol::DigestTextBlocks(m.text_blocks);
  record.tool_calls = m.tool_calls;
  record.usage = m.usage;
  record.cache = std::exchange(pending_observation_, std::nullopt);
  CountSpend(m.stop_reason, m.usage);
  if (m.error_message) {
    record.error_message = TruncateUtf8(*m.error_message, protocol::kMaxFrameMessageBytes);
  }
  const bool oversized = m.stop_reason == "stop" && config_.role == Role::kCandidate &&
                         record.text.answer_json_bytes > kCandidateOutputMaxBytes;
  // The original is on disk before its frame claims it.
  if (oversized) HandleOversized(record, m.text_blocks, &decision);
  const std::string line = protocol::EncodeFrameLine(protocol::ToJson(record));
  Emit(line);
  metadata_stream_ += line;
  last_metadata_line_ = line;
  stop_reasons_.push_back(m.stop_reason);
  decision.fail_process = decision.fail_process || Failing();
  return decision;
}

Status ChildGovernor::OpenJournal() {
  if (config_.tools.empty() || journal_) return Status::Ok();
  auto journal =
      std::make_unique<ToolJournal>(config_.tool_journal_path, config_.tool_seal_path, env_);
  if (Status s = journal->Open(); !s.ok()) return s;
  journal_ = std::move(journal);
  return Status::Ok();
}

std::optional<std::string> ChildGovernor::ToolLimitCrossed() const {
  if (tool_calls_ > config_.max_tool_calls) {
    return "tool call " + std::to_string(tool_calls_) + " exceeds the limit of " +
           std::to_string(config_.max_tool_calls) + " per child";
  }
  const uint64_t result_bytes = journal_ ? journal_->result_bytes() : 0;
  if (result_bytes > config_.max_tool_result_bytes) {
    return "tool results total " + std::to_string(result_bytes) + " bytes, over the limit of " +
           std::to_string(config_.max_tool_result_bytes) + " per child";
  }
  return std::nullopt;
}

ChildGovernor::ToolDecision ChildGovernor::OnToolExecutionStart(const ToolStart& start) {
  ++tool_calls_;
  if (settled_) {
    ReportLateActivity("tool execution " + std::to_string(tool_calls_));
    return {true, "Refused: this Fusion child may not run more tools.", true, true};
  }
  if (journal_) journal_->Start(start.call_id, start.arguments);
  if (Failing()) return {true, "Refused: this Fusion child may not run more tools.", true, true};
  if (std::optional<std::string> crossed = ToolLimitCrossed()) {
    protocol::RuntimeGuardFrame guard;
    guard.code = std::string(kChildRuntimeLimitExceeded);
    guard.hook = "tool_call";
    guard.route = start.route;
    guard.provider_request_ordinal = requests_;
    guard.tool_call_ordinal = tool_calls_;
    guard.tool_name = TruncateUtf8(start.tool_name, 200);
    guard.message = *crossed;
    EmitGuard(guard);
    return {true, "Refused: " + *crossed + ". The run is stopped.", true, true};
  }
  return {};
}

ChildGovernor::ToolDecision ChildGovernor::OnToolCall(const ToolCall& call) {
  if (settled_) ReportLateActivity("tool call " + call.tool_name);
  if (settled_ || Failing()) {
    return {true, "Refused: this Fusion child may not run more tools.", true, true};
  }
  if (compression_started_) {
    // Pi removed the tools for the compression turn; a call that still arrives is refused.
    return {true, "Refused: tools are disabled while you rewrite your previous answer.", false,
            false};
  }
  const auto& tools = config_.tools;
  if (std::find(tools.begin(), tools.end(), call.tool_name) == tools.end()) {
    return {true, "Refused: this Fusion child may not use the tool \"" + call.tool_name + "\".",
            false, false};
  }
  if (config_.tool_budget && tool_calls_ > *config_.tool_budget) {
    return {true,
            "Refused: your budget of " + std::to_string(*config_.tool_budget) +
                " tool calls is spent. Do not call more tools: answer now with what you checked.",
            false, false};
  }
  if (std::optional<Status> refusal =
          RefuseToolPath(*env_, config_.wall_places, call.cwd, call.tool_name, call.input)) {
    // The journal keeps why, so the parent can count what a candidate tried.
    if (journal_) journal_->Annotate(call.call_id, {.error_code = refusal->code()});
    return {true, refusal->message(), false, false};
  }
  return {};
}

bool ChildGovernor::OnToolExecutionEnd(const std::string& call_id, const std::string& tool_name,
                                       const nlohmann::json& result_content, bool is_error) {
  if (settled_) {
    // The seal is published: nothing may be appended after it.
    ReportLateActivity("tool execution end");
    return true;
  }
  if (journal_) {
    protocol::ToolArgumentsFrame shown;
    if (journal_->Finish(call_id, tool_name, result_content, is_error, &shown).ok()) {
      Emit(protocol::EncodeFrameLine(protocol::ToJson(shown)));
    } else {
      io_failed_ = true;  // the parent can no longer verify the log
    }
  }
  return Failing();
}

void ChildGovernor::SealJournal() {
  if (!journal_ || journal_->sealed()) return;
  std::optional<std::string> code = failure_code_;
  if (!code && io_failed_) code = std::string(kChildEventInvalid);
  if (!journal_->Seal(code).ok()) io_failed_ = true;
}

protocol::SettlementFrame ChildGovernor::BuildSettlement() const {
  protocol::SettlementFrame s;
  s.failure_code = failure_code_;
  s.status = failure_code_ ? "failed" : "ok";
  s.metadata_count = static_cast<int64_t>(stop_reasons_.size());
  s.metadata_sha256 = Sha256Ref(metadata_stream_);
  if (!stop_reasons_.empty()) {
    s.final_ordinal = s.metadata_count;
    s.final_record_sha256 = Sha256Ref(last_metadata_line_);
  }
  for (size_t i = 0; i + 1 < stop_reasons_.size(); ++i) {
    if (stop_reasons_[i] == "error") s.retry_marker_ordinals.push_back(static_cast<int64_t>(i + 1));
  }
  s.oversized_original_ordinal = oversized_ordinal_;
  s.provider_requests = requests_;
  s.tool_calls = tool_calls_;
  return s;
}

bool ChildGovernor::OnSettled(bool aborted, bool idle, bool has_pending_messages) {
  if (settled_) return Failing();
  if (aborted || !idle || has_pending_messages) {
    // A latched failure (a guard's abort) ends the run here: its seal says so.
    if (Failing()) SealJournal();
    return Failing();
  }
  SealJournal();  // durable before the settlement claims the run
  settled_ = true;
  Emit(protocol::EncodeFrameLine(protocol::ToJson(BuildSettlement())));
  return Failing();
}

}  // namespace pi_fusion::child
