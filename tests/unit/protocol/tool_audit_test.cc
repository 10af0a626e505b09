// The sealed tool-call audit log: the child's journal and seal (through the real governor), the
// runtime guards on tool calls, and the parent's verification with every tamper it must catch.
#include <catch2/catch.hpp>

#include <algorithm>

#include "child/core/governor.h"
#include "json_schema_check.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/stderr_scan.h"
#include "protocol/tool_audit_verify.h"
#include "protocol/verify.h"
#include "test_streams.h"

namespace pi_fusion::child {
namespace {

using nlohmann::json;
using protocol::ToolAuditInput;
using protocol::ToolAuditReport;
using protocol::VerifyToolAudit;
using testing::kJournalPath;
using testing::kSealPath;
using testing::ScriptedChild;

const std::vector<std::string> kInspectTools = {"read", "grep", "find", "ls"};

std::vector<std::string> Lines(const std::string& bytes) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < bytes.size()) {
    const size_t end = bytes.find('\n', start);
    out.push_back(bytes.substr(start, end + 1 - start));
    start = end + 1;
  }
  return out;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line;
  return out;
}

// A seal that binds `journal` exactly, as the child would write it.
std::string SealFor(const std::string& journal) {
  protocol::ToolCallSeal seal;
  seal.status = "complete";
  for (const std::string& line : Lines(journal)) {
    seal.record_count += 1;
    seal.result_bytes += json::parse(line).at("result_bytes").get<uint64_t>();
  }
  if (seal.record_count > 0) seal.last_ordinal = seal.record_count;
  seal.journal_bytes = journal.size();
  seal.journal_sha256 = Sha256Ref(journal);
  return protocol::EncodeSeal(seal);
}

std::string Line(int64_t ordinal, const std::string& tool, const std::string& status,
                 uint64_t result_bytes = 10) {
  protocol::ToolCallRecord r;
  r.ordinal = ordinal;
  r.tool_name = tool;
  r.arguments_sha256 = Sha256Ref("{}");
  r.arguments_bytes = 2;
  r.result_sha256 = Sha256Ref("[]");
  r.result_bytes = result_bytes;
  r.status = status;
  r.duration_ms = 1;
  return protocol::EncodeJournalLine(r);
}

ToolAuditReport Verify(const std::string& journal, const std::string& seal) {
  return VerifyToolAudit({journal, seal, kInspectTools});
}

// A real child's log: four file-tool calls (one refused outside the project) and a refused bash.
struct RealLog {
  std::string journal, seal;
  int64_t settled_tool_calls = -1;  // the settlement frame's count
};

// The settlement frame's tool_calls from the child's stderr.
int64_t SettledToolCalls(const std::string& stderr_bytes) {
  for (const std::string& line : Lines(stderr_bytes)) {
    if (line.find("fusion-child-settlement") == std::string::npos) continue;
    return json::parse(line.substr(protocol::kFramePrefix.size())).at("tool_calls").get<int64_t>();
  }
  return -1;
}
RealLog MakeLog() {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  child.Turn("toolUse", {}, testing::Usage(5, 5), 5);
  CHECK_FALSE(child.Tool("read", {{"path", "."}}, "SECRET FILE TEXT").block);
  CHECK_FALSE(child.Tool("grep", {{"pattern", "x"}}).block);
  CHECK_FALSE(child.Tool("find", {{"pattern", "*.md"}}).block);
  CHECK(child.Tool("read", {{"path", "/nonexistent-dir/x"}}).block);
  CHECK(child.Tool("bash", {{"command", "rm -rf /"}}).block);
  child.Turn("stop", {"done"}, testing::Usage(6, 1));
  CHECK_FALSE(child.Settle());
  return {child.env.files.at(kJournalPath), child.env.files.at(kSealPath),
          SettledToolCalls(child.env.stderr_bytes)};
}

TEST_CASE("ToolJournal: one durable record per execution, sealed at agent_settled, and verified") {
  const RealLog log = MakeLog();
  ToolAuditReport report = Verify(log.journal, log.seal);
  REQUIRE(report.status.ToString() == "ok");
  REQUIRE(report.records.size() == 5);
  CHECK(report.records[0].tool_name == "read");
  CHECK(report.records[0].status == "ok");
  CHECK(report.records[0].duration_ms == 3);
  CHECK(report.records[3].status == "error");  // refused: not in the project
  CHECK(report.records[3].provenance.error_code == "path_not_found");
  CHECK_FALSE(report.records[0].provenance.error_code);
  CHECK(report.records[4].tool_name == "bash");
  CHECK(report.records[4].status == "error");  // refused: not allowed; evidence, not a breach
  CHECK_FALSE(report.records[4].provenance.error_code);
  CHECK(report.seal->status == "complete");
  // Only sizes and hashes: no argument or result text.
  CHECK(log.journal.find("SECRET") == std::string::npos);
  CHECK(log.journal.find("rm -rf") == std::string::npos);
  const std::string content =
      CanonicalJson(json::array({{{"type", "text"}, {"text", "SECRET FILE TEXT"}}}));
  CHECK(report.records[0].result_sha256 == Sha256Ref(content));
  CHECK(report.records[0].result_bytes == content.size());
  CHECK(report.records[0].arguments_sha256 == Sha256Ref(R"({"path":"."})"));
}

TEST_CASE("ToolJournal: each record says when its call started, on the wall clock") {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  child.env.now_ms = 1767225600000;  // 2026-01-01T00:00:00.000Z
  child.Turn("toolUse", {}, testing::Usage(5, 5), 2);
  const int64_t start = child.env.now_ms;
  CHECK_FALSE(child.Tool("read", {{"path", "."}}).block);
  CHECK(child.Tool("bash", {{"command", "ls"}}).block);  // refused calls are placed too
  child.Turn("stop", {"done"}, testing::Usage(6, 1));
  CHECK_FALSE(child.Settle());
  const ToolAuditReport report =
      Verify(child.env.files.at(kJournalPath), child.env.files.at(kSealPath));
  REQUIRE(report.ok());
  REQUIRE(report.records.size() == 2);
  CHECK(report.records[0].started_at ==
        "2026-01-01T00:00:00." + std::to_string(1000 + (start - 1767225600000)).substr(1) + "Z");
  CHECK(report.records[0].duration_ms == 3);
  CHECK(report.records[1].started_at ==
        "2026-01-01T00:00:00." + std::to_string(1000 + (start + 3 - 1767225600000)).substr(1) +
            "Z");
  CHECK(protocol::ParseToolCallRecord(protocol::ToJson(report.records[1])).value() ==
        report.records[1]);
}

TEST_CASE("ToolAudit: started_at is optional, and when present exactly the manifest's form") {
  // A journal written before the field verifies as it did.
  const std::string older = Line(1, "read", "ok");
  REQUIRE(older.find("started_at") == std::string::npos);
  CHECK(Verify(older, SealFor(older)).ok());
  for (const char* bad : {"2026-01-01T00:00:00Z", "2026-01-01 00:00:00.000Z", "yesterday", ""}) {
    json record = json::parse(older);
    record["started_at"] = bad;
    const std::string journal = CanonicalJson(record) + "\n";
    const ToolAuditReport report = Verify(journal, SealFor(journal));
    CHECK(report.reason == "record_invalid");
    CHECK_THAT(report.status.message(), Catch::Contains("started_at"));
  }
  json record = json::parse(older);
  record["started_at"] = 17;
  const std::string mistyped = CanonicalJson(record) + "\n";
  CHECK(Verify(mistyped, SealFor(mistyped)).reason == "record_invalid");
}

TEST_CASE("ToolJournal: the journal stays open across agent_end; no seal before the settlement") {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  child.Turn("toolUse", {}, testing::Usage(5, 5), 1);
  child.Tool("ls", json::object());
  CHECK_FALSE(child.governor->OnSettled(false, /*idle=*/false, false));  // a retry may follow
  CHECK(child.env.files.count(kSealPath) == 0);
  child.Tool("ls", json::object());
  child.Turn("stop", {"ok"}, testing::Usage(1, 1));
  CHECK_FALSE(child.Settle());
  REQUIRE(child.env.files.count(kSealPath) == 1);
  CHECK(Verify(child.env.files.at(kJournalPath), child.env.files.at(kSealPath)).records.size() ==
        2);
  // A late tool end is not appended after the seal, and fails the process.
  CHECK(child.governor->OnToolExecutionEnd("late", "ls", json::array(), false));
  CHECK(Lines(child.env.files.at(kJournalPath)).size() == 2);
}

TEST_CASE("ToolJournal: a child without tools has no journal and refuses every tool") {
  ScriptedChild child(Role::kCandidate);
  CHECK(child.governor->OpenJournal().ok());
  CHECK(child.env.files.empty());
  CHECK(child.Tool("read", {{"path", "."}}).block);
}

TEST_CASE("ToolJournal: the journal must not exist yet") {
  ScriptedChild child(Role::kCandidate);
  child.env.files[kJournalPath] = "stale";
  child.config.tools = kInspectTools;
  child.config.tool_journal_path = kJournalPath;
  child.config.tool_seal_path = kSealPath;
  ChildGovernor governor(child.config, &child.env);
  CHECK_FALSE(governor.OpenJournal().ok());
}

TEST_CASE("ToolJournal: a failed append fails the child and its seal says so") {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  child.env.fail_appends = true;
  const std::string id = "c1";
  child.governor->OnToolExecutionStart({testing::kRoute, id, "ls", json::object()});
  CHECK(child.governor->OnToolExecutionEnd(id, "ls", json::array(), false));
  child.Turn("stop", {"ok"}, testing::Usage(1, 1));
  CHECK(child.Settle());
  ToolAuditReport report = Verify(child.env.files.at(kJournalPath), child.env.files.at(kSealPath));
  CHECK(report.reason == "seal_incomplete");
}

TEST_CASE("ToolJournal: fetch provenance is recorded on its call, and verifies") {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  child.governor->OnToolExecutionStart({testing::kRoute, "f1", "fusion_web_fetch", {{"url", "u"}}});
  child.governor->journal()->Annotate("f1", ProvenanceOf({{"url", "https://example.com/"},
                                                          {"final_url", "https://example.com/a"},
                                                          {"http_status", 200},
                                                          {"response_bytes", 1234},
                                                          {"content_sha256", Sha256Ref("body")},
                                                          {"text", "not a journal field"}}));
  child.governor->OnToolExecutionEnd("f1", "fusion_web_fetch", json::array(), false);
  child.governor->OnToolExecutionStart({testing::kRoute, "f2", "fusion_web_fetch", {{"url", "x"}}});
  child.governor->journal()->Annotate(
      "f2", ProvenanceOf({{"rejected_url_sha256", Sha256Ref("x")}, {"http_status", 7}}));
  child.governor->OnToolExecutionEnd("f2", "fusion_web_fetch", json::array(), true);
  // A declared URL whose fetch failed keeps its code and what the fetcher learned.
  child.governor->OnToolExecutionStart({testing::kRoute, "f3", "fusion_web_fetch", {{"url", "y"}}});
  child.governor->journal()->Annotate("f3", ProvenanceOf({{"url", "https://example.com/gone"},
                                                          {"http_status", 404},
                                                          {"error_code", "http_error"}}));
  child.governor->OnToolExecutionEnd("f3", "fusion_web_fetch", json::array(), true);
  child.Turn("stop", {"ok"}, testing::Usage(1, 1));
  child.Settle();
  const std::string journal = child.env.files.at(kJournalPath);
  ToolAuditReport report = VerifyToolAudit(
      {journal, child.env.files.at(kSealPath), {"read", "grep", "find", "ls", "fusion_web_fetch"}});
  REQUIRE(report.status.ToString() == "ok");
  const protocol::ToolCallProvenance& p = report.records[0].provenance;
  CHECK(p.url == "https://example.com/");
  CHECK(p.final_url == "https://example.com/a");
  CHECK(p.http_status == 200);
  CHECK(p.response_bytes == 1234u);
  CHECK(p.content_sha256 == Sha256Ref("body"));
  CHECK(p.error_code == std::nullopt);
  CHECK(journal.find("not a journal field") == std::string::npos);
  CHECK(report.records[1].provenance ==
        protocol::ToolCallProvenance{.rejected_url_sha256 = Sha256Ref("x")});
  CHECK(report.records[2].provenance ==
        protocol::ToolCallProvenance{
            .url = "https://example.com/gone", .http_status = 404, .error_code = "http_error"});
  // Without fusion_web_fetch in the allowlist the executed fetch is a violation.
  CHECK(VerifyToolAudit({journal, child.env.files.at(kSealPath), kInspectTools}).reason ==
        "tool_not_allowed");
}

TEST_CASE(
    "ToolJournal: each record's arguments frame follows it, small ones only, never a refused URL") {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  child.Turn("toolUse", {}, testing::Usage(5, 5), 4);
  CHECK_FALSE(child.Tool("read", {{"path", "tmp"}}, "TEXT").block);
  CHECK(child.Tool("read", {{"path", "/nonexistent-dir/x"}}).block);
  const std::string big(protocol::kMaxShownArgumentsBytes, 'p');
  CHECK_FALSE(child.Tool("grep", {{"pattern", big}}).block);
  child.governor->OnToolExecutionStart({testing::kRoute,
                                        "f1",
                                        "fusion_web_fetch",
                                        {{"url", "http://undeclared.example/?t=SECRET"}}});
  child.governor->journal()->Annotate("f1",
                                      ProvenanceOf({{"rejected_url_sha256", Sha256Ref("x")}}));
  child.governor->OnToolExecutionEnd("f1", "fusion_web_fetch", json::array(), true);
  child.Turn("stop", {"done"}, testing::Usage(6, 1));
  CHECK_FALSE(child.Settle());

  std::vector<json> frames;
  for (const protocol::ScannedFrame& frame : protocol::ScanStderr(child.env.stderr_bytes).frames) {
    if (frame.schema == protocol::kToolArgumentsSchema) frames.push_back(frame.body);
  }
  REQUIRE(frames.size() == 4);
  for (size_t i = 0; i < frames.size(); ++i) {
    CHECK(frames[i].at("ordinal") == i + 1);
    CHECK(protocol::ParseToolArguments(frames[i]).ok());
  }
  CHECK(frames[0].at("arguments") == json{{"path", "tmp"}});
  CHECK(frames[1].at("arguments") == json{{"path", "/nonexistent-dir/x"}});  // refused: shown
  CHECK(frames[2].at("arguments").is_null());                                // over 1,024 bytes
  CHECK(frames[3].at("arguments").is_null());  // a refused raw URL is never written
  CHECK(child.env.stderr_bytes.find("SECRET") == std::string::npos);
  // Each shown object hashes to its record's arguments_sha256; the child run still verifies.
  const ToolAuditReport report =
      Verify(child.env.files.at(kJournalPath), child.env.files.at(kSealPath));
  REQUIRE(report.records.size() == 4);
  CHECK(report.records[0].arguments_sha256 == Sha256Ref(CanonicalJson(frames[0].at("arguments"))));
  CHECK(protocol::VerifyChildRun(child.Verify()).status.ToString() == "ok");
}

TEST_CASE(
    "ToolJournal: a fetch Pi's argument check stopped shows no URL, only its hash (a raw URL "
    "once reached the arguments frame, so events.jsonl and stderr.txt)") {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  child.Turn("toolUse", {}, testing::Usage(5, 5), 2);
  const std::string raw = "http://undeclared.example/?t=SECRET-TOKEN";
  // Never executed: Pi's validation failed (an unknown key), so no provenance was told.
  child.governor->OnToolExecutionStart(
      {testing::kRoute, "f1", "fusion_web_fetch", {{"url", raw}, {"unexpected", 1}}});
  child.governor->OnToolExecutionEnd("f1", "fusion_web_fetch",
                                     json::array({{{"type", "text"}, {"text", "invalid"}}}), true);
  // A declared URL that ran is shown as before.
  child.governor->OnToolExecutionStart(
      {testing::kRoute, "f2", "fusion_web_fetch", {{"url", "https://example.com/"}}});
  child.governor->journal()->Annotate(
      "f2", ProvenanceOf({{"url", "https://example.com/"}, {"http_status", 200}}));
  child.governor->OnToolExecutionEnd("f2", "fusion_web_fetch", json::array(), false);
  child.Turn("stop", {"done"}, testing::Usage(6, 1));
  CHECK_FALSE(child.Settle());
  CHECK(child.env.stderr_bytes.find("SECRET-TOKEN") == std::string::npos);
  CHECK(child.env.files.at(kJournalPath).find("SECRET-TOKEN") == std::string::npos);
  std::vector<json> frames;
  for (const protocol::ScannedFrame& frame : protocol::ScanStderr(child.env.stderr_bytes).frames) {
    if (frame.schema == protocol::kToolArgumentsSchema) frames.push_back(frame.body);
  }
  REQUIRE(frames.size() == 2);
  CHECK(frames[0].at("arguments").is_null());
  CHECK(frames[1].at("arguments") == json{{"url", "https://example.com/"}});
  const ToolAuditReport report =
      VerifyToolAudit({child.env.files.at(kJournalPath),
                       child.env.files.at(kSealPath),
                       {"read", "grep", "find", "ls", "fusion_web_fetch"}});
  REQUIRE(report.status.ok());
  CHECK(report.records[0].provenance ==
        protocol::ToolCallProvenance{.rejected_url_sha256 = Sha256Ref(raw)});
}

TEST_CASE("Frames: an arguments frame is closed, its arguments an object of at most 1,024 bytes") {
  const protocol::ToolArgumentsFrame shown{2, json{{"path", "src"}}};
  CHECK(*protocol::ParseToolArguments(protocol::ToJson(shown)) == shown);
  const protocol::ToolArgumentsFrame none{1, std::nullopt};
  CHECK(*protocol::ParseToolArguments(protocol::ToJson(none)) == none);
  json bad = protocol::ToJson(shown);
  bad["arguments"] = json{{"pattern", std::string(protocol::kMaxShownArgumentsBytes, 'x')}};
  CHECK(protocol::ParseToolArguments(bad).status().code() == kChildEventInvalid);
  bad = protocol::ToJson(shown);
  bad["arguments"] = "src";
  CHECK_FALSE(protocol::ParseToolArguments(bad).ok());
  bad = protocol::ToJson(shown);
  bad["ordinal"] = 0;
  CHECK_FALSE(protocol::ParseToolArguments(bad).ok());
  bad = protocol::ToJson(shown);
  bad["text"] = "x";
  CHECK_FALSE(protocol::ParseToolArguments(bad).ok());
}

TEST_CASE("Runtime guard: once aggregate tool results pass 32 MiB the next call is refused") {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  // Each result's canonical content is just under 4 MiB, so eight stay under the cap.
  const std::string big(4 * 1024 * 1024 - 100, 'x');
  int calls = 0;
  while (child.governor->journal()->result_bytes() <= protocol::kMaxToolResultBytes) {
    REQUIRE_FALSE(child.Tool("read", {{"path", "."}}, big).block);
    ++calls;
  }
  CHECK(calls == 9);  // 8 x 4 MiB is not yet over the cap; the 9th crosses it
  auto refused = child.Tool("read", {{"path", "."}}, big);
  CHECK(refused.block);
  CHECK(refused.abort);
  CHECK(refused.fail_process);
  CHECK_THAT(refused.reason, Catch::Contains("33554432"));
  protocol::StderrScan scan = protocol::ScanStderr(child.env.stderr_bytes);
  // One guard frame among the ten calls' arguments frames (the refused call's included).
  std::vector<protocol::ScannedFrame> guards;
  for (const protocol::ScannedFrame& frame : scan.frames) {
    if (frame.schema == protocol::kRuntimeGuardSchema) guards.push_back(frame);
  }
  REQUIRE(guards.size() == 1);
  CHECK(scan.frames.size() == 11);
  auto guard = protocol::ParseRuntimeGuard(guards[0].body);
  REQUIRE(guard.ok());
  CHECK(guard->code == pi_fusion::kChildRuntimeLimitExceeded);
  CHECK(guard->tool_call_ordinal == 10);
  // The run was aborted: the failed seal is written at that agent_settled, and no settlement.
  child.Message("aborted", {}, testing::ZeroUsage());
  CHECK(child.Settle(/*aborted=*/true));
  ToolAuditReport report = Verify(child.env.files.at(kJournalPath), child.env.files.at(kSealPath));
  CHECK(report.reason == "seal_incomplete");
  CHECK(report.seal->failure_code == std::string(pi_fusion::kChildRuntimeLimitExceeded));
  CHECK(report.seal->record_count == 10);  // the refused call is journaled as an error
  CHECK(protocol::VerifyChildRun(child.Verify(1)).status.code() ==
        pi_fusion::kChildRuntimeLimitExceeded);
}

TEST_CASE("VerifyToolAudit: every tamper fails as tool_audit_invalid with its reason") {
  const RealLog log = MakeLog();
  const std::vector<std::string> lines = Lines(log.journal);
  REQUIRE(lines.size() == 5);
  auto reason = [](const ToolAuditReport& r) {
    CHECK(r.status.code() == pi_fusion::kToolAuditInvalid);
    CHECK_THAT(r.status.message(), Catch::Contains("reason " + r.reason));
    return r.reason;
  };

  SECTION("missing files") {
    CHECK(reason(VerifyToolAudit({std::nullopt, log.seal, kInspectTools})) == "journal_missing");
    CHECK(reason(VerifyToolAudit({log.journal, std::nullopt, kInspectTools})) == "seal_missing");
  }
  SECTION("one journal byte") {
    std::string journal = log.journal;
    const size_t at = journal.find("\"result_sha256\":\"sha256:") + 24;
    journal[at] = journal[at] == '0' ? '1' : '0';
    CHECK(reason(Verify(journal, log.seal)) == "hash_mismatch");
    journal = log.journal;
    journal[0] = '[';
    CHECK(reason(Verify(journal, log.seal)) == "record_invalid");
  }
  SECTION("a dropped line, reordered lines") {
    CHECK(reason(Verify(Join({lines[0], lines[2], lines[3], lines[4]}), log.seal)) ==
          "ordinal_sequence");
    CHECK(reason(Verify(Join({lines[0], lines[2], lines[1], lines[3], lines[4]}), log.seal)) ==
          "ordinal_sequence");
    CHECK(reason(Verify(Join({lines[0], lines[0], lines[1], lines[2], lines[3]}), log.seal)) ==
          "ordinal_sequence");
  }
  SECTION("a record after the seal; a seal over a prefix") {
    CHECK(reason(Verify(log.journal + Line(6, "ls", "ok"), log.seal)) == "records_after_seal");
    const std::string prefix = Join({lines[0], lines[1]});
    CHECK(reason(Verify(log.journal, SealFor(prefix))) == "records_after_seal");
  }
  SECTION("the seal's count, bytes, hash, status or shape") {
    json seal = json::parse(log.seal);
    auto edited = [&](const char* key, json value) {
      json copy = seal;
      copy[key] = std::move(value);
      return CanonicalJson(copy) + "\n";
    };
    CHECK(reason(Verify(log.journal, edited("record_count", 4))) == "count_mismatch");
    CHECK(reason(Verify(log.journal, edited("last_ordinal", 4))) == "count_mismatch");
    CHECK(reason(Verify(log.journal, edited("result_bytes", 1))) == "result_bytes_mismatch");
    CHECK(reason(Verify(log.journal, edited("journal_bytes", 1))) == "hash_mismatch");
    json failed = seal;
    failed["status"] = "failed";
    failed["failure_code"] = "child_runtime_limit_exceeded";
    CHECK(reason(Verify(log.journal, CanonicalJson(failed) + "\n")) == "seal_incomplete");
    CHECK(reason(Verify(log.journal, seal.dump(2))) == "seal_invalid");
    CHECK(reason(Verify(log.journal, edited("extra", 1))) == "seal_invalid");
  }
  SECTION("a partial last line") {
    const std::string journal = log.journal.substr(0, log.journal.size() - 1);
    CHECK(reason(Verify(journal, SealFor(log.journal))) == "record_invalid");
  }
  SECTION("an executed tool outside the allowlist, even with a consistent seal") {
    const std::string journal = Join({lines[0], Line(2, "bash", "ok")});
    CHECK(reason(Verify(journal, SealFor(journal))) == "tool_not_allowed");
    const std::string refused = Join({lines[0], Line(2, "bash", "error")});
    CHECK(Verify(refused, SealFor(refused)).ok());
  }
  SECTION("both caps, recounted by the parent") {
    std::string many;
    for (int i = 1; i <= protocol::kMaxToolCalls + 1; ++i) many += Line(i, "ls", "ok");
    CHECK(reason(Verify(many, SealFor(many))) == "call_cap_exceeded");
    std::string at_cap = Line(1, "read", "ok", protocol::kMaxToolResultBytes);
    CHECK(Verify(at_cap, SealFor(at_cap)).ok());
  }
  SECTION("an evaluator's log holds at most kEvaluatorMaxToolCalls records") {
    std::string at_limit;
    for (int i = 1; i <= protocol::kEvaluatorMaxToolCalls; ++i) at_limit += Line(i, "ls", "ok");
    const std::string at_limit_seal = SealFor(at_limit);
    ToolAuditInput input{at_limit, at_limit_seal, kInspectTools};
    input.max_tool_calls = protocol::kEvaluatorMaxToolCalls;
    CHECK(VerifyToolAudit(input).ok());
    const std::string over = at_limit + Line(protocol::kEvaluatorMaxToolCalls + 1, "ls", "error");
    const std::string seal = SealFor(over);
    input.journal = over;
    input.seal = seal;
    const ToolAuditReport report = VerifyToolAudit(input);
    CHECK(report.reason == "call_cap_exceeded");
    CHECK_THAT(report.status.message(), Catch::Contains("exceed the limit of 24"));
  }
  // Regression: the child refuses only a call that starts once the results passed 32 MiB, so a
  // last call that crosses it leaves a complete, honest log. The parent called that log invalid
  // (tool_audit_invalid, "something changed the log"); the docs name the limit's own code.
  SECTION("results crossing 32 MiB on the last call: the limit's code, not a damaged log") {
    const std::string heavy =
        Line(1, "read", "ok", protocol::kMaxToolResultBytes) + Line(2, "read", "ok", 1);
    const ToolAuditReport crossed = Verify(heavy, SealFor(heavy));
    CHECK(crossed.reason == "result_bytes_cap_exceeded");
    CHECK(crossed.status.code() == "child_runtime_limit_exceeded");
    CHECK(crossed.status.message() ==
          "the candidate's tool results passed their limit: tool results total 33554433 bytes, "
          "over the limit of 33554432 bytes per child; call 2 of 2 crossed it and was the last, "
          "so no later call was refused");
    // Calls already running when it crossed (one assistant message's calls run concurrently).
    const std::string concurrent = Line(1, "read", "ok", protocol::kMaxToolResultBytes) +
                                   Line(2, "read", "ok", 1) + Line(3, "grep", "ok", 5);
    CHECK_THAT(Verify(concurrent, SealFor(concurrent)).status.message(),
               Catch::EndsWith("call 2 of 3 crossed it and 1 already running finished after it"));
    // A damaged log stays a damaged log, whatever its size.
    const std::string bad =
        Line(1, "read", "ok", protocol::kMaxToolResultBytes) + Line(2, "bash", "ok", 1);
    CHECK(Verify(bad, SealFor(bad)).status.code() == "tool_audit_invalid");
  }
  SECTION("an empty log verifies") { CHECK(Verify("", SealFor("")).ok()); }
}

TEST_CASE(
    "ToolAudit: the real governor's journal and seal, and fetch provenance, conform to "
    "their published schemas") {
  using pi_fusion::testing::CheckAgainstSchema;
  using pi_fusion::testing::LoadArtifactSchema;
  const RealLog log = MakeLog();
  const json record_schema = LoadArtifactSchema("fusion-tool-call.v1.json");
  std::vector<std::string> lines = Lines(log.journal);
  lines.push_back(Line(6, "fusion_web_fetch", "error"));
  protocol::ToolCallRecord refused =
      protocol::ParseToolCallRecord(json::parse(lines.back())).value();
  refused.provenance.error_code = "path_outside_project";  // a wall's refusal
  lines.push_back(protocol::EncodeJournalLine(refused));
  refused.provenance.walk_protection = "namespace+landlock";  // a walk's protection
  lines.push_back(protocol::EncodeJournalLine(refused));
  for (const std::string& line : lines) {
    INFO(line);
    CHECK(CheckAgainstSchema(record_schema, json::parse(line)).empty());
  }
  const json seal_schema = LoadArtifactSchema("fusion-tool-call-seal.v1.json");
  CHECK(CheckAgainstSchema(seal_schema, json::parse(log.seal)).empty());
  json failed = json::parse(log.seal);
  failed["status"] = "failed";
  CHECK_FALSE(CheckAgainstSchema(seal_schema, failed).empty());  // failed needs its code
  failed["failure_code"] = "child_output_cap";
  CHECK(CheckAgainstSchema(seal_schema, failed).empty());
  json extra = json::parse(lines[0]);
  extra["arguments"] = "raw";  // never recorded, so never allowed
  CHECK_FALSE(CheckAgainstSchema(record_schema, extra).empty());
  json walk = json::parse(lines[0]);
  walk["walk_protection"] = "some";  // only the jail's four names
  CHECK_FALSE(CheckAgainstSchema(record_schema, walk).empty());
}

TEST_CASE("ToolJournal: a walk's protection and a refusal's code both reach the record") {
  ScriptedChild child(Role::kCandidate);
  testing::EnableTools(child);
  child.Turn("toolUse", {}, testing::Usage(5, 5), 2);
  child.governor->OnToolExecutionStart({testing::kRoute, "g1", "grep", {{"pattern", "x"}}});
  child.governor->journal()->Annotate("g1", {.walk_protection = "namespace+landlock"});
  child.governor->OnToolExecutionEnd("g1", "grep", json::array(), false);
  child.governor->OnToolExecutionStart({testing::kRoute, "g2", "find", {{"pattern", "x"}}});
  child.governor->journal()->Annotate("g2", {.walk_protection = "none"});
  child.governor->journal()->Annotate("g2", {.error_code = "path_protected"});
  child.governor->OnToolExecutionEnd("g2", "find", json::array(), true);
  child.Turn("stop", {"ok"}, testing::Usage(1, 1));
  child.Settle();
  ToolAuditReport report = VerifyToolAudit(
      {child.env.files.at(kJournalPath), child.env.files.at(kSealPath), kInspectTools});
  REQUIRE(report.status.ok());
  CHECK(report.records[0].provenance ==
        protocol::ToolCallProvenance{.walk_protection = "namespace+landlock"});
  CHECK(report.records[1].provenance ==
        protocol::ToolCallProvenance{.error_code = "path_protected", .walk_protection = "none"});
}

// Regression: the parent never compared the settlement's tool-call count with the sealed
// journal, so a child whose journal silently lost calls (both files rewritten consistently) passed.
TEST_CASE("ToolAudit: the settlement's tool_calls must equal the sealed record count") {
  const RealLog log = MakeLog();
  REQUIRE(log.settled_tool_calls == 5);  // the real governor's count of the real log
  ToolAuditInput input{log.journal, log.seal, kInspectTools, log.settled_tool_calls};
  CHECK(VerifyToolAudit(input).ok());
  for (int64_t claimed : {4, 6, 0}) {
    INFO(claimed);
    input.settled_tool_calls = claimed;
    const ToolAuditReport report = VerifyToolAudit(input);
    CHECK(report.reason == "settlement_mismatch");
    CHECK(report.status.code() == "tool_audit_invalid");
    CHECK(report.status.message() ==
          "tool-call audit log invalid (reason settlement_mismatch): the settlement frame counts " +
              std::to_string(claimed) + " tool calls, the sealed journal holds 5 records");
  }
}

std::string FetchLine(int64_t ordinal, const std::string& url) {
  protocol::ToolCallRecord r;
  r.ordinal = ordinal;
  r.tool_name = "fusion_web_fetch";
  r.arguments_sha256 = Sha256Ref("{}");
  r.arguments_bytes = 2;
  r.result_sha256 = Sha256Ref("[]");
  r.result_bytes = 10;
  r.status = "ok";
  r.duration_ms = 1;
  r.provenance.url = url;
  r.provenance.final_url = url;
  r.provenance.http_status = 200;
  return protocol::EncodeJournalLine(r);
}

// Regression: a fetch-provenance URL was never compared with the run's declared sources, so a log
// claiming pages the caller never declared passed verification.
TEST_CASE("ToolAudit: every fetch-provenance url must be a declared source") {
  const std::vector<std::string> research = {"read", "grep", "find", "ls", "fusion_web_fetch"};
  const std::vector<std::string> declared = {"https://a.example/", "https://b.example/x"};
  const std::string journal =
      FetchLine(1, "https://a.example/") + FetchLine(2, "https://b.example/x");
  CHECK(VerifyToolAudit({journal, SealFor(journal), research, std::nullopt, declared}).ok());
  const std::string stray = journal + FetchLine(3, "https://evil.example/");
  const ToolAuditReport report =
      VerifyToolAudit({stray, SealFor(stray), research, std::nullopt, declared});
  CHECK(report.reason == "source_not_declared");
  CHECK(report.status.code() == "tool_audit_invalid");
  CHECK_THAT(report.status.message(),
             Catch::EndsWith("call 3 records a fetch of https://evil.example/, which is not a "
                             "declared source of this run"));
  // A workflow without sources declares none: any provenance url is foreign.
  CHECK(VerifyToolAudit(
            {journal, SealFor(journal), research, std::nullopt, std::vector<std::string>{}})
            .reason == "source_not_declared");
}

}  // namespace
}  // namespace pi_fusion::child
