// Run directory layout, session id sanitization and artifact name rules.
#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "store/run_paths.h"

TEST_CASE("SanitizeSessionId: keeps [A-Za-z0-9._-], maps the rest, never empty or dot names",
          "[store]") {
  struct Case {
    std::string input;
    std::string expected;
  };
  const Case cases[] = {
      {"abc-DEF_1.2", "abc-DEF_1.2"},
      {"a/b\\c d", "a_b_c_d"},
      {"\xc3\xa9t\xc3\xa9", "__t__"},
      {"", "session"},
      {".", "_"},
      {"..", "_."},
      {"../../etc", "_._.._etc"},
      {".hidden", "_hidden"},
      {std::string(100, 'x'), std::string(64, 'x')},
      {std::string("a\0b", 3), "a_b"},
  };
  for (const Case& c : cases) {
    INFO(c.input);
    CHECK(pi_fusion::store::SanitizeSessionId(c.input) == c.expected);
  }
}

TEST_CASE("RunDirectory: <cwd>/.pi/fusion/<session>-<pid>/<run-id>", "[store]") {
  const std::string id = "reason-0123456789abcdef0123456789abcdef";
  CHECK(pi_fusion::store::RunDirectory("/home/u/proj", "s 1", 77, id) ==
        "/home/u/proj/.pi/fusion/s_1-77/" + id);
  CHECK(pi_fusion::store::RunDirectory("/", "", 1, id) == "/.pi/fusion/session-1/" + id);
}

TEST_CASE("ValidateArtifactName: plain basenames only", "[store]") {
  struct Case {
    std::string name;
    bool ok;
  };
  const Case cases[] = {
      {"merged.md", true},
      {"candidate-1.attempt-2.response.partial.md", true},
      {"evaluation.attempt-1.events.jsonl", true},
      {"", false},
      {".", false},
      {"..", false},
      {"../x", false},
      {"/etc/passwd", false},
      {"a/b", false},
      {".hidden", false},
      {".x.tmp-0", false},
      {"sp ace", false},
      {"caf\xc3\xa9", false},
      {std::string(128, 'a'), true},
      {std::string(129, 'a'), false},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const pi_fusion::Status s = pi_fusion::store::ValidateArtifactName(c.name);
    CHECK(s.ok() == c.ok);
    if (!c.ok) CHECK(s.code() == pi_fusion::kArtifactError);
  }
}
