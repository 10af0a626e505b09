// Parent-side verification: what a child's frames, stdout and exit must look like to be trusted.
#include <catch2/catch.hpp>

#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/text_digest.h"
#include "protocol/usage.h"
#include "protocol/verify.h"
#include "test_streams.h"

namespace pi_fusion::protocol {
namespace {

using nlohmann::json;
using testing::StreamBuilder;
using testing::Usage;
using testing::ZeroUsage;

// A request for a hand-built stream answering `answer`.
VerifyRequest RequestFor(const StreamBuilder& b, std::string_view stdout_bytes, int exit = 0) {
  VerifyRequest r;
  r.stderr_bytes = b.stderr_bytes;
  r.stdout_bytes = stdout_bytes;
  r.exit.exit_code = exit;
  r.provider = testing::kRoute.provider;
  r.model = testing::kRoute.model;
  return r;
}

TEST_CASE("VerifyChildRun: accepts a clean answer and reports its text and usage") {
  StreamBuilder b;
  b.Raw("Warning: some Pi diagnostic\n")
      .Add(StreamBuilder::Record(1, "stop", {"Hi", "there"}, Usage(10, 2)));
  b.Seal();
  const std::string out = "Hi\nthere\n";
  ChildReport report = VerifyChildRun(RequestFor(b, out));
  REQUIRE(report.status.ToString() == "ok");
  CHECK(report.answer == "Hi\nthere");
  CHECK(report.answer_json_bytes == AnswerJsonBytes("Hi\nthere"));
  CHECK(report.usage == SumUsage({Usage(10, 2)}));
  CHECK(report.records.size() == 1);
  CHECK(report.cache_observations.size() == 1);
  CHECK(report.diagnostics == std::vector<std::string>{"Warning: some Pi diagnostic"});
}

TEST_CASE("VerifyChildRun: progress frames between the others are accepted and bind nothing") {
  const std::string beat = EncodeFrameLine(ToJson(ProgressFrame{"model_stream"}));
  const std::string tool = EncodeFrameLine(ToJson(ProgressFrame{"tool"}));
  StreamBuilder b;
  b.Raw(beat).Add(StreamBuilder::Record(1, "toolUse", {}, Usage(10, 5)));
  b.Raw(tool).Raw(beat).Add(StreamBuilder::Record(2, "stop", {"done"}, Usage(20, 3)));
  b.Raw(beat).Seal();
  ChildReport report = VerifyChildRun(RequestFor(b, "done\n"));
  REQUIRE(report.status.ToString() == "ok");
  CHECK(report.answer == "done");
  CHECK(report.records.size() == 2);
}

TEST_CASE("VerifyChildRun: tool turns and a retry marker before the final stop are accepted") {
  StreamBuilder b;
  b.Add(StreamBuilder::Record(1, "toolUse", {"looking"}, Usage(10, 5)));
  b.Add(StreamBuilder::Record(2, "error", {}, ZeroUsage()));
  b.Add(StreamBuilder::Record(3, "stop", {"done"}, Usage(20, 3)));
  b.Seal();
  ChildReport report = VerifyChildRun(RequestFor(b, "done\n"));
  REQUIRE(report.status.ToString() == "ok");
  CHECK(report.retry_marker_ordinals == std::vector<int64_t>{2});
  CHECK(report.usage["input"] == 30);
  CHECK(report.usage["output"] == 8);
}

TEST_CASE("VerifyChildRun: usage keeps every component, cacheWrite1h and reasoning included") {
  json a = Usage(100, 20, 30, 7, 5, 4);
  a["cost"]["totalFromProvider"] = true;
  json c = Usage(1, 1);
  c["cost"].erase("totalFromProvider");
  StreamBuilder b;
  b.Add(StreamBuilder::Record(1, "toolUse", {}, a));
  b.Add(StreamBuilder::Record(2, "stop", {"x"}, c));
  b.Seal();
  ChildReport report = VerifyChildRun(RequestFor(b, "x\n"));
  REQUIRE(report.ok());
  CHECK(report.usage["cacheWrite1h"] == 5);
  CHECK(report.usage["reasoning"] == 4);
  CHECK(report.usage["cacheRead"] == 30);
  CHECK(report.usage["totalTokens"] == 159);
  CHECK(report.usage["cost"]["total"].get<double>() ==
        Approx(a["cost"]["total"].get<double>() + c["cost"]["total"].get<double>()));
  // One input had no flag ("absent also means false"): the sum is not provider-billed.
  CHECK(report.usage["cost"]["totalFromProvider"] == false);
}

TEST_CASE("VerifyChildRun: the oversized original and its replacement are accepted") {
  const std::string big(kCandidateOutputMaxBytes + 1, 'x');
  StreamBuilder b;
  b.Add(StreamBuilder::Record(1, "stop", {big}, Usage(10, 20000)));
  b.Add(StreamBuilder::Record(2, "stop", {"short"}, Usage(30, 2)));
  b.Seal([](json& s) { s["oversized_original_ordinal"] = 1; });
  VerifyRequest request = RequestFor(b, "short\n");
  const std::string original = big + "\n";
  request.oversized_original = original;
  ChildReport report = VerifyChildRun(request);
  REQUIRE(report.status.ToString() == "ok");
  REQUIRE(report.oversized.has_value());
  CHECK(report.oversized->ordinal == 1);
  CHECK(report.oversized->sha256 == Sha256Ref(original));
  CHECK(report.usage["output"] == 20002);  // both turns count
}

// A stream, stdout, exit, original file, and the code it must fail with.
struct Rejection {
  const char* name;
  std::function<void(StreamBuilder&)> build;
  std::string stdout_bytes;
  int exit_code;
  std::string_view code;
  std::optional<std::string> original = std::nullopt;
};

std::string Big() { return std::string(kCandidateOutputMaxBytes + 1, 'y'); }

json Tampered(json record, const std::function<void(json&)>& edit) {
  edit(record);
  return record;
}

TEST_CASE("VerifyChildRun: rejects every malformed, tampered or unaccepted stream") {
  auto stop = [](const std::string& text) {
    return StreamBuilder::Record(1, "stop", {text}, Usage(1, 1));
  };
  // One case per line: the table is the specification of what fails.
  // clang-format off
  const std::vector<Rejection> cases = {
      {"final length", [](auto& b) { b.Add(StreamBuilder::Record(1, "length", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"final aborted", [](auto& b) { b.Add(StreamBuilder::Record(1, "aborted", {}, ZeroUsage())).Seal(); }, "", 0, kChildEventInvalid},
      {"final error with a clean exit", [](auto& b) { b.Add(StreamBuilder::Record(1, "error", {}, ZeroUsage())).Seal(); }, "", 0, kChildEventInvalid},
      {"final error with exit 1", [](auto& b) { b.Add(StreamBuilder::Record(1, "error", {}, ZeroUsage())).Seal(); }, "", 1, kChildExitFailed},
      {"non-final pending", [](auto& b) { b.Add(StreamBuilder::Record(1, "pending", {}, ZeroUsage())).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"non-final deferred", [](auto& b) { b.Add(StreamBuilder::Record(1, "deferred", {}, ZeroUsage())).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"non-final length", [](auto& b) { b.Add(StreamBuilder::Record(1, "length", {"x"}, Usage(1, 1))).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"non-final aborted", [](auto& b) { b.Add(StreamBuilder::Record(1, "aborted", {}, ZeroUsage())).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"error record with text", [](auto& b) { b.Add(StreamBuilder::Record(1, "error", {"oops"}, ZeroUsage())).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"error record with usage", [](auto& b) { b.Add(StreamBuilder::Record(1, "error", {}, Usage(5, 0))).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"retry marker not listed in the settlement", [](auto& b) { b.Add(StreamBuilder::Record(1, "error", {}, ZeroUsage())).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal([](json& s) { s["retry_marker_ordinals"] = json::array(); }); }, "a\n", 0, kChildEventInvalid},
      {"settlement lists a retry marker that is not an error", [](auto& b) { b.Add(StreamBuilder::Record(1, "toolUse", {}, Usage(1, 1))).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal([](json& s) { s["retry_marker_ordinals"] = {1}; }); }, "a\n", 0, kChildEventInvalid},
      {"unbound non-final stop", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1))).Add(StreamBuilder::Record(2, "stop", {"b"}, Usage(1, 1))).Seal(); }, "b\n", 0, kChildEventInvalid},
      {"oversized original without its file", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {Big()}, Usage(1, 1))).Add(StreamBuilder::Record(2, "stop", {"b"}, Usage(1, 1))).Seal([](json& s) { s["oversized_original_ordinal"] = 1; }); }, "b\n", 0, kChildEventInvalid},
      {"oversized original file tampered", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {Big()}, Usage(1, 1))).Add(StreamBuilder::Record(2, "stop", {"b"}, Usage(1, 1))).Seal([](json& s) { s["oversized_original_ordinal"] = 1; }); }, "b\n", 0, kChildEventInvalid, Big() + "z\n"},
      {"oversized original that fits the cap", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"small"}, Usage(1, 1))).Add(StreamBuilder::Record(2, "stop", {"b"}, Usage(1, 1))).Seal([](json& s) { s["oversized_original_ordinal"] = 1; }); }, "b\n", 0, kChildEventInvalid, std::string("small\n")},
      {"oversized original not followed directly by its replacement", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {Big()}, Usage(1, 1))).Add(StreamBuilder::Record(2, "toolUse", {}, Usage(1, 1))).Add(StreamBuilder::Record(3, "stop", {"b"}, Usage(1, 1))).Seal([](json& s) { s["oversized_original_ordinal"] = 1; }); }, "b\n", 0, kChildEventInvalid, Big() + "\n"},
      {"replacement still oversized", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {Big()}, Usage(1, 1))).Add(StreamBuilder::Record(2, "stop", {Big()}, Usage(1, 1))).Seal([](json& s) { s["oversized_original_ordinal"] = 1; }); }, Big() + "\n", 0, kChildOutputCap, Big() + "\n"},
      {"original file present but no oversized ordinal", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid, std::string("a\n")},
      {"settlement failed with child_output_cap", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1))).Seal([](json& s) { s["status"] = "failed"; s["failure_code"] = "child_output_cap"; }); }, "a\n", 1, kChildOutputCap},
      {"missing settlement", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1))); }, "a\n", 0, kChildEventInvalid},
      {"duplicate settlement", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1))).Seal().Seal(); }, "a\n", 0, kChildEventInvalid},
      {"frame after the settlement (early settlement)", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1))).Seal(); b.Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))); }, "a\n", 0, kChildEventInvalid},
      {"settlement count tampered", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1))).Seal([](json& s) { s["metadata_count"] = 2; }); }, "a\n", 0, kChildEventInvalid},
      {"settlement stream hash tampered", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1))).Seal([](json& s) { s["metadata_sha256"] = Sha256Ref("x"); }); }, "a\n", 0, kChildEventInvalid},
      {"settlement final hash tampered", [](auto& b) { b.Add(StreamBuilder::Record(1, "toolUse", {}, Usage(1, 1))).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal([](json& s) { s["final_record_sha256"] = Sha256Ref(EncodeFrameLine(StreamBuilder::Record(1, "toolUse", {}, Usage(1, 1)))); }); }, "a\n", 0, kChildEventInvalid},
      {"settlement final ordinal tampered", [](auto& b) { b.Add(StreamBuilder::Record(1, "toolUse", {}, Usage(1, 1))).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal([](json& s) { s["final_ordinal"] = 1; }); }, "a\n", 0, kChildEventInvalid},
      {"text hash tampered", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["text_sha256"] = Sha256Ref("b\n"); })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"block hash tampered", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["text_blocks"][0]["sha256"] = Sha256Ref("b"); })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"answer bytes tampered", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["answer_json_bytes"] = 0; })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"stdout differs by one byte", [&](auto& b) { b.Add(stop("abc")).Seal(); }, "abd\n", 0, kChildEventInvalid},
      {"stdout has an extra newline", [&](auto& b) { b.Add(stop("abc")).Seal(); }, "abc\n\n", 0, kChildEventInvalid},
      {"stdout empty", [&](auto& b) { b.Add(stop("abc")).Seal(); }, "", 0, kChildEventInvalid},
      {"wrong provider", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1), {"other", "scripted-a", "openai-completions"})).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"wrong model", [](auto& b) { b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1), {"scripted", "scripted-b", "openai-completions"})).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"ordinals skip", [](auto& b) { b.Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"request ordinals do not increase", [](auto& b) { b.Add(Tampered(StreamBuilder::Record(1, "toolUse", {}, Usage(1, 1)), [](json& r) { r["cache_observation"]["provider_request_ordinal"] = 2; })).Add(StreamBuilder::Record(2, "stop", {"a"}, Usage(1, 1))).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"cache observation claims long on an unmanaged api", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["cache_observation"]["effective_retention"] = "long"; })).Seal(); }, "a\n", 0, kChildCachePolicyInvalid},
      {"cache observation with five breakpoints", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["cache_observation"]["breakpoints"] = 5; })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"usage with an unknown key", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["usage"]["bonus"] = 1; })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"usage with a negative count", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["usage"]["input"] = -1; })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"usage without cost", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["usage"].erase("cost"); })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"metadata frame with an unknown key", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["thinking"] = "secret"; })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"metadata frame missing a key", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r.erase("tool_calls"); })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"unknown stop reason", [&](auto& b) { b.Add(Tampered(stop("a"), [](json& r) { r["stop_reason"] = "done"; })).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"progress frame with an unknown source", [&](auto& b) { b.Raw(EncodeFrameLine({{"schema_version", kProgressSchema}, {"source", "thinking"}, {"tools_running", 0}})).Add(stop("a")).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"progress frame carrying stream text", [&](auto& b) { b.Raw(EncodeFrameLine({{"schema_version", kProgressSchema}, {"source", "model_stream"}, {"tools_running", 0}, {"delta", "secret"}})).Add(stop("a")).Seal(); }, "a\n", 0, kChildEventInvalid},
      {"progress frame after the settlement", [&](auto& b) { b.Add(stop("a")).Seal(); b.Raw(EncodeFrameLine(ToJson(ProgressFrame{"model_stream"}))); }, "a\n", 0, kChildEventInvalid},
      {"unknown frame schema", [&](auto& b) { b.Add(stop("a")).Raw(std::string(kFramePrefix) + "{\"schema_version\":\"pi-background-tasks.fusion-other.v1\"}\n").Seal(); }, "a\n", 0, kChildEventInvalid},
      {"frame that is not canonical JSON", [&](auto& b) { b.Raw(std::string(kFramePrefix) + "{ \"schema_version\":\"x\"}\n"); }, "", 0, kChildEventInvalid},
      {"frame that is not JSON", [&](auto& b) { b.Raw(std::string(kFramePrefix) + "not json\n"); }, "", 0, kChildEventInvalid},
      {"frame cut off at the end of stderr", [&](auto& b) { b.Add(stop("a")).Seal(); b.Raw(std::string(kFramePrefix) + "{\"sch"); }, "a\n", 0, kChildEventInvalid},
      {"extension diagnostic", [&](auto& b) { b.Add(stop("a")).Raw("Extension error (/x/fusion-child.ts): boom\n").Seal(); }, "a\n", 0, kChildEventInvalid},
      {"exit code 1 with a clean stream", [&](auto& b) { b.Add(stop("a")).Seal(); }, "a\n", 1, kChildExitFailed},
  };
  // clang-format on
  for (const Rejection& c : cases) {
    SECTION(c.name) {
      StreamBuilder b;
      c.build(b);
      VerifyRequest request = RequestFor(b, c.stdout_bytes, c.exit_code);
      request.oversized_original = c.original;
      ChildReport report = VerifyChildRun(request);
      INFO(report.status.ToString());
      CHECK(report.status.code() == c.code);
      CHECK(report.answer.empty());
    }
  }
}

std::string GuardLine(std::string_view code) {
  RuntimeGuardFrame guard;
  guard.code = std::string(code);
  guard.hook = "before_provider_request";
  guard.route = testing::kRoute;
  guard.provider_request_ordinal = 551;
  guard.message = "refused";
  return EncodeFrameLine(ToJson(guard));
}

TEST_CASE("VerifyChildRun: a runtime-guard frame decides the code even after a clean exit") {
  for (std::string_view code :
       {kChildRuntimeLimitExceeded, kChildRuntimePayloadInvalid, kChildCachePolicyInvalid}) {
    StreamBuilder b;
    b.Add(StreamBuilder::Record(1, "stop", {"a"}, Usage(1, 1))).Raw(GuardLine(code)).Seal();
    ChildReport report = VerifyChildRun(RequestFor(b, "a\n", 0));
    CHECK(report.status.code() == code);
    REQUIRE(report.guard.has_value());
    CHECK(report.guard->provider_request_ordinal == 551);
    CHECK(report.usage["input"] == 1);  // evidence survives the failure
  }
}

TEST_CASE("VerifyChildRun: a guard wins over the exit failure it causes; two guards are invalid") {
  StreamBuilder b;
  b.Raw(GuardLine(kChildRuntimeLimitExceeded));
  b.Add(StreamBuilder::Record(1, "aborted", {}, ZeroUsage()));
  CHECK(VerifyChildRun(RequestFor(b, "", 1)).status.code() == kChildRuntimeLimitExceeded);
  b.Raw(GuardLine(kChildRuntimeLimitExceeded));
  CHECK(VerifyChildRun(RequestFor(b, "", 1)).status.code() == kChildEventInvalid);
}

TEST_CASE("VerifyChildRun: a child killed by a signal is an exit failure quoting Pi's stderr") {
  StreamBuilder b;
  b.Raw("400: {\"type\":\"error\"}\n");
  VerifyRequest request = RequestFor(b, "");
  request.exit.exit_code.reset();
  request.exit.term_signal = 9;
  ChildReport report = VerifyChildRun(request);
  CHECK(report.status.code() == kChildExitFailed);
  CHECK_THAT(report.status.message(), Catch::Contains("signal 9"));
  CHECK_THAT(report.status.message(), Catch::Contains("400:"));
}

}  // namespace
}  // namespace pi_fusion::protocol
