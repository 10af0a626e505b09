// source-policy.private.json: the bytes the parent writes, conformance to its closed schema, the
// reader the research child uses, and matching a requested URL against the declared ones.
#include <string>

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "url/source_policy_file.h"

namespace url = pi_fusion::url;

namespace {

const std::string kRunId = "research-0123456789abcdef0123456789abcdef";

url::SourcePolicy Policy() {
  return {kRunId,
          {"https://example.com/a?q=1", "http://[2606:4700:4700::1111]/", "https://b.example/"}};
}

}  // namespace

TEST_CASE("SourcePolicy: writes canonical JSON that matches its schema", "[url]") {
  auto bytes = url::SourcePolicyJson(Policy());
  REQUIRE(bytes.ok());
  CHECK(*bytes ==
        "{\"declared_urls\":[\"https://example.com/a?q=1\",\"http://[2606:4700:4700::1111]/\","
        "\"https://b.example/\"],\"run_id\":\"" +
            kRunId + "\",\"schema_version\":\"pi-background-tasks.fusion-source-policy.v1\"}");
  auto schema = pi_fusion::testing::LoadArtifactSchema("fusion-source-policy.v1.json");
  CHECK(pi_fusion::testing::CheckAgainstSchema(schema, nlohmann::json::parse(*bytes)).empty());
  auto back = url::ParseSourcePolicy(*bytes);
  REQUIRE(back.ok());
  CHECK(back->run_id == kRunId);
  CHECK(back->declared_urls == Policy().declared_urls);
}

TEST_CASE("SourcePolicy: refuses to write URLs that are not canonical, unique and public",
          "[url]") {
  for (const auto& urls : std::vector<std::vector<std::string>>{
           {},
           {"HTTPS://Example.com/a"},
           {"https://example.com/a", "https://example.com/a"},
           {"http://127.0.0.1/"},
           {"http://168.63.129.16/"},
       }) {
    CHECK(url::SourcePolicyJson({kRunId, urls}).status().code() == "invalid_arguments");
  }
}

TEST_CASE("SourcePolicy: the reader refuses anything but the written shape", "[url]") {
  struct Case {
    const char* bytes;
    const char* message_part;
  };
  const std::string ok_tail =
      "\"run_id\":\"" + kRunId +
      "\",\"schema_version\":\"pi-background-tasks.fusion-source-policy.v1\"}";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "source-policy.private.json is not valid JSON"},
      // Last value wins in nlohmann: the evil URL would have been silently dropped for the
      // parent while a reader of the first key sees it.
      {"{\"declared_urls\":[\"https://evil.example/\"],\"declared_urls\":[\"https://a.example/"
       "\"]," +
           ok_tail,
       "source-policy.private.json repeats the key \"declared_urls\" in one object"},
      {"[]", "not a JSON object"},
      {"{\"declared_urls\":[\"https://a.example/\"]," + ok_tail.substr(0, ok_tail.size() - 1) +
           ",\"extra\":1}",
       "unknown key \"extra\""},
      {"{\"declared_urls\":[\"https://a.example/\"],\"run_id\":\"" + kRunId +
           "\",\"schema_version\":\"pi-background-tasks.fusion-source-policy.v2\"}",
       "schema_version"},
      {"{\"declared_urls\":[\"https://a.example/"
       "\"],\"run_id\":\"reason-0123456789abcdef0123456789abcdef\","
       "\"schema_version\":\"pi-background-tasks.fusion-source-policy.v1\"}",
       "run_id"},
      {"{\"declared_urls\":\"https://a.example/\"," + ok_tail, "not an array"},
      {"{\"declared_urls\":[]," + ok_tail, "declares no URL"},
      {"{\"declared_urls\":[5]," + ok_tail, "non-string"},
      {"{\"declared_urls\":[\"https://A.example/\"]," + ok_tail,
       "declared_urls[0] is not canonical"},
      {"{\"declared_urls\":[\"http://10.0.0.1/\"]," + ok_tail, "declared_urls[0] is refused"},
      {"{\"declared_urls\":[\"https://a.example/\",\"https://a.example/\"]," + ok_tail,
       "declared_urls[1] repeats"},
  };
  for (const auto& [bytes, part] : cases) {
    INFO(bytes);
    auto parsed = url::ParseSourcePolicy(bytes);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.status().code() == "source_policy_invalid");
    CHECK_THAT(parsed.status().message(), Catch::Contains(part));
  }
}

TEST_CASE("SourcePolicy: a requested URL matches its declared canonical form only", "[url]") {
  const url::SourcePolicy policy = Policy();
  CHECK(url::MatchDeclaredUrl(policy, "HTTPS://Example.COM:443/a?q=1#frag") ==
        "https://example.com/a?q=1");
  CHECK(url::MatchDeclaredUrl(policy, "http://[2606:4700:4700:0::1111]:80/") ==
        "http://[2606:4700:4700::1111]/");
  for (const char* other :
       {"https://example.com/a", "https://example.com/a?q=2", "http://example.com/a?q=1",
        "https://b.example/x", "https://evil.example/", "http://127.0.0.1/", "not a url", ""}) {
    INFO(other);
    CHECK_FALSE(url::MatchDeclaredUrl(policy, other).has_value());
  }
}
