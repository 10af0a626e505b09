// The child library's private environment.
#include <catch2/catch.hpp>

#include <map>

#include "child/core/child_config.h"

namespace pi_fusion::child {
namespace {

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST_CASE("ReadChildConfig: reads the role, the oversize path and the cache retention") {
  auto config = ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "candidate"},
                                     {"PI_FUSION_OVERSIZE_PATH", "/run/c1.response.oversized.md"},
                                     {"PI_CACHE_RETENTION", "long"}}));
  REQUIRE(config.ok());
  CHECK(config->role == Role::kCandidate);
  CHECK(config->oversize_path == "/run/c1.response.oversized.md");
  CHECK(config->cache_retention == "long");
  CHECK(config->max_provider_requests == 550);
  CHECK(config->max_tool_calls == 600);
}

TEST_CASE("ReadChildConfig: an evaluator with tools gets its budget and limit, fixed by its role") {
  const std::map<std::string, std::string> tools = {{"PI_FUSION_TOOLS", "read,grep,find,ls"},
                                                    {"PI_FUSION_TOOL_JOURNAL", "/run/j.jsonl"},
                                                    {"PI_FUSION_TOOL_SEAL", "/run/s.json"}};
  auto evaluator = tools;
  evaluator["PI_FUSION_CHILD_ROLE"] = "evaluator";
  auto config = ReadChildConfig(Env(evaluator));
  REQUIRE(config.ok());
  CHECK(config->tool_budget == protocol::kEvaluatorToolBudget);
  CHECK(config->max_tool_calls == protocol::kEvaluatorMaxToolCalls);
  auto candidate = tools;
  candidate["PI_FUSION_CHILD_ROLE"] = "candidate";
  candidate["PI_FUSION_OVERSIZE_PATH"] = "/run/o.md";
  config = ReadChildConfig(Env(candidate));
  REQUIRE(config.ok());
  CHECK_FALSE(config->tool_budget.has_value());
  CHECK(config->max_tool_calls == protocol::kMaxToolCalls);
  config = ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "evaluator"}}));
  REQUIRE(config.ok());
  CHECK_FALSE(config->tool_budget.has_value());
  CHECK(config->max_tool_calls == protocol::kMaxToolCalls);
}

TEST_CASE("ReadChildConfig: PI_FUSION_REQUEST_SIGNAL_FD is optional and a descriptor above stdio") {
  const std::map<std::string, std::string> base = {{"PI_FUSION_CHILD_ROLE", "evaluator"}};
  CHECK(ReadChildConfig(Env(base))->request_signal_fd == -1);
  auto with = base;
  with["PI_FUSION_REQUEST_SIGNAL_FD"] = "";
  CHECK(ReadChildConfig(Env(with))->request_signal_fd == -1);
  with["PI_FUSION_REQUEST_SIGNAL_FD"] = "3";
  CHECK(ReadChildConfig(Env(with))->request_signal_fd == 3);
  // A path (the retired FIFO), stdio, a sign, trailing text, a huge number: refused, named.
  for (const char* bad : {"/run/.first-requests.fifo", "2", "0", "-3", "+3", "3x", " 3", "99999"}) {
    with["PI_FUSION_REQUEST_SIGNAL_FD"] = bad;
    Result<ChildConfig> config = ReadChildConfig(Env(with));
    REQUIRE_FALSE(config.ok());
    CHECK(config.status().code() == "config_invalid");
    CHECK_THAT(config.status().message(), Catch::Contains("PI_FUSION_REQUEST_SIGNAL_FD"));
  }
}

TEST_CASE("ReadChildConfig: PI_FUSION_COST_ALLOWANCE_USD is plain decimal dollars, or unset") {
  const std::map<std::string, std::string> base = {{"PI_FUSION_CHILD_ROLE", "evaluator"}};
  CHECK_FALSE(ReadChildConfig(Env(base))->cost_allowance_usd.has_value());
  auto with = base;
  with["PI_FUSION_COST_ALLOWANCE_USD"] = "";
  CHECK_FALSE(ReadChildConfig(Env(with))->cost_allowance_usd.has_value());
  with["PI_FUSION_COST_ALLOWANCE_USD"] = "0.012500000";
  CHECK(ReadChildConfig(Env(with))->cost_allowance_usd == 0.0125);
  with["PI_FUSION_COST_ALLOWANCE_USD"] = "0.000000000";
  CHECK(ReadChildConfig(Env(with))->cost_allowance_usd == 0.0);
  // A sign, an exponent, a comma, words, two points: refused, named, never read as no cap.
  for (const char* bad : {"-1", "+1", "1e3", "0,5", "inf", "nan", "1.2.3", ".", " 1"}) {
    with["PI_FUSION_COST_ALLOWANCE_USD"] = bad;
    Result<ChildConfig> config = ReadChildConfig(Env(with));
    REQUIRE_FALSE(config.ok());
    CHECK(config.status().code() == "config_invalid");
    CHECK_THAT(config.status().message(), Catch::Contains("PI_FUSION_COST_ALLOWANCE_USD"));
  }
}

TEST_CASE("ReadChildConfig: an empty PI_CACHE_RETENTION means unset; a bad one is kept") {
  CHECK_FALSE(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "merger"}, {"PI_CACHE_RETENTION", ""}}))
                  ->cache_retention.has_value());
  // Validated per request, so the refusal is a runtime-guard frame, not a load failure.
  CHECK(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "merger"}, {"PI_CACHE_RETENTION", "x"}}))
            ->cache_retention == "x");
}

TEST_CASE("ReadChildConfig: refuses a missing or unknown role and a candidate without a path") {
  CHECK(ReadChildConfig(Env({})).status().code() == "config_invalid");
  CHECK(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "judge"}})).status().code() ==
        "config_invalid");
  CHECK_FALSE(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "candidate"}})).ok());
  CHECK_FALSE(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "candidate"},
                                   {"PI_FUSION_OVERSIZE_PATH", "relative.md"}}))
                  .ok());
  CHECK(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "evaluator"}})).ok());
}

}  // namespace
}  // namespace pi_fusion::child

namespace pi_fusion::child {
namespace {

TEST_CASE("ReadChildConfig: a tool list needs absolute journal and seal paths") {
  auto config = ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "candidate"},
                                     {"PI_FUSION_OVERSIZE_PATH", "/run/o.md"},
                                     {"PI_FUSION_TOOLS", "read,grep,find,ls"},
                                     {"PI_FUSION_TOOL_JOURNAL", "/run/c.tool-calls.jsonl"},
                                     {"PI_FUSION_TOOL_SEAL", "/run/c.seal.json"}}));
  REQUIRE(config.ok());
  CHECK(config->tools == std::vector<std::string>{"read", "grep", "find", "ls"});
  CHECK(config->tool_journal_path == "/run/c.tool-calls.jsonl");
  CHECK(config->tool_seal_path == "/run/c.seal.json");
  CHECK(config->max_tool_result_bytes == 32u * 1024 * 1024);
  CHECK(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "merger"}}))->tools.empty());
  CHECK(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "merger"},
                             {"PI_FUSION_TOOLS", "read"},
                             {"PI_FUSION_TOOL_JOURNAL", "relative.jsonl"},
                             {"PI_FUSION_TOOL_SEAL", "/run/s.json"}}))
            .status()
            .code() == "config_invalid");
  CHECK(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "merger"}, {"PI_FUSION_TOOLS", "read"}}))
            .status()
            .code() == "config_invalid");
  CHECK(ReadChildConfig(Env({{"PI_FUSION_CHILD_ROLE", "merger"},
                             {"PI_FUSION_TOOLS", "read,,ls"},
                             {"PI_FUSION_TOOL_JOURNAL", "/j"},
                             {"PI_FUSION_TOOL_SEAL", "/s"}}))
            .status()
            .code() == "config_invalid");
}

}  // namespace
}  // namespace pi_fusion::child
