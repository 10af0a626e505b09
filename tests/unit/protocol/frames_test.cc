// Frame shapes, the text digest and stderr scanning: the byte format both sides share.
#include <catch2/catch.hpp>

#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/frames.h"
#include "protocol/stderr_scan.h"
#include "protocol/text_digest.h"
#include "test_streams.h"

namespace pi_fusion::protocol {
namespace {

using nlohmann::json;

TEST_CASE("TextDigest: hashes the text exactly as Pi's text mode prints it") {
  const TextDigest d = DigestTextBlocks({"a", "b\nc"});
  CHECK(PrintedText({"a", "b\nc"}) == "a\nb\nc\n");
  CHECK(d.printed_bytes == 6);
  CHECK(d.printed_sha256 == Sha256Ref("a\nb\nc\n"));
  REQUIRE(d.blocks.size() == 2);
  CHECK(d.blocks[1] == TextBlockDigest{3, Sha256Ref("b\nc")});
  // The answer drops the final "\n"; its measure counts escapes ("\n" is two bytes).
  CHECK(d.answer_json_bytes == 7);
}

TEST_CASE("TextDigest: no text blocks is the empty text and the empty hash") {
  const TextDigest d = DigestTextBlocks({});
  CHECK(d.printed_bytes == 0);
  CHECK(d.printed_sha256 == Sha256Ref(""));
  CHECK(d.answer_json_bytes == 0);
}

TEST_CASE("AnswerJsonBytes: counts JSON escapes and keeps UTF-8 as is") {
  CHECK(AnswerJsonBytes("plain") == 5);
  CHECK(AnswerJsonBytes("\"q\"") == 5);
  CHECK(AnswerJsonBytes("tab\t") == 5);
  CHECK(AnswerJsonBytes("\x01") == 6);      // \u0001
  CHECK(AnswerJsonBytes("\xC3\xA9") == 2);  // é stays two bytes
  CHECK(AnswerJsonBytes(std::string(kCandidateOutputMaxBytes, 'a')) == kCandidateOutputMaxBytes);
}

TEST_CASE("Frames: every frame round-trips through its closed JSON shape") {
  MetadataRecord r;
  r.ordinal = 3;
  r.route = testing::kAnthropicRoute;
  r.response_model = "claude-x";
  r.stop_reason = "toolUse";
  r.text = DigestTextBlocks({"t"});
  r.tool_calls = 2;
  r.usage = testing::Usage(1, 2, 3, 4, 1, 0);
  r.cache = CacheObservation{7, "anthropic-messages", "long", "env", "long", 4, 2, false};
  r.error_message = "e";
  CHECK(*ParseMetadataRecord(ToJson(r)) == r);

  RuntimeGuardFrame g{"child_runtime_limit_exceeded",
                      "tool_call",
                      testing::kRoute,
                      10,
                      601,
                      "ls",
                      std::nullopt,
                      std::nullopt,
                      "over"};
  CHECK(*ParseRuntimeGuard(ToJson(g)) == g);
  g.payload_bytes = 12;
  g.payload_sha256 = Sha256Ref("p");
  CHECK(*ParseRuntimeGuard(ToJson(g)) == g);

  SettlementFrame s{
      "failed", "child_output_cap", 2, Sha256Ref("x"), 2, Sha256Ref("y"), {1}, std::nullopt, 5, 6};
  CHECK(*ParseSettlement(ToJson(s)) == s);

  for (const char* source : {"model_stream", "tool"}) {
    const ProgressFrame p{source, 2};
    CHECK(*ParseProgress(ToJson(p)) == p);
  }
}

TEST_CASE("Frames: a progress frame is exactly its schema, one known source and a running count") {
  const json good = ToJson(ProgressFrame{"model_stream", 1});
  CHECK(good == json::parse(R"({"schema_version":"pi-background-tasks.fusion-child-progress.v1",)"
                            R"("source":"model_stream","tools_running":1})"));
  json bad = good;
  bad["source"] = "thinking";
  CHECK(ParseProgress(bad).status().code() == kChildEventInvalid);
  bad = good;
  bad["text"] = "a delta";  // nothing of the stream may ride along
  CHECK_FALSE(ParseProgress(bad).ok());
  bad = good;
  bad.erase("source");
  CHECK_FALSE(ParseProgress(bad).ok());
  bad = good;
  bad["schema_version"] = "pi-background-tasks.fusion-child-progress.v2";
  CHECK_FALSE(ParseProgress(bad).ok());
  bad = good;
  bad.erase("tools_running");
  CHECK_FALSE(ParseProgress(bad).ok());
  bad = good;
  bad["tools_running"] = -1;
  CHECK_FALSE(ParseProgress(bad).ok());
}

TEST_CASE("Frames: parsers reject shapes that are not exactly the contract") {
  SettlementFrame s{
      "ok", std::nullopt, 0, Sha256Ref(""), std::nullopt, std::nullopt, {}, std::nullopt, 0, 0};
  json j = ToJson(s);
  CHECK(ParseSettlement(j).ok());
  json bad = j;
  bad["failure_code"] = "child_output_cap";  // ok with a failure code
  CHECK(ParseSettlement(bad).status().code() == kChildEventInvalid);
  bad = j;
  bad["metadata_sha256"] = "sha256:ABC";
  CHECK_FALSE(ParseSettlement(bad).ok());
  bad = j;
  bad["provider_requests"] = 1.5;
  CHECK_FALSE(ParseSettlement(bad).ok());
  bad = j;
  bad["schema_version"] = "pi-background-tasks.fusion-child-settlement.v2";
  CHECK_FALSE(ParseSettlement(bad).ok());

  RuntimeGuardFrame g{"child_runtime_limit_exceeded",
                      "tool_call",
                      testing::kRoute,
                      1,
                      1,
                      std::nullopt,
                      5,
                      std::nullopt,
                      "m"};
  CHECK_FALSE(ParseRuntimeGuard(ToJson(g)).ok());  // bytes without a hash
  g.payload_bytes.reset();
  g.code = "child_timeout";
  CHECK_FALSE(ParseRuntimeGuard(ToJson(g)).ok());
  g.code = "child_cache_policy_invalid";
  g.message = std::string(kMaxFrameMessageBytes + 1, 'm');
  CHECK_FALSE(ParseRuntimeGuard(ToJson(g)).ok());
}

TEST_CASE("ScanStderr: separates frames from Pi's diagnostics and notes extension errors") {
  const std::string frame = EncodeFrameLine(ToJson(SettlementFrame{
      "ok", std::nullopt, 0, Sha256Ref(""), std::nullopt, std::nullopt, {}, std::nullopt, 0, 0}));
  const StderrScan scan =
      ScanStderr("Warning: x\n" + frame + "Extension error (/a.ts): boom\nno newline at end");
  CHECK(scan.error.ok());
  REQUIRE(scan.frames.size() == 1);
  CHECK(scan.frames[0].line == frame);
  CHECK(scan.frames[0].schema == kSettlementSchema);
  CHECK(scan.diagnostics == std::vector<std::string>{"Warning: x", "Extension error (/a.ts): boom",
                                                     "no newline at end"});
  CHECK(scan.extension_errors.size() == 1);
}

TEST_CASE("ScanStderr: keeps the well-formed frames after a malformed one") {
  const std::string frame = EncodeFrameLine(ToJson(SettlementFrame{
      "ok", std::nullopt, 0, Sha256Ref(""), std::nullopt, std::nullopt, {}, std::nullopt, 0, 0}));
  const StderrScan scan = ScanStderr(std::string(kFramePrefix) + "{}\n" + frame);
  CHECK(scan.error.code() == kChildEventInvalid);
  CHECK(scan.frames.size() == 1);
}

TEST_CASE("HoldsFirstOutput: a progress or metadata frame line, or any stdout byte") {
  const std::string progress = EncodeFrameLine(ToJson(ProgressFrame{"model_stream"}));
  const std::string guard = EncodeFrameLine(json{{"schema_version", kRuntimeGuardSchema}});
  CHECK_FALSE(HoldsFirstOutput("", ""));
  // Pi's diagnostics and a runtime guard's refusal are not output; nor is a frame cut off.
  CHECK_FALSE(HoldsFirstOutput("", "Warning: x\n" + guard));
  CHECK_FALSE(HoldsFirstOutput("", progress.substr(0, progress.size() - 1)));
  // The schema id outside a frame line (a diagnostic quoting it) is not one either.
  CHECK_FALSE(HoldsFirstOutput("", "note: \"" + std::string(kProgressSchema) + "\"\n"));
  CHECK(HoldsFirstOutput("", "Warning: x\n" + guard + progress));
  MetadataRecord metadata;
  metadata.ordinal = 1;
  metadata.route = {"p", "m", "openai-completions"};
  metadata.stop_reason = "stop";
  metadata.text = DigestTextBlocks({});
  metadata.usage = testing::ZeroUsage();
  CHECK(HoldsFirstOutput("", EncodeFrameLine(ToJson(metadata))));
  CHECK(HoldsFirstOutput("a", ""));
}

}  // namespace
}  // namespace pi_fusion::protocol
