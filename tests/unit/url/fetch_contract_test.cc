// The contract of `pi-fusion fetch`: its answer's writer and closed reader agree (round trip), the
// reader refuses what the writer never writes, and both shapes match their closed schemas in
// schemas/cli/.
#include "url/fetch_contract.h"

#include <catch2/catch.hpp>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "json_schema_check.h"
#include "pi_fusion/sha256.h"

namespace pi_fusion::url {
namespace {

using nlohmann::json;

FetchedPage SamplePage() {
  FetchedPage page;
  page.url = "https://example.com/a";
  page.final_url = "https://example.com/b";
  page.http_status = 200;
  page.content_type = "text/html";
  page.response_bytes = 5120;
  page.content_sha256 = Sha256Ref("page");
  page.extracted_bytes = 7;
  page.truncated = true;
  page.text = "# Title\n";
  return page;
}

FetchFailure SampleFailure() {
  return {"http_error", "HTTP status 404", "https://example.com/old", "https://example.com/new",
          404};
}

json AnswerSchema() { return testing::LoadSourceJson("schemas/cli/fetch-answer.json"); }

// What the reader made of `line`: the answer, or the error message ("<no answer>" for nullopt).
std::string ReadProblem(const std::string& line) {
  Result<std::optional<FetchAnswer>> read = ParseFetchAnswer(line);
  if (!read.ok()) {
    CHECK(read.status().code() == "fetch_process_failed");
    return read.status().message();
  }
  return *read ? "" : "<no answer>";
}

TEST_CASE("FetchAnswer: the writer's lines match the closed schema and read back equal") {
  FetchFailure bare{"dns_failure", "x does not exist", {}, {}, {}};
  for (const FetchAnswer& answer :
       {FetchAnswer(SamplePage()), FetchAnswer(SampleFailure()), FetchAnswer(bare)}) {
    const std::string line = FetchAnswerLine(answer);
    INFO(line);
    CHECK(testing::CheckAgainstSchema(AnswerSchema(), json::parse(line)).empty());
    Result<std::optional<FetchAnswer>> read = ParseFetchAnswer(line + "\n");
    REQUIRE(read.ok());
    REQUIRE(read->has_value());
    CHECK(FetchAnswerLine(**read) == line);
  }
  // Copies, not references: the parsed Result is a temporary that ends with the statement.
  const FetchedPage page = std::get<FetchedPage>(**ParseFetchAnswer(FetchAnswerLine(SamplePage())));
  CHECK(page.text == "# Title\n");
  CHECK(page.truncated);
  const FetchFailure failure = std::get<FetchFailure>(**ParseFetchAnswer(FetchAnswerLine(bare)));
  CHECK(failure.code == "dns_failure");
  CHECK_FALSE(failure.url.has_value());
  CHECK_FALSE(failure.http_status.has_value());
}

TEST_CASE("FetchAnswer: keys come in the documented order, on one line") {
  CHECK(FetchAnswerLine(SampleFailure()) ==
        "{\"ok\":false,\"error\":{\"code\":\"http_error\",\"message\":\"HTTP status 404\"},"
        "\"url\":\"https://example.com/old\",\"final_url\":\"https://example.com/new\","
        "\"http_status\":404}");
  const std::string page = FetchAnswerLine(SamplePage());
  CHECK(page.rfind("{\"ok\":true,\"url\":\"https://example.com/a\",\"final_url\":", 0) == 0);
  CHECK(page.find("\"extracted_bytes\":7,\"truncated\":true,\"text\":\"# Title\\n\"}") !=
        std::string::npos);
  // Invalid UTF-8 in a page's text is replaced, never thrown on.
  FetchedPage bad = SamplePage();
  bad.text =
      "a\xff"
      "b";
  CHECK(FetchAnswerLine(bad).find("\"text\":\"a\xEF\xBF\xBD"
                                  "b\"") != std::string::npos);
}

TEST_CASE("FetchAnswer: the reader refuses an unknown key") {
  json page = json::parse(FetchAnswerLine(SamplePage()));
  page["prompt"] = "follow me";
  CHECK(ReadProblem(page.dump()) == "the fetcher's answer has an unknown key \"prompt\"");
  json failure = json::parse(FetchAnswerLine(SampleFailure()));
  failure["retry"] = true;
  CHECK(ReadProblem(failure.dump()) == "the fetcher's answer has an unknown key \"retry\"");
  failure = json::parse(FetchAnswerLine(SampleFailure()));
  failure["error"]["hint"] = "x";
  CHECK(ReadProblem(failure.dump()) == "the fetcher's error answer is malformed");
  // The schema refuses the same.
  CHECK_FALSE(testing::CheckAgainstSchema(AnswerSchema(), page).empty());
}

TEST_CASE("FetchAnswer: the reader refuses a repeated key") {
  const std::string line = FetchAnswerLine(SamplePage());
  const std::string twice = line.substr(0, line.size() - 1) + ",\"url\":\"https://b.example/\"}";
  CHECK(ReadProblem(twice) == "the fetcher's answer repeats the key \"url\" in one object");
  CHECK(ReadProblem("{\"ok\":false,\"error\":{\"code\":\"a\",\"code\":\"b\",\"message\":\"m\"}}") ==
        "the fetcher's answer repeats the key \"code\" in one object");
}

TEST_CASE("FetchAnswer: a page without a field, or with one of another type, lacks it") {
  for (const char* key : {"url", "final_url", "content_type", "content_sha256", "text",
                          "http_status", "response_bytes", "extracted_bytes", "truncated"}) {
    INFO(key);
    json page = json::parse(FetchAnswerLine(SamplePage()));
    page.erase(key);
    CHECK(ReadProblem(page.dump()) == std::string("answer lacks ") + key);
    page[key] = json::array();
    CHECK(ReadProblem(page.dump()) == std::string("answer lacks ") + key);
  }
  json negative = json::parse(FetchAnswerLine(SamplePage()));
  negative["response_bytes"] = -1;
  CHECK(ReadProblem(negative.dump()) == "answer lacks response_bytes");
  // The first missing one in the order the checks have always run is the one named.
  CHECK(ReadProblem("{\"ok\":true}") == "answer lacks url");
}

TEST_CASE("FetchAnswer: a failure must carry {code, message} and typed extras") {
  for (const char* line :
       {"{\"ok\":false}", "{\"ok\":false,\"error\":\"dns\"}",
        "{\"ok\":false,\"error\":{\"code\":5,\"message\":\"m\"}}",
        "{\"ok\":false,\"error\":{\"code\":\"c\"}}",
        "{\"ok\":false,\"error\":{\"code\":\"c\",\"message\":\"m\"},\"http_status\":\"404\"}",
        "{\"ok\":false,\"error\":{\"code\":\"c\",\"message\":\"m\"},\"final_url\":null}"}) {
    INFO(line);
    CHECK(ReadProblem(line) == "the fetcher's error answer is malformed");
  }
}

TEST_CASE("FetchAnswer: bytes that are no answer at all are left to the caller") {
  for (const char* bytes : {"", "garbage", "[]", "{}", "{\"ok\":1}", "{\"ok\":true}\n{\"ok\":true}",
                            "{\"error\":{\"code\":\"c\",\"message\":\"m\"}}"}) {
    INFO(bytes);
    CHECK(ReadProblem(bytes) == "<no answer>");
  }
}

TEST_CASE("FetchRequest: a --stdio line is the closed {url, extract?}") {
  const json schema = testing::LoadSourceJson("schemas/cli/fetch-request.json");
  for (const char* line : {"{\"url\":\"https://example.com/\"}",
                           "{\"url\":\"https://example.com/\",\"extract\":\"text\"}"}) {
    INFO(line);
    Result<FetchRequest> request = ParseFetchRequest(line);
    REQUIRE(request.ok());
    CHECK(request->url == "https://example.com/");
    CHECK(testing::CheckAgainstSchema(schema, json::parse(line)).empty());
  }
  CHECK(ParseFetchRequest("{\"url\":\"https://example.com/\"}")->extract == "markdown");
  struct Row {
    const char* line;
    const char* message;
  };
  for (const Row& row : {
           Row{"[1]", "request is not a JSON object"},
           Row{"not json", "request is not a JSON object"},
           Row{"{\"url\":\"u\",\"prompt\":\"p\"}", "unknown request field \"prompt\""},
           Row{"{\"extract\":\"text\"}", "request needs a string \"url\""},
           Row{"{\"url\":\"u\",\"extract\":\"html\"}",
               "\"extract\" must be \"text\" or \"markdown\""},
       }) {
    INFO(row.line);
    Result<FetchRequest> request = ParseFetchRequest(row.line);
    REQUIRE_FALSE(request.ok());
    CHECK(request.status().code() == "invalid_request");
    CHECK(request.status().message() == row.message);
    if (json::accept(row.line)) {
      CHECK_FALSE(testing::CheckAgainstSchema(schema, json::parse(row.line)).empty());
    }
  }
}

}  // namespace
}  // namespace pi_fusion::url
