// The Claude cache-retention governor on anthropic-messages payloads.
#include <catch2/catch.hpp>

#include "child/core/cache_policy.h"
#include "protocol/constants.h"

namespace pi_fusion::child {
namespace {

using nlohmann::json;

const json kShort = {{"type", "ephemeral"}};
const json kLong = {{"type", "ephemeral"}, {"ttl", "1h"}};

// The shape Pi's adapter produces (OAuth: two system blocks), all markers `cc`.
json PiPayload(const json& cc) {
  return {{"model", "m"},
          {"system",
           {{{"type", "text"}, {"text", "id"}, {"cache_control", cc}},
            {{"type", "text"}, {"text", "prompt"}, {"cache_control", cc}}}},
          {"tools", {{{"name", "a"}}, {{"name", "b"}, {"cache_control", cc}}}},
          {"messages",
           {{{"role", "user"}, {"content", {{{"type", "text"}, {"text", "q"}}}}},
            {{"role", "assistant"}, {"content", {{{"type", "text"}, {"text", "r"}}}}},
            {{"role", "user"},
             {"content", {{{"type", "text"}, {"text", "q2"}, {"cache_control", cc}}}}}}}};
}

std::vector<std::string> Markers(const json& p) {
  std::vector<std::string> out;
  if (p.contains("cache_control")) out.push_back("top:" + p["cache_control"].dump());
  for (size_t i = 0; i < p["tools"].size(); ++i) {
    if (p["tools"][i].contains("cache_control"))
      out.push_back("tool" + std::to_string(i) + ":" + p["tools"][i]["cache_control"].dump());
  }
  for (size_t i = 0; i < p["system"].size(); ++i) {
    if (p["system"][i].contains("cache_control"))
      out.push_back("system" + std::to_string(i) + ":" + p["system"][i]["cache_control"].dump());
  }
  for (size_t m = 0; m < p["messages"].size(); ++m) {
    const json& content = p["messages"][m]["content"];
    for (size_t b = 0; b < content.size(); ++b) {
      if (content[b].contains("cache_control"))
        out.push_back("msg" + std::to_string(m) + "." + std::to_string(b) + ":" +
                      content[b]["cache_control"].dump());
    }
  }
  return out;
}

protocol::CacheObservation Apply(json* payload, const std::string& requested,
                                 bool long_allowed = true, const char* api = "anthropic-messages") {
  CachePolicy policy{requested, "env"};
  auto observation = ApplyCachePolicy(payload, policy, api, long_allowed, 1);
  REQUIRE(observation.ok());
  return *observation;
}

TEST_CASE("CachePolicy: PI_CACHE_RETENTION must be exactly none, short or long") {
  CHECK(ResolveCachePolicy(std::nullopt)->requested == "short");
  CHECK(ResolveCachePolicy(std::nullopt)->source == "default");
  CHECK(ResolveCachePolicy(std::string("long"))->source == "env");
  for (const char* bad : {"lnog", "LONG", " long", "1h"}) {
    CHECK(ResolveCachePolicy(std::string(bad)).status().code() ==
          pi_fusion::kChildCachePolicyInvalid);
  }
}

TEST_CASE("CachePolicy: long puts ttl 1h on every breakpoint Pi placed") {
  json p = PiPayload(kShort);
  auto o = Apply(&p, "long");
  CHECK(o.effective_retention == "long");
  CHECK(o.breakpoints == 4);
  CHECK(Markers(p) == std::vector<std::string>{"tool1:" + kLong.dump(), "system0:" + kLong.dump(),
                                               "system1:" + kLong.dump(),
                                               "msg2.0:" + kLong.dump()});
}

TEST_CASE("CachePolicy: long falls back to short where the model's compat forbids it") {
  json p = PiPayload(kLong);
  auto o = Apply(&p, "long", /*long_allowed=*/false);
  CHECK(o.effective_retention == "short");
  CHECK(o.long_fallback);
  for (const auto& m : Markers(p)) CHECK(m.find("1h") == std::string::npos);
}

TEST_CASE("CachePolicy: short drops ttls and none drops every marker") {
  json p = PiPayload(kLong);
  CHECK(Apply(&p, "short").effective_retention == "short");
  CHECK(Markers(p).size() == 4);
  for (const auto& m : Markers(p)) CHECK(m.find("ttl") == std::string::npos);
  json q = PiPayload(kLong);
  auto o = Apply(&q, "none");
  CHECK(o.effective_retention == "none");
  CHECK(o.breakpoints == 0);
  CHECK(Markers(q).empty());
}

TEST_CASE("CachePolicy: more than four breakpoints keep system, last tool and last message") {
  json p = PiPayload(kShort);
  p["cache_control"] = kShort;                               // top level: dropped first
  p["tools"][0]["cache_control"] = kShort;                   // earlier tool
  p["messages"][0]["content"][0]["cache_control"] = kShort;  // earlier message
  p["messages"][1]["content"][0]["cache_control"] = {{"type", "ephemeral"}, {"ttl", "5m"}};
  auto o = Apply(&p, "long");
  CHECK(o.breakpoints == 4);
  CHECK(o.breakpoints_removed == 4);
  CHECK(Markers(p) == std::vector<std::string>{"tool1:" + kLong.dump(), "system1:" + kLong.dump(),
                                               "msg1.0:" + kLong.dump(), "msg2.0:" + kLong.dump()});
}

TEST_CASE("CachePolicy: markers nested in tool_result content count") {
  json p = PiPayload(kShort);
  p["messages"][2]["content"] = {
      {{"type", "tool_result"},
       {"tool_use_id", "t"},
       {"content", {{{"type", "text"}, {"text", "r"}, {"cache_control", kShort}}}}}};
  auto o = Apply(&p, "long");
  CHECK(o.breakpoints == 4);
  CHECK(p["messages"][2]["content"][0]["content"][0]["cache_control"] == kLong);
}

TEST_CASE("CachePolicy: a payload without markers (compaction) is left exactly as it was") {
  json p = {{"model", "m"}, {"messages", {{{"role", "user"}, {"content", "summarize"}}}}};
  const json before = p;
  auto o = Apply(&p, "long");
  CHECK(p == before);
  CHECK(o.source == "payload");
  CHECK(o.effective_retention == "none");
}

TEST_CASE("CachePolicy: other apis are unmanaged and untouched") {
  json p = {{"model", "m"}, {"cache_control", "anything"}};
  const json before = p;
  auto o = Apply(&p, "long", true, "openai-completions");
  CHECK(o.effective_retention == "unmanaged");
  CHECK(p == before);
}

TEST_CASE("CachePolicy: a malformed cache_control is refused") {
  for (const json& bad : {json("ephemeral"), json({{"type", "persistent"}}),
                          json({{"type", "ephemeral"}, {"ttl", "2h"}}),
                          json({{"type", "ephemeral"}, {"scope", "global"}})}) {
    json p = PiPayload(kShort);
    p["tools"][1]["cache_control"] = bad;
    auto r = ApplyCachePolicy(&p, {"long", "env"}, "anthropic-messages", true, 1);
    CHECK(r.status().code() == pi_fusion::kChildCachePolicyInvalid);
  }
}

}  // namespace
}  // namespace pi_fusion::child
