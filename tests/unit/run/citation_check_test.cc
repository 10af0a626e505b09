// The citation check of a completed run (run/citation_check.h): real files in a temp project,
// read through the candidates' FileWall.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <catch2/catch.hpp>

#include "run/citation_check.h"
#include "run/judgment_text.h"
#include "test_support.h"

namespace pi_fusion::run {
namespace {

using nlohmann::json;

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

struct Project {
  store::testing::TempDir dir;
  std::string root = dir.path() + "/project";
  Project() {
    ::mkdir(root.c_str(), 0700);
    ::mkdir((root + "/src").c_str(), 0700);
    ::mkdir((root + "/.pi").c_str(), 0700);
    ::mkdir((root + "/.pi/fusion").c_str(), 0700);
    Write(root + "/src/lexer.c", "int a;\nint b;\nreturn a + b;\n");
    Write(root + "/.env", "TOKEN=secret\n");
    Write(root + "/.pi/fusion/run.json", "{}\n");
    Write(dir.path() + "/outside.txt", "outside\nlines\n");
    ::symlink((dir.path() + "/outside.txt").c_str(), (root + "/escape.txt").c_str());
  }
  json Check(const std::string& text) const {
    CitationCheckInput input;
    input.cwd = root;
    input.home = dir.path() + "/home";
    input.agent_dir = dir.path() + "/agent";
    input.texts = {{"candidate 1", text}};
    return CheckCitations(input);
  }
};

json Broken(const json& record, const std::string& ref) {
  for (const json& row : record["broken"]) {
    if (row["ref"] == ref) return row;
  }
  return json();
}

TEST_CASE("CheckCitations: an existing line holds; missing file, past end and wrong quote break") {
  Project p;
  const json record = p.Check(
      "Fine: src/lexer.c:2 with `int b;`\nGone: src/gone.c:1\nPast: src/lexer.c:900\n"
      "Wrong: src/lexer.c:3 holds `return a - b;`");
  CHECK(record["checked"] == 4);
  REQUIRE(record["broken"].size() == 3);
  CHECK(Broken(record, "src/gone.c:1")["reason"] == "missing_file");
  CHECK(Broken(record, "src/lexer.c:900")["reason"] == "past_end");
  CHECK(Broken(record, "src/lexer.c:900")["detail"] == "is past the end (3 lines)");
  CHECK(Broken(record, "src/lexer.c:3")["reason"] == "quote_not_found");
  CHECK(Broken(record, "src/lexer.c:3")["in"] == json::array({"candidate 1"}));
  REQUIRE(record["files"].size() == 1);
  CHECK(record["files"][0]["path"] == "src/lexer.c");
  CHECK(record["files"][0]["lines"] == 3);
  CHECK(record["files"][0]["changed_during_run"] == false);
  CHECK(CitationsLine(record).rfind("citations: 4 checked, 3 broken — ", 0) == 0);
}

TEST_CASE("CheckCitations: protected paths and a symlink out of the project are not checkable") {
  Project p;
  const json record = p.Check("a .env:1, the run store .pi/fusion/run.json:1, escape.txt:1");
  CHECK(record["checked"] == 3);
  for (const char* ref : {".env:1", ".pi/fusion/run.json:1", "escape.txt:1"}) {
    INFO(ref);
    CHECK(Broken(record, ref)["reason"] == "not_checkable");
  }
  // Never read: no file row carries their hash.
  CHECK(record["files"].empty());
}

TEST_CASE("CheckCitations: a file modified after the run started is named as changed") {
  Project p;
  CitationCheckInput input;
  input.cwd = p.root;
  input.started_unix_ms = (int64_t{::time(nullptr)} - 3600) * 1000;  // an hour ago
  input.texts = {{"answer", "src/lexer.c:9"}};
  const json record = CheckCitations(input);
  REQUIRE(record["broken"].size() == 1);
  CHECK(record["broken"][0]["detail"] ==
        "is past the end (3 lines); the file changed during the run");
  CHECK(record["files"][0]["changed_during_run"] == true);
}

TEST_CASE("CheckCitations: citations past the cap are counted, not checked") {
  Project p;
  std::string text;
  for (size_t i = 1; i <= kMaxCitationsChecked + 2; ++i) {
    text += "src/lexer.c:" + std::to_string(i) + "\n";
  }
  const json record = p.Check(text);
  CHECK(record["checked"] == kMaxCitationsChecked);
  CHECK(record["unchecked"] == 2);
}

TEST_CASE("AgreementRecord: counts and the panel's kind") {
  const json evaluation = {{"agreements", {"x", "y"}},
                           {"conflicts", json::array({json::object()})}};
  CHECK(AgreementRecord(evaluation, {"p/m", "p/m", "p/m"}) ==
        json({{"agreements", 2}, {"conflicts", 1}, {"panel", "one_model"}}));
  CHECK(PanelKind({"p/a", "p/b", "p/a"}) == "one_family");
  CHECK(PanelKind({"p/a", "q/a"}) == "distinct");
  CHECK(AgreementLine(AgreementRecord(evaluation, {"p/m"})) ==
        "Panel: 2 agreements, 1 conflict; candidates from one model.");
  CHECK(AgreementLine(json()) == "");
}

TEST_CASE("OrderCheckLine: the order-sensitive count, or the stable conflicts") {
  json record = {{"passes", 2},
                 {"order_sensitive", 1},
                 {"conflicts", {{{"favoured_slots", {1, 2}}, {"stable", false}}}}};
  CHECK(OrderCheckLine(record) == "order-sensitive: 1 of 1 conflict");
  record["conflicts"][0] = {{"favoured_slots", {2, 2}}, {"stable", true}};
  CHECK(OrderCheckLine(record) == "");  // order_sensitive 1 no longer matches: not a record
  record["order_sensitive"] = 0;
  CHECK(OrderCheckLine(record) == "order check: 1 conflict stable");
  CHECK(OrderCheckLine(json()) == "");
}

}  // namespace
}  // namespace pi_fusion::run
