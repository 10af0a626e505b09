// What the candidates looked at (src/run/tool_call_list.h) and research's failed sources
// (src/run/source_failures.h): journal records joined with the arguments frames of the event log,
// shown only when their hash is the journal's, as text that is safe to draw. The records are
// synthetic; tests/e2e/investigate/investigate_tui.test.mjs lists a real run's calls in the TUI,
// tests/e2e/research/research_run.test.mjs a real research run's fetches.
#include <catch2/catch.hpp>

#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "protocol/frames.h"
#include "protocol/tool_audit.h"
#include "run/source_failures.h"
#include "run/tool_call_list.h"

namespace pi_fusion::run {
namespace {

using nlohmann::json;

protocol::ToolCallRecord Record(int64_t ordinal, const std::string& tool, const json& arguments,
                                const std::string& status,
                                std::optional<std::string> error_code = std::nullopt) {
  protocol::ToolCallRecord r;
  r.ordinal = ordinal;
  r.tool_name = tool;
  r.arguments_sha256 = Sha256Ref(CanonicalJson(arguments));
  r.arguments_bytes = CanonicalJson(arguments).size();
  r.result_sha256 = Sha256Ref("[]");
  r.result_bytes = 1234;
  r.status = status;
  r.duration_ms = 1;
  r.provenance.error_code = std::move(error_code);
  return r;
}

// The event log as the parent writes it: one frame body per line.
std::string Events(const std::vector<protocol::ToolArgumentsFrame>& frames) {
  std::string out = "{\"schema_version\":\"pi-background-tasks.fusion-child-result.v4\"}\n";
  for (const auto& f : frames) out += protocol::ToJson(f).dump() + "\n";
  return out;
}

std::string Journal(const std::vector<protocol::ToolCallRecord>& records) {
  std::string out;
  for (const auto& r : records) out += protocol::EncodeJournalLine(r);
  return out;
}

std::vector<std::string> Texts(const std::vector<ShownToolCall>& calls) {
  std::vector<std::string> out;
  for (const auto& c : calls) out.push_back(ShownCallText(c));
  return out;
}

}  // namespace

TEST_CASE("ShownToolCalls: each call's target, outcome, reason and size, in journal order") {
  const json read = {{"path", "src/app.txt"}};
  const json outside = {{"path", "../secret.txt"}};
  const json grep = {{"pattern", "TODO"}, {"path", "src"}};
  const json find = {{"pattern", "*.md"}};
  const json fetch = {{"url", "https://example.com/a"}};
  const std::string journal = Journal({Record(1, "read", read, "ok"),
                                       Record(2, "read", outside, "error", "path_outside_project"),
                                       Record(3, "grep", grep, "ok"), Record(4, "find", find, "ok"),
                                       Record(5, "fusion_web_fetch", fetch, "error", "dns_failure"),
                                       Record(6, "ls", json::object(), "ok")});
  const std::string events =
      Events({{1, read}, {2, outside}, {3, grep}, {4, find}, {5, fetch}, {6, json::object()}});
  CHECK(Texts(ShownToolCalls(journal, events)) ==
        std::vector<std::string>{
            "read src/app.txt · 1,234 bytes", "read ../secret.txt · refused: path_outside_project",
            "grep \"TODO\" in src · 1,234 bytes", "find \"*.md\" · 1,234 bytes",
            "fusion_web_fetch https://example.com/a · failed: dns_failure", "ls . · 1,234 bytes"});
}

TEST_CASE("ShownToolCalls: arguments whose hash is not the journal's are not shown") {
  // Record 3 as the child writes a URL the source policy refused: its hash, no URL, no code.
  protocol::ToolCallRecord refused = Record(3, "fusion_web_fetch", {{"url", "x"}}, "error");
  refused.provenance.rejected_url_sha256 = Sha256Ref("x");
  const std::string journal = Journal({Record(1, "read", {{"path", "src/app.txt"}}, "ok"),
                                       Record(2, "read", {{"path", "b"}}, "ok"), refused});
  // Frame 1 names another path than the one the journal hashed; 2 has none; 3 is null (a
  // refused URL is never written).
  const std::string events = Events({{1, json{{"path", "/etc/passwd"}}}, {3, std::nullopt}});
  const std::vector<ShownToolCall> calls = ShownToolCalls(journal, events);
  REQUIRE(calls.size() == 3);
  CHECK(Texts(calls) ==
        std::vector<std::string>{
            "read (arguments not shown) · 1,234 bytes", "read (arguments not shown) · 1,234 bytes",
            "fusion_web_fetch (arguments not shown) · refused: source_not_declared"});
  CHECK_FALSE(calls[0].arguments_shown);
  CHECK(calls[2].outcome == "refused");
}

TEST_CASE("ShownToolCalls: model text is one neutralized line, cut") {
  const json hostile = {{"path", "a\x1b]52;c;Zm9v\x07\nb" + std::string(300, 'x')}};
  const std::string journal =
      Journal({Record(1, "read", hostile, "ok"), Record(2, "re\x1b[2Jad", json::object(), "ok")});
  const std::vector<ShownToolCall> calls =
      ShownToolCalls(journal, Events({{1, hostile}, {2, json::object()}}));
  REQUIRE(calls.size() == 2);
  CHECK(calls[1].tool == "re\u241b[2Jad");
  CHECK(calls[0].target.rfind("a\u241b]52;c;Zm9v\u2407\u240ab", 0) == 0);
  CHECK(calls[0].target.find('\x1b') == std::string::npos);
  CHECK(calls[0].target.find('\n') == std::string::npos);
  CHECK(calls[0].target.size() <= kShownTargetMaxBytes + std::string("…").size());
  CHECK(calls[0].target.substr(calls[0].target.size() - 3) == "…");
}

TEST_CASE("FailedSources: a source tried and never fetched, by URL, with its first failed code") {
  const std::vector<SourceFetch> fetches = {{"https://b.example/", false, "dns_failure"},
                                            {"https://a.example/", true, ""},
                                            {"https://c.example/", false, "http_error"},
                                            {"https://a.example/", false, "request_timeout"},
                                            {"https://b.example/", false, "network_error"}};
  const std::vector<workflow::SourceFailureRow> rows = FailedSources(fetches);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].url == "https://b.example/");
  CHECK(rows[0].code == "dns_failure");
  CHECK(rows[1].url == "https://c.example/");
  CHECK(rows[1].code == "http_error");
  CHECK(FailedSources({}).empty());
}

TEST_CASE("SourceFetchesOf: only records with a declared URL") {
  protocol::ToolCallRecord ok = Record(1, "fusion_web_fetch", json::object(), "ok");
  ok.provenance.url = "https://a.example/";
  protocol::ToolCallRecord failed =
      Record(2, "fusion_web_fetch", json::object(), "error", "blocked_address");
  failed.provenance.url = "https://b.example/";
  protocol::ToolCallRecord undeclared =
      Record(3, "fusion_web_fetch", json::object(), "error", "source_not_declared");
  const std::vector<SourceFetch> fetches =
      SourceFetchesOf({ok, failed, undeclared, Record(4, "read", json::object(), "ok")});
  REQUIRE(fetches.size() == 2);
  CHECK(fetches[0].fetched);
  CHECK_FALSE(fetches[1].fetched);
  CHECK(fetches[1].code == "blocked_address");
}

TEST_CASE("SourceWarningLines: one warning per failed row; nothing for absent or malformed rows") {
  const json rows = json::array(
      {{{"url", "https://b.example/"}, {"code", "dns_failure"}}, {{"url", 3}, {"code", "x"}}});
  CHECK(SourceWarningLines({{"source_failures", rows}}) ==
        std::vector<std::string>{"Warning: the declared source https://b.example/ could not be "
                                 "fetched (dns_failure); no candidate read it."});
  CHECK(SourceWarningLines(json()).empty());
  CHECK(SourceWarningLines(rows).empty());  // details, not the bare array
  CHECK(SourceWarningStatus({{"source_failures", json::array({rows[0]})}}) ==
        "1 declared source failed");
  CHECK(SourceWarningStatus({{"source_failures", json::array({rows[0], rows[0]})}}) ==
        "2 declared sources failed");
  CHECK(SourceWarningStatus(json::object()).empty());
}

TEST_CASE("SourceWarningLines: a run that fetched no declared source is flagged, after the rows") {
  const json rows = json::array({{{"url", "https://b.example/"}, {"code", "dns_failure"}}});
  const json details = {{"source_failures", rows}, {"no_source_fetched", true}};
  const std::vector<std::string> lines = SourceWarningLines(details);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1] == kNoSourceFetchedWarning);
  CHECK(SourceWarningStatus(details) == "no declared source fetched");
  // Only the literal true flags it.
  CHECK(SourceWarningLines({{"no_source_fetched", "true"}}).empty());
  CHECK(SourceWarningStatus({{"no_source_fetched", false}}).empty());
}

TEST_CASE("NoSourceFetched: none tried, or every try failed, is no fetch; one success is a fetch") {
  CHECK(NoSourceFetched({}));
  CHECK(NoSourceFetched({{"https://a.example/", false, "dns_failure"},
                         {"https://a.example/", false, "network_error"}}));
  CHECK_FALSE(NoSourceFetched(
      {{"https://a.example/", false, "dns_failure"}, {"https://b.example/", true, ""}}));
}

}  // namespace pi_fusion::run
