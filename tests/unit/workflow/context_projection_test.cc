// The reason workflow's session projection (src/workflow/context_projection.h).
#include "workflow/context_projection.h"

#include <cstdlib>
#include <fstream>

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;
using pi_fusion::testing::CheckAgainstSchema;
using pi_fusion::testing::LoadArtifactSchema;
using pi_fusion::testing::ReadSourceFile;

schema::NormalizedRequest ReasonRequest(const std::string& prompt) {
  auto request = schema::NormalizeFusionCall("fusion_reason", {{"prompt", prompt}});
  REQUIRE(request.ok());
  return request.value();
}

SessionProjectionRequest Request(json branch, std::optional<std::string> active = std::nullopt) {
  return {"/work/repo", std::move(branch), std::move(active),
          ReasonRequest("Is adding foo.cc the right fix?")};
}

json Message(const std::string& id, json message) {
  return {{"type", "message"},
          {"id", id},
          {"parentId", nullptr},
          {"timestamp", "t"},
          {"message", std::move(message)}};
}
json User(const std::string& id, json content) {
  return Message(id, {{"role", "user"}, {"content", std::move(content)}, {"timestamp", 1}});
}
json Assistant(const std::string& id, json content) {
  return Message(id, {{"role", "assistant"}, {"content", std::move(content)}, {"timestamp", 2}});
}
json Text(const std::string& text) { return {{"type", "text"}, {"text", text}}; }

const json& Conversation(const SessionProjection& p) {
  return p.input.value["context"]["conversation"];
}

// Golden files hold the exact canonical bytes. PI_FUSION_UPDATE_GOLDEN=1 rewrites them; review
// the diff before committing.
void CheckGolden(const std::string& name, const std::string& actual) {
  const std::string path = "tests/unit/workflow/golden/" + name;
  if (std::getenv("PI_FUSION_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(std::string(PI_FUSION_SOURCE_DIR) + "/" + path, std::ios::binary) << actual;
  }
  CHECK(ReadSourceFile(path) == actual);
}

}  // namespace

TEST_CASE("ContextProjection: realistic branch projects to the golden input and ledger",
          "[workflow][projection]") {
  const json branch = json::parse(ReadSourceFile("tests/unit/workflow/golden/reason-branch.json"));
  auto projected = ProjectSession(Request(branch, "toolu_fusion_3"));
  REQUIRE(projected.ok());
  CheckGolden("reason-input.json", projected->input.bytes);
  CheckGolden("reason-ledger.json", projected->ledger.bytes);

  SECTION("shape and schemas") {
    CHECK(CheckAgainstSchema(LoadArtifactSchema("fusion-input.v5.json"), projected->input.value)
              .empty());
    CHECK(CheckAgainstSchema(LoadArtifactSchema("fusion-context-ledger.v2.json"),
                             projected->ledger.value)
              .empty());
    CHECK(projected->input.bytes == CanonicalJson(projected->input.value));
    CHECK(projected->input.value["context"]["omissions"]["ledger_sha256"] ==
          Sha256Ref(projected->ledger.bytes));
  }
  SECTION("roles in order: text verbatim, receipts between") {
    std::vector<std::string> roles;
    for (const json& item : Conversation(*projected)) roles.push_back(item["role"]);
    CHECK(roles == std::vector<std::string>{"omission", "user", "user", "omission", "assistant",
                                            "omission", "assistant", "custom", "omission", "user"});
    CHECK(Conversation(*projected)[6]["text"] ==
          "The linker cannot find `foo()`: add `foo.cc` to the target.\n\nCafé — ✓ \"quoted\" "
          "\\ tab\there");
  }
  SECTION("payloads never enter the input; the active call and its sibling are excluded") {
    const std::string& input = projected->input.bytes;
    for (const char* secret : {"undefined reference", "read the log first", "build/log.txt",
                               "captured 1 window", "iVBORw0KGgo", "R0lGODlh", "cursor",
                               "You are Pi", "Asking Fusion", "toolu_grep_4", "src/foo.cc"}) {
      INFO(secret);
      CHECK(input.find(secret) == std::string::npos);
    }
    for (const char* payload : {"undefined reference", "read the log first", "iVBORw0KGgo"}) {
      CHECK(projected->ledger.bytes.find(payload) == std::string::npos);
    }
    const json& b = projected->ledger.value["branch"];
    CHECK(b["excluded_entry_ids"] == json::array({"e0000014", "e0000015"}));
    CHECK(b["active_tool_call_id"] == "toolu_fusion_3");
    CHECK(b["leaf_id"] == "e0000015");
    CHECK(b["entry_count"] == 15);
  }
  SECTION("a receipt's hash is the hash of its ledger rows") {
    const json& rows = projected->ledger.value["omissions"];
    const json run = json::array({rows[3], rows[4], rows[5], rows[6], rows[7]});
    const std::string receipt = Conversation(*projected)[5]["text"];
    CHECK(receipt == "[omitted: tool_call=2, tool_result_text=2, tool_result_image=1; " +
                         std::to_string(rows[3]["bytes"].get<int>() + rows[4]["bytes"].get<int>() +
                                        rows[5]["bytes"].get<int>() + rows[6]["bytes"].get<int>() +
                                        rows[7]["bytes"].get<int>()) +
                         " bytes; ledger 3-7; " + Sha256Ref(CanonicalJson(run)) + "]");
    CHECK(rows[7]["bytes"] == 10);  // the decoded GIF, not its base64
    CHECK(Conversation(*projected)[2]["text"] ==
          "[image: image/png, 12 bytes, " +
              Sha256Ref(std::string("\x89PNG\r\n\x1a\n\0\0\0\r", 12)) + "]");
  }
}

TEST_CASE("ContextProjection: same branch, same bytes", "[workflow][projection]") {
  const std::string text = ReadSourceFile("tests/unit/workflow/golden/reason-branch.json");
  auto first = ProjectSession(Request(json::parse(text), "toolu_fusion_3"));
  // Re-serializing with other whitespace and key order must not matter.
  auto second = ProjectSession(Request(json::parse(json::parse(text).dump(2)), "toolu_fusion_3"));
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(first->input.bytes == second->input.bytes);
  CHECK(first->ledger.bytes == second->ledger.bytes);
}

TEST_CASE("ContextProjection: /fusion without an active call keeps the whole branch",
          "[workflow][projection]") {
  const json branch = json::parse(ReadSourceFile("tests/unit/workflow/golden/reason-branch.json"));
  auto projected = ProjectSession(Request(branch));
  REQUIRE(projected.ok());
  const json& conversation = Conversation(*projected);
  CHECK(conversation.back()["role"] == "omission");  // the grep result, last
  CHECK(conversation[conversation.size() - 2]["text"] == "Asking Fusion for a second opinion.");
  CHECK(projected->ledger.value["branch"]["excluded_entry_ids"].empty());
  CHECK(projected->ledger.value["branch"]["active_tool_call_id"].is_null());
}

TEST_CASE("ContextProjection: exact receipt and marker text", "[workflow][projection]") {
  const json branch = json::array(
      {Assistant("a1", json::array({{{"type", "thinking"}, {"thinking", "abc"}}, Text("ok")}))});
  auto projected = ProjectSession(Request(branch));
  REQUIRE(projected.ok());
  const json row = {{"index", 0}, {"kind", "assistant_thinking"}, {"entry_id", "a1"}, {"block", 0},
                    {"bytes", 3}, {"sha256", Sha256Ref("abc")}};
  CHECK(projected->ledger.value["omissions"] == json::array({row}));
  CHECK(Conversation(*projected) ==
        json::array({{{"role", "omission"},
                      {"text", "[omitted: assistant_thinking=1; 3 bytes; ledger 0; " +
                                   Sha256Ref(CanonicalJson(json::array({row}))) + "]"}},
                     {{"role", "assistant"}, {"text", "ok"}}}));
  CHECK(projected->input.value["context"]["omissions"]["count"] == 1);
  CHECK(projected->input.value["context"]["omissions"]["bytes"] == 3);
}

TEST_CASE("ContextProjection: compaction keeps the summary, the kept tail and what follows",
          "[workflow][projection]") {
  const json branch = json::array({User("u1", "first question"),
                                   Assistant("a1", json::array({Text("first answer")})),
                                   User("u2", "second question"),
                                   Assistant("a2", json::array({Text("second answer")})),
                                   {{"type", "compaction"},
                                    {"id", "c1"},
                                    {"parentId", "a2"},
                                    {"timestamp", "t"},
                                    {"summary", "The user asked two questions."},
                                    {"firstKeptEntryId", "u2"},
                                    {"tokensBefore", 1000}},
                                   User("u3", "third question")});
  auto projected = ProjectSession(Request(branch));
  REQUIRE(projected.ok());
  CHECK(Conversation(*projected) ==
        json::array({{{"role", "compaction_summary"}, {"text", "The user asked two questions."}},
                     {{"role", "user"}, {"text", "second question"}},
                     {{"role", "assistant"}, {"text", "second answer"}},
                     {{"role", "user"}, {"text", "third question"}}}));
  CHECK(projected->ledger.value["branch"]["compaction_id"] == "c1");
}

TEST_CASE("ContextProjection: context edits, branch summaries and bash executions",
          "[workflow][projection]") {
  const json branch = json::array({User("u1", "drop me"),
                                   User("u2", "edit me"),
                                   {{"type", "context_edit"},
                                    {"id", "x1"},
                                    {"parentId", "u2"},
                                    {"timestamp", "t"},
                                    {"targetId", "u1"},
                                    {"replacement", nullptr}},
                                   {{"type", "context_edit"},
                                    {"id", "x2"},
                                    {"parentId", "x1"},
                                    {"timestamp", "t"},
                                    {"targetId", "u2"},
                                    {"replacement", {{"content", "edited"}}}},
                                   {{"type", "branch_summary"},
                                    {"id", "b1"},
                                    {"parentId", "x2"},
                                    {"timestamp", "t"},
                                    {"fromId", "u1"},
                                    {"summary", "Tried another approach."}},
                                   Message("s1", {{"role", "bashExecution"},
                                                  {"command", "ls"},
                                                  {"output", "a b"},
                                                  {"exitCode", 0},
                                                  {"cancelled", false},
                                                  {"truncated", false},
                                                  {"timestamp", 3}}),
                                   Message("s2", {{"role", "bashExecution"},
                                                  {"command", "env"},
                                                  {"output", "SECRET"},
                                                  {"exitCode", 0},
                                                  {"cancelled", false},
                                                  {"truncated", false},
                                                  {"timestamp", 4},
                                                  {"excludeFromContext", true}})});
  auto projected = ProjectSession(Request(branch));
  REQUIRE(projected.ok());
  const json& conversation = Conversation(*projected);
  REQUIRE(conversation.size() == 3);
  CHECK(conversation[0] == json{{"role", "user"}, {"text", "edited"}});
  CHECK(conversation[1] == json{{"role", "branch_summary"}, {"text", "Tried another approach."}});
  CHECK(conversation[2]["text"].get<std::string>().starts_with("[omitted: bash_execution=1; "));
  CHECK(projected->input.bytes.find("SECRET") == std::string::npos);
  CHECK(projected->ledger.value["omissions"].size() == 1);
}

TEST_CASE("ContextProjection: null or missing content is no blocks, as in Pi",
          "[workflow][projection]") {
  json no_content = Assistant("a1", nullptr);
  no_content["message"].erase("content");
  auto projected = ProjectSession(Request(json::array({User("u1", nullptr), no_content})));
  REQUIRE(projected.ok());
  CHECK(Conversation(*projected).empty());
}

TEST_CASE("ContextProjection: refuses what the policy does not know and malformed branches",
          "[workflow][projection]") {
  struct Case {
    const char* name;
    json branch;
    std::optional<std::string> active;
    std::string_view code;
    const char* message_part;
  };
  const std::vector<Case> cases = {
      {"unsupported assistant block",
       json::array({Assistant("a1", json::array({{{"type", "audio"}, {"data", "x"}}}))}),
       std::nullopt, kContextPolicyUnsupportedBlock,
       "branch[0] (entry a1) content[0]: unsupported block type \"audio\" in assistant content"},
      {"unsupported user block", json::array({User("u1", json::array({{{"type", "file"}}}))}),
       std::nullopt, kContextPolicyUnsupportedBlock, "unsupported block type \"file\""},
      {"unsupported tool result block",
       json::array({Message(
           "r1", {{"role", "toolResult"},
                  {"toolName", "t"},
                  {"toolCallId", "c"},
                  {"content", json::array({{{"type", "thinking"}, {"thinking", "x"}}})}})}),
       std::nullopt, kContextPolicyUnsupportedBlock, "in toolResult content"},
      {"unsupported role", json::array({Message("m1", {{"role", "narrator"}, {"content", "x"}})}),
       std::nullopt, kContextPolicyUnsupportedBlock, "unsupported message role \"narrator\""},
      {"unsupported entry type",
       json::array({{{"type", "hologram"}, {"id", "h1"}, {"parentId", nullptr}}}), std::nullopt,
       kContextPolicyUnsupportedBlock, "branch[0] (entry h1): unsupported entry type \"hologram\""},
      {"branch not an array", json::object(), std::nullopt, kContextCaptureFailed, "not an array"},
      {"entry without id", json::array({{{"type", "message"}}}), std::nullopt,
       kContextCaptureFailed, "branch[0] has no string `type` and `id`"},
      {"message without role", json::array({Message("m1", {{"content", "x"}})}), std::nullopt,
       kContextCaptureFailed, "no message object with a string role"},
      {"text that is not a string",
       json::array({User("u1", json::array({{{"type", "text"}, {"text", 7}}}))}), std::nullopt,
       kContextCaptureFailed, "malformed text block"},
      {"tool call without name",
       json::array({Assistant(
           "a1",
           json::array({{{"type", "toolCall"}, {"id", "c"}, {"arguments", json::object()}}}))}),
       std::nullopt, kContextCaptureFailed, "malformed toolCall block"},
      {"invalid image base64",
       json::array({User(
           "u1", json::array({{{"type", "image"}, {"data", "@@@@"}, {"mimeType", "image/png"}}}))}),
       std::nullopt, kContextCaptureFailed, "image data is not valid base64"},
      {"content neither string nor array", json::array({User("u1", 5)}), std::nullopt,
       kContextCaptureFailed, "neither a string nor an array"},
      {"active call not on the branch", json::array({User("u1", "hi")}), "toolu_missing",
       kContextCaptureFailed, "the active tool call toolu_missing is not"},
      {"invalid UTF-8", json::array({User("u1", std::string("bad \xff byte"))}), std::nullopt,
       kContextCaptureFailed, "cannot be"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    auto projected = ProjectSession(Request(c.branch, c.active));
    REQUIRE_FALSE(projected.ok());
    CHECK(projected.status().code() == c.code);
    CHECK_THAT(projected.status().message(), Catch::Contains(c.message_part));
  }
}

TEST_CASE("ContextProjection: only for reason requests with a cwd", "[workflow][projection]") {
  SessionProjectionRequest no_cwd = Request(json::array());
  no_cwd.cwd = "";
  CHECK(ProjectSession(no_cwd).status().code() == kContextCaptureFailed);

  SessionProjectionRequest other = Request(json::array());
  auto investigate = schema::NormalizeFusionCall(
      "fusion_investigate",
      {{"objective", "o"}, {"background", json::array()}, {"deliverable", "d"}});
  REQUIRE(investigate.ok());
  other.request = investigate.value();
  CHECK(ProjectSession(other).status().code() == kContextCaptureFailed);
  CHECK(ProjectSession(other).status().message() ==
        "the session projection is for the reason workflow, not \"investigate\"");

  auto empty = ProjectSession(Request(json::array()));
  REQUIRE(empty.ok());
  CHECK(Conversation(*empty).empty());
}

}  // namespace pi_fusion::workflow
