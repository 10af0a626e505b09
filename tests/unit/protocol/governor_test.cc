// The child governor: frames, limits, refusals, oversized compression and the one settlement.
#include <catch2/catch.hpp>

#include <algorithm>

#include "child/core/governor.h"
#include "protocol/constants.h"
#include "protocol/stderr_scan.h"
#include "protocol/verify.h"
#include "test_streams.h"

namespace pi_fusion::child {
namespace {

using nlohmann::json;
using testing::ScriptedChild;
using testing::Usage;
using testing::ZeroUsage;

std::vector<std::string> Schemas(const std::string& stderr_bytes) {
  std::vector<std::string> out;
  for (const auto& frame : protocol::ScanStderr(stderr_bytes).frames) out.push_back(frame.schema);
  return out;
}

int CountSchema(const std::string& stderr_bytes, std::string_view schema) {
  int n = 0;
  for (const auto& s : Schemas(stderr_bytes)) n += s == schema;
  return n;
}

std::optional<protocol::RuntimeGuardFrame> Guard(const std::string& stderr_bytes) {
  for (const auto& frame : protocol::ScanStderr(stderr_bytes).frames) {
    if (frame.schema == protocol::kRuntimeGuardSchema)
      return *protocol::ParseRuntimeGuard(frame.body);
  }
  return std::nullopt;
}

TEST_CASE("ChildGovernor: a clean run writes one metadata frame, one settlement, and verifies") {
  ScriptedChild child;
  auto request = child.Request({{"model", "m"}, {"b", 1}, {"a", 2}});
  CHECK_FALSE(request.abort);
  CHECK(request.payload == json({{"model", "m"}, {"a", 2}, {"b", 1}}));
  child.Message("stop", {"The answer."}, Usage(12, 3, 0, 0, -1, 0));
  CHECK_FALSE(child.Settle());
  CHECK(Schemas(child.env.stderr_bytes) ==
        std::vector<std::string>{std::string(protocol::kMetadataSchema),
                                 std::string(protocol::kSettlementSchema)});
  protocol::ChildReport report = protocol::VerifyChildRun(child.Verify());
  REQUIRE(report.status.ToString() == "ok");
  CHECK(report.answer == "The answer.");
  CHECK(report.records[0].usage == Usage(12, 3, 0, 0, -1, 0));
  REQUIRE(report.records[0].cache.has_value());
  CHECK(report.records[0].cache->provider_request_ordinal == 1);
}

TEST_CASE("ChildGovernor: a retry marker and tool turns are bound by the settlement") {
  ScriptedChild child;
  child.Turn("error", {}, ZeroUsage());
  child.Turn("toolUse", {}, Usage(5, 5), 2);
  child.Turn("stop", {"ok"}, Usage(6, 1));
  child.Settle();
  protocol::ChildReport report = protocol::VerifyChildRun(child.Verify());
  REQUIRE(report.status.ToString() == "ok");
  CHECK(report.retry_marker_ordinals == std::vector<int64_t>{1});
  CHECK(report.settlement->provider_requests == 3);
}

TEST_CASE("ChildGovernor: refuses provider request 551 before transport, with one guard frame") {
  ScriptedChild child;
  for (int i = 0; i < protocol::kMaxProviderRequests; ++i) {
    REQUIRE_FALSE(child.Request().abort);
  }
  auto refused = child.Request();
  CHECK(refused.abort);
  CHECK(refused.fail_process);
  auto again = child.Request();  // latched: refused silently
  CHECK(again.abort);
  REQUIRE(CountSchema(child.env.stderr_bytes, protocol::kRuntimeGuardSchema) == 1);
  auto guard = Guard(child.env.stderr_bytes);
  CHECK(guard->code == pi_fusion::kChildRuntimeLimitExceeded);
  CHECK(guard->provider_request_ordinal == 551);
  CHECK(guard->payload_bytes.has_value());
  child.Message("aborted", {}, ZeroUsage());
  CHECK(child.Settle(/*aborted=*/true));  // aborted: no settlement, the process fails
  CHECK(CountSchema(child.env.stderr_bytes, protocol::kSettlementSchema) == 0);
  CHECK(protocol::VerifyChildRun(child.Verify(1)).status.code() ==
        pi_fusion::kChildRuntimeLimitExceeded);
}

TEST_CASE("ChildGovernor: refuses tool call 601, blocks it and aborts the run") {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  for (int i = 0; i < protocol::kMaxToolCalls; ++i) {
    REQUIRE_FALSE(child.Tool("ls", {{"path", "."}}).block);
  }
  auto refused = child.Tool("ls", {{"path", "."}});
  CHECK(refused.block);
  CHECK(refused.abort);
  CHECK(refused.fail_process);
  CHECK_THAT(refused.reason, Catch::Contains("601"));
  auto guard = Guard(child.env.stderr_bytes);
  REQUIRE(guard.has_value());
  CHECK(guard->hook == "tool_call");
  CHECK(guard->tool_call_ordinal == 601);
  CHECK(guard->tool_name == "ls");
  CHECK(child.Request().abort);  // nothing more reaches the provider
}

TEST_CASE("ChildGovernor: an evaluator with tools has a budget of 12 calls, then a hard limit") {
  ScriptedChild child(Role::kEvaluator);
  child.config.tool_budget = protocol::kEvaluatorToolBudget;
  child.config.max_tool_calls = protocol::kEvaluatorMaxToolCalls;
  testing::EnableTools(child);
  for (int i = 0; i < protocol::kEvaluatorToolBudget; ++i) {
    REQUIRE_FALSE(child.Tool("ls", {{"path", "."}}).block);
  }
  // Past the budget: refused, the model told to answer; the run goes on.
  for (int i = protocol::kEvaluatorToolBudget; i < protocol::kEvaluatorMaxToolCalls; ++i) {
    auto refused = child.Tool("ls", {{"path", "."}});
    REQUIRE(refused.block);
    CHECK_FALSE(refused.abort);
    CHECK_FALSE(refused.fail_process);
    CHECK_THAT(refused.reason, Catch::Contains("budget of 12 tool calls is spent"));
  }
  CHECK_FALSE(Guard(child.env.stderr_bytes).has_value());
  CHECK_FALSE(child.Request().abort);
  // Call 25 is the evaluator's execution limit, as call 601 is a candidate's.
  auto stopped = child.Tool("ls", {{"path", "."}});
  CHECK(stopped.abort);
  CHECK(stopped.fail_process);
  CHECK_THAT(stopped.reason, Catch::Contains("tool call 25 exceeds the limit of 24"));
  REQUIRE(Guard(child.env.stderr_bytes).has_value());
}

TEST_CASE("ChildGovernor: the first provider request signals the parent once, later ones never") {
  ScriptedChild child(Role::kCandidate);
  child.config.request_signal_fd = 3;
  child.governor = std::make_unique<ChildGovernor>(child.config, &child.env);
  // At load the descriptor is only kept from the processes Pi starts for tools.
  CHECK(child.env.kept_private == std::vector<int>{3});
  CHECK(child.env.signals.empty());
  REQUIRE_FALSE(child.Request().abort);
  CHECK(child.env.signals == std::vector<int>{3});
  child.Message("toolUse", {}, Usage(10, 1), 1);
  REQUIRE_FALSE(child.Request().abort);
  CHECK(child.env.signals.size() == 1);
}

TEST_CASE(
    "ChildGovernor: without PI_FUSION_REQUEST_SIGNAL_FD, and for a refused request, no signal") {
  ScriptedChild plain;
  REQUIRE_FALSE(plain.Request().abort);
  CHECK(plain.env.signals.empty());
  CHECK(plain.env.kept_private.empty());
  ScriptedChild refused;
  refused.config.request_signal_fd = 3;
  refused.config.cache_retention = "forever";
  refused.governor = std::make_unique<ChildGovernor>(refused.config, &refused.env);
  CHECK(refused.Request().abort);
  CHECK(refused.env.signals.empty());
}

TEST_CASE("ChildGovernor: a payload that is not one JSON object is refused without evidence") {
  ScriptedChild child;
  ChildGovernor::ProviderRequest request;
  request.route = testing::kRoute;
  request.payload = Status::Error("child_runtime_payload_invalid", "cyclic");
  // Outside CHECK: Catch2 names its expression twice, which reads as a use after move.
  const bool aborted = child.governor->OnProviderRequest(std::move(request)).abort;
  CHECK(aborted);
  auto guard = Guard(child.env.stderr_bytes);
  REQUIRE(guard.has_value());
  CHECK(guard->code == pi_fusion::kChildRuntimePayloadInvalid);
  CHECK_FALSE(guard->payload_bytes.has_value());
}

TEST_CASE("ChildGovernor: a malformed PI_CACHE_RETENTION is refused on every api") {
  for (const protocol::Route& route : {testing::kRoute, testing::kAnthropicRoute}) {
    ScriptedChild child(Role::kEvaluator, route);
    child.config.cache_retention = "lnog";
    child.governor = std::make_unique<ChildGovernor>(child.config, &child.env);
    CHECK(child.Request().abort);
    auto guard = Guard(child.env.stderr_bytes);
    REQUIRE(guard.has_value());
    CHECK(guard->code == pi_fusion::kChildCachePolicyInvalid);
    CHECK_THAT(guard->message, Catch::Contains("lnog"));
  }
}

TEST_CASE("ChildGovernor: an oversized candidate answer is preserved and compressed once") {
  ScriptedChild child(Role::kCandidate);
  const std::string big(kCandidateOutputMaxBytes + 1, 'x');
  child.Request();
  auto first = child.Message("stop", {big}, Usage(10, 20000));
  REQUIRE(first.follow_up.has_value());
  CHECK_THAT(*first.follow_up, Catch::Contains("49152"));
  CHECK_FALSE(first.fail_process);
  CHECK(child.env.files.at("/run/original.md") == big + "\n");
  child.Request();
  auto second = child.Message("stop", {"short"}, Usage(30, 2));
  CHECK_FALSE(second.follow_up.has_value());
  CHECK_FALSE(child.Settle());
  protocol::ChildReport report = protocol::VerifyChildRun(child.Verify());
  REQUIRE(report.status.ToString() == "ok");
  CHECK(report.answer == "short");
  CHECK(report.oversized->ordinal == 1);
}

TEST_CASE("ChildGovernor: a second oversized answer fails as child_output_cap, no second ask") {
  ScriptedChild child(Role::kCandidate);
  const std::string big(kCandidateOutputMaxBytes + 1, 'x');
  child.Turn("stop", {big}, Usage(1, 1));
  auto second = child.Turn("stop", {big + "y"}, Usage(1, 1));
  CHECK_FALSE(second.follow_up.has_value());
  CHECK(second.fail_process);
  CHECK(child.Settle());
  CHECK(child.env.files.size() == 1);  // the original stays; stdout has the replacement
  protocol::ChildReport report = protocol::VerifyChildRun(child.Verify(1));
  CHECK(report.status.code() == pi_fusion::kChildOutputCap);
  CHECK(report.settlement->status == "failed");
}

TEST_CASE("ChildGovernor: a JSON-rendered size at the cap is not oversized") {
  ScriptedChild child(Role::kCandidate);
  // 49,151 plain bytes plus one quote rendered as \" = exactly the cap.
  const std::string exact = std::string(kCandidateOutputMaxBytes - 2, 'a') + "\"";
  CHECK_FALSE(child.Turn("stop", {exact}, Usage(1, 1)).follow_up.has_value());
  CHECK(child.Turn("stop", {exact + "b"}, Usage(1, 1)).follow_up.has_value());
}

TEST_CASE("ChildGovernor: only candidates compress; others leave caps to the parent") {
  ScriptedChild child(Role::kMerger);
  CHECK_FALSE(
      child.Turn("stop", {std::string(kCandidateOutputMaxBytes + 1, 'x')}, Usage(1, 1)).follow_up);
  CHECK(child.env.files.empty());
}

TEST_CASE("ChildGovernor: an original that cannot be preserved is never replaced") {
  ScriptedChild child(Role::kCandidate);
  child.env.fail_files = true;
  auto decision = child.Turn("stop", {std::string(kCandidateOutputMaxBytes + 1, 'x')}, Usage(1, 1));
  CHECK_FALSE(decision.follow_up.has_value());
  CHECK(decision.fail_process);
  child.Settle();
  CHECK(protocol::VerifyChildRun(child.Verify(1)).status.code() == pi_fusion::kChildOutputCap);
}

TEST_CASE("ChildGovernor: the last answer's stop reason stands in for agent_settled.aborted") {
  ScriptedChild child;
  CHECK_FALSE(child.governor->last_answer_aborted());
  child.Turn("error", {}, Usage(1, 0));
  CHECK_FALSE(child.governor->last_answer_aborted());
  child.Turn("aborted", {}, Usage(1, 0));
  CHECK(child.governor->last_answer_aborted());
  child.Turn("stop", {"a"}, Usage(1, 1));
  CHECK_FALSE(child.governor->last_answer_aborted());
}

TEST_CASE("ChildGovernor: settles once, only when idle, and nothing may follow") {
  ScriptedChild child;
  child.Turn("stop", {"a"}, Usage(1, 1));
  CHECK_FALSE(child.governor->OnSettled(false, /*idle=*/false, false));
  CHECK_FALSE(child.governor->OnSettled(false, true, /*has_pending_messages=*/true));
  CHECK(CountSchema(child.env.stderr_bytes, protocol::kSettlementSchema) == 0);
  CHECK_FALSE(child.Settle());
  CHECK_FALSE(child.Settle());
  CHECK(CountSchema(child.env.stderr_bytes, protocol::kSettlementSchema) == 1);
  const std::string before = child.env.stderr_bytes;
  // Activity after finalization fails the process and writes nothing.
  CHECK(child.governor->OnToolExecutionStart({testing::kRoute, "c1", "read", json::object()})
            .fail_process);
  CHECK(child.governor->OnToolCall({"c1", "read", json::object(), "/"}).fail_process);
  CHECK(child.Request().abort);
  CHECK(child.Message("stop", {"late"}, Usage(1, 1)).fail_process);
  // One plain diagnostic line explains the failure; no frame follows the settlement.
  const std::string after = child.env.stderr_bytes.substr(before.size());
  CHECK_THAT(after, Catch::StartsWith("pi-fusion child: tool execution 1 after the settlement"));
  CHECK(std::count(after.begin(), after.end(), '\n') == 1);
  CHECK(protocol::ScanStderr(child.env.stderr_bytes).frames.size() == 2);
}

TEST_CASE("ChildGovernor: a frame that cannot be written fails the process") {
  ScriptedChild child;
  child.env.fail_frames = true;
  CHECK(child.Turn("stop", {"a"}, Usage(1, 1)).fail_process);
  CHECK(child.Settle());
}

}  // namespace
}  // namespace pi_fusion::child

namespace pi_fusion::child {
namespace {

// A candidate with a cost allowance on a scripted route: $0.50 input, $1.50 output per million
// tokens, 16,384 output tokens at most.
void Allow(testing::ScriptedChild& child, double usd) {
  child.config.cost_allowance_usd = usd;
  child.governor = std::make_unique<ChildGovernor>(child.config, &child.env);
  child.model = {json{{"input", 0.5}, {"output", 1.5}, {"cacheRead", 0.05}, {"cacheWrite", 0.625}},
                 16384, nullptr};
}

// What the admission counts as the input of `payload`: its canonical bytes and 64 bytes of room.
int64_t InputTokens(const json& payload) {
  return static_cast<int64_t>(payload.dump().size()) + 64;
}

TEST_CASE("ChildGovernor: with an allowance, the spend so far decides each request's limit") {
  testing::ScriptedChild child(Role::kCandidate);
  Allow(child, 0.05);
  const json payload = {{"model", "m"}};
  // $0.05 pays for the model's own 16,384 output tokens: sent as Pi made it.
  auto first = child.Request(payload);
  REQUIRE_FALSE(first.abort);
  CHECK(first.payload == payload);
  child.Message("toolUse", {}, testing::Usage(30000, 10000), 1);  // $0.015 + $0.015
  CHECK(child.governor->spent_usd() == Approx(0.03));
  // $0.02 left: the output limit is lowered to what it pays for at $0.625/M input.
  auto second = child.Request(payload);
  REQUIRE_FALSE(second.abort);
  const int64_t limit = second.payload.at("max_completion_tokens").get<int64_t>();
  CHECK(limit == AffordableOutputTokens(0.05 - child.governor->spent_usd(), InputTokens(payload),
                                        {0.625, 1.5}, 16384));
  CHECK(limit < 16384);
  child.Message("toolUse", {}, testing::Usage(0, 12000), 1);  // $0.018: $0.002 left
  auto third = child.Request(payload);
  REQUIRE_FALSE(third.abort);
  CHECK(third.payload.at("max_completion_tokens").get<int64_t>() >= kMinUsefulOutputTokens);
  child.Message("toolUse", {}, testing::Usage(0, 1000), 1);  // $0.0015: $0.0005 left
  auto refused = child.Request(payload);
  CHECK(refused.abort);
  CHECK(refused.fail_process);
  auto guard = Guard(child.env.stderr_bytes);
  REQUIRE(guard.has_value());
  CHECK(guard->code == pi_fusion::kCostCapExceeded);
  CHECK(guard->hook == "before_provider_request");
  CHECK(guard->provider_request_ordinal == 4);
  CHECK(guard->message.find("left of the child's allowance, and that pays for only") !=
        std::string::npos);
  CHECK(child.Request(payload).abort);  // latched
  CHECK(CountSchema(child.env.stderr_bytes, protocol::kRuntimeGuardSchema) == 1);
  child.Message("aborted", {}, testing::ZeroUsage());
  CHECK(child.Settle(/*aborted=*/true));
  const protocol::ChildReport report = protocol::VerifyChildRun(child.Verify(1));
  CHECK(report.status.code() == pi_fusion::kCostCapExceeded);
  // What the parent records as the child's usage is what the admission counted.
  CHECK(report.usage["cost"]["total"].get<double>() == Approx(0.0495));
}

TEST_CASE("ChildGovernor: a request with no message, or a failed one, counts at its worst case") {
  testing::ScriptedChild child;
  Allow(child, 0.03);
  const json payload = {{"model", "m"}};
  const double worst = WorstCaseUsd(InputTokens(payload), 16384, {0.625, 1.5});
  REQUIRE_FALSE(child.Request(payload).abort);       // stopped mid-stream: no message
  REQUIRE_FALSE(child.Request(payload).abort);       // counts the first at its worst
  child.Message("error", {}, testing::ZeroUsage());  // a failure reports $0: its worst counts
  CHECK(child.governor->spent_usd() ==
        Approx(worst + WorstCaseUsd(InputTokens(payload),
                                    AffordableOutputTokens(0.03 - worst, InputTokens(payload),
                                                           {0.625, 1.5}, 16384),
                                    {0.625, 1.5})));
}

TEST_CASE("ChildGovernor: a capped child on a route without prices sends nothing") {
  testing::ScriptedChild child;
  Allow(child, 1.0);
  child.model.cost = nullptr;
  auto refused = child.Request();
  CHECK(refused.abort);
  auto guard = Guard(child.env.stderr_bytes);
  REQUIRE(guard.has_value());
  CHECK(guard->code == pi_fusion::kCostCapExceeded);
  CHECK(guard->message ==
        "the route's model.cost is missing, so the cost cap cannot bound what its requests cost");
}

TEST_CASE("ChildGovernor: without an allowance nothing is priced or shaped") {
  testing::ScriptedChild child;
  child.model.cost = nullptr;  // no prices, no cap: as before
  for (int i = 0; i < 3; ++i) {
    auto request = child.Request({{"model", "m"}, {"max_tokens", 99999}});
    REQUIRE_FALSE(request.abort);
    CHECK(request.payload == json({{"max_tokens", 99999}, {"model", "m"}}));
    child.Message("toolUse", {}, testing::Usage(1000000, 1000000), 1);
  }
  CHECK(child.governor->spent_usd() == 0);
}

}  // namespace
}  // namespace pi_fusion::child
