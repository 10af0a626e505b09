#include "schema/normalize.h"
#include "schema/fusion_rules.h"

#include <catch2/catch.hpp>

using nlohmann::json;
using pi_fusion::schema::NormalizeFusionCall;

namespace {

struct Case {
  const char* name;
  const char* tool;
  const char* args;
  const char* code;      // expected error code, or nullptr for success
  const char* expected;  // expected message, or expected canonical JSON on success
};

void RunCases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    INFO(c.name << ": " << c.args);
    auto result = NormalizeFusionCall(c.tool, json::parse(c.args));
    if (c.code == nullptr) {
      REQUIRE(result.ok());
      CHECK(result->canonical == c.expected);
    } else {
      REQUIRE_FALSE(result.ok());
      CHECK(result.status().code() == c.code);
      CHECK(result.status().message() == c.expected);
    }
  }
}

constexpr char kBad[] = "invalid_arguments";

}  // namespace

TEST_CASE("Normalize fusion_reason", "[schema]") {
  RunCases({
      {"trims", "fusion_reason", R"({"prompt":"  why?\n"})", nullptr, R"({"prompt":"why?"})"},
      {"extra key", "fusion_reason", R"({"prompt":"x","mode":"fast"})", kBad,
       "fusion_reason contains unsupported key(s): mode"},
      {"two extra keys sorted", "fusion_reason", R"({"prompt":"x","zeta":1,"model":"m"})", kBad,
       "fusion_reason contains unsupported key(s): model, zeta"},
      {"missing", "fusion_reason", R"({})", kBad, "fusion_reason missing required key(s): prompt"},
      {"blank", "fusion_reason", R"({"prompt":""})", kBad, "prompt must not be blank"},
      {"whitespace only", "fusion_reason", R"({"prompt":" \t\n "})", kBad,
       "prompt must not be blank"},
      {"nbsp only", "fusion_reason", "{\"prompt\":\"\xc2\xa0\"}", kBad, "prompt must not be blank"},
      {"wrong type", "fusion_reason", R"({"prompt":["a"]})", kBad, "prompt must be a string"},
  });
}

TEST_CASE("Normalize fusion_investigate", "[schema]") {
  RunCases({
      {"optional arrays become []", "fusion_investigate",
       R"({"objective":" o ","background":[" b1 ","b2"],"deliverable":"d"})", nullptr,
       R"({"background":["b1","b2"],"constraints":[],"deliverable":"d","objective":"o","scope":[]})"},
      {"background may be empty", "fusion_investigate",
       R"({"objective":"o","background":[],"deliverable":"d","scope":["src/ "]})", nullptr,
       R"({"background":[],"constraints":[],"deliverable":"d","objective":"o","scope":["src/"]})"},
      {"blank array item", "fusion_investigate",
       R"({"objective":"o","background":["ok","  "],"deliverable":"d"})", kBad,
       "background[1] must not be blank"},
      {"missing keys in schema order", "fusion_investigate", R"({"objective":"o"})", kBad,
       "fusion_investigate missing required key(s): background, deliverable"},
      {"unsupported before missing", "fusion_investigate", R"({"prompt":"p"})", kBad,
       "fusion_investigate contains unsupported key(s): prompt"},
      {"blank optional item", "fusion_investigate",
       R"({"objective":"o","background":[],"deliverable":"d","constraints":["\n"]})", kBad,
       "constraints[0] must not be blank"},
  });
}

TEST_CASE("Normalize fusion_validate", "[schema]") {
  const std::string base =
      R"("objective":"o","background":[],"changeSummary":"c","scope":["s"],"acceptanceCriteria":["a"])";
  auto args = [&](const std::string& verification, const std::string& extra = "") {
    return "{" + base + ",\"verification\":" + verification + extra + "}";
  };
  const std::string provided =
      args(R"({"status":"provided","evidence":[{"check":" make ","outcome":"ok"}]})");
  const std::string not_run = args(R"({"status":"not_run","reason":" no time "})");
  const std::string both =
      args(R"({"status":"provided","evidence":[{"check":"c","outcome":"o"}],"reason":"r"})");
  const std::string provided_empty = args(R"({"status":"provided","evidence":[]})");
  const std::string provided_none = args(R"({"status":"provided"})");
  const std::string not_run_none = args(R"({"status":"not_run"})");
  const std::string not_run_evidence =
      args(R"({"status":"not_run","reason":"r","evidence":[{"check":"c","outcome":"o"}]})");
  const std::string not_run_empty_evidence =
      args(R"({"status":"not_run","reason":"r","evidence":[]})");
  const std::string bad_status = args(R"({"status":"maybe"})");
  const std::string empty_scope =
      R"({"objective":"o","background":[],"changeSummary":"c","scope":[],"acceptanceCriteria":["a"],"verification":{"status":"not_run","reason":"r"}})";
  const std::string with_prompt =
      args(R"({"status":"not_run","reason":"r"})", R"(,"prompt":"review it")");
  const std::string evidence_extra =
      args(R"({"status":"provided","evidence":[{"check":"c","outcome":"o","x":1}]})");
  RunCases({
      {"provided", "fusion_validate", provided.c_str(), nullptr,
       R"({"acceptanceCriteria":["a"],"background":[],"changeSummary":"c","exclusions":[],"knownLimitations":[],"objective":"o","scope":["s"],"verification":{"evidence":[{"check":"make","outcome":"ok"}],"status":"provided"}})"},
      {"not_run gets evidence []", "fusion_validate", not_run.c_str(), nullptr,
       R"({"acceptanceCriteria":["a"],"background":[],"changeSummary":"c","exclusions":[],"knownLimitations":[],"objective":"o","scope":["s"],"verification":{"evidence":[],"reason":"no time","status":"not_run"}})"},
      {"not_run with empty evidence", "fusion_validate", not_run_empty_evidence.c_str(), nullptr,
       R"({"acceptanceCriteria":["a"],"background":[],"changeSummary":"c","exclusions":[],"knownLimitations":[],"objective":"o","scope":["s"],"verification":{"evidence":[],"reason":"r","status":"not_run"}})"},
      {"provided with reason", "fusion_validate", both.c_str(), kBad,
       "verification.reason is not allowed when verification.status is \"provided\""},
      {"provided, empty evidence", "fusion_validate", provided_empty.c_str(), kBad,
       "verification.evidence must not be empty when verification.status is \"provided\""},
      {"provided, no evidence", "fusion_validate", provided_none.c_str(), kBad,
       "verification.evidence must not be empty when verification.status is \"provided\""},
      {"not_run, no reason", "fusion_validate", not_run_none.c_str(), kBad,
       "verification.reason is required when verification.status is \"not_run\""},
      {"not_run with evidence", "fusion_validate", not_run_evidence.c_str(), kBad,
       "verification.evidence must be empty when verification.status is \"not_run\""},
      {"bad status", "fusion_validate", bad_status.c_str(), kBad,
       "verification.status must be one of: provided, not_run"},
      {"scope must not be empty", "fusion_validate", empty_scope.c_str(), kBad,
       "scope must not be empty"},
      {"prompt migration", "fusion_validate", with_prompt.c_str(), kBad,
       pi_fusion::schema::kValidatePromptMigration},
      {"closed evidence items", "fusion_validate", evidence_extra.c_str(), kBad,
       "verification.evidence[0] contains unsupported key(s): x"},
  });
}

TEST_CASE("Normalize fusion_research: declared sources", "[schema]") {
  auto args = [](const std::string& sources) {
    return R"({"objective":"o","background":[],"deliverable":"d","sources":)" + sources + "}";
  };
  const std::string vector_case =
      args(R"([{"url":"HTTPS://Example.COM:443/a?q=1#frag","purpose":" p "}])");
  const std::string dup = args(
      R"([{"url":"https://example.com/a","purpose":"p"},{"url":"https://b.example/","purpose":"p"},{"url":"HTTPS://EXAMPLE.com:443/a#x","purpose":"p"}])");
  const std::string creds = args(R"([{"url":"https://user:secret@example.com/","purpose":"p"}])");
  const std::string loopback = args(R"([{"url":"http://127.0.0.1/","purpose":"p"}])");
  const std::string nat64 = args(R"([{"url":"http://[64:ff9b::a00:1]/","purpose":"p"}])");
  const std::string azure = args(R"([{"url":"http://168.63.129.16/x","purpose":"p"}])");
  const std::string scheme = args(R"([{"url":"ftp://example.com/","purpose":"p"}])");
  const std::string none = args(R"([])");
  const std::string blank_purpose = args(R"([{"url":"https://example.com/","purpose":" "}])");
  RunCases({
      {"canonical vector", "fusion_research", vector_case.c_str(), nullptr,
       R"({"background":[],"constraints":[],"deliverable":"d","objective":"o","scope":[],"sources":[{"purpose":"p","url":"https://example.com/a?q=1"}]})"},
      {"duplicate after canonicalization", "fusion_research", dup.c_str(), kBad,
       "sources[2].url duplicates canonical URL from sources[0]: https://example.com/a"},
      {"no sources", "fusion_research", none.c_str(), kBad, "sources must not be empty"},
      {"blank purpose", "fusion_research", blank_purpose.c_str(), kBad,
       "sources[0].purpose must not be blank"},
  });
  struct Refusal {
    std::string args, code;
  };
  for (const Refusal& r : {Refusal{creds, "invalid_url"}, Refusal{loopback, "blocked_address"},
                           Refusal{nat64, "blocked_address"}, Refusal{azure, "blocked_address"},
                           Refusal{scheme, "unsupported_scheme"}}) {
    INFO(r.args);
    auto result = NormalizeFusionCall("fusion_research", json::parse(r.args));
    REQUIRE_FALSE(result.ok());
    CHECK(result.status().code() == r.code);
    CHECK(result.status().message().rfind("sources[0].url ", 0) == 0);
  }
}

TEST_CASE("Normalize: canonical form is independent of argument order", "[schema]") {
  auto a =
      NormalizeFusionCall("fusion_investigate",
                          json::parse(R"({"objective":"o","background":["x"],"deliverable":"d"})"));
  auto b = NormalizeFusionCall(
      "fusion_investigate",
      json::parse(R"({"deliverable":" d","background":["x "],"objective":"o"})"));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->canonical == b->canonical);
  CHECK(a->workflow == pi_fusion::Workflow::kInvestigate);
}
