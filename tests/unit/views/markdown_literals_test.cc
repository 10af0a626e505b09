// Unfenced code in an answer keeps its `*` in the TUI: intraword stars are escaped, nothing else.
#include "views/markdown_literals.h"

#include <catch2/catch.hpp>

using pi_fusion::views::KeepIntrawordStars;
using pi_fusion::views::KeepIntrawordStarsInView;

TEST_CASE("intraword stars are escaped; emphasis, code and fences are kept", "[views]") {
  CHECK(KeepIntrawordStars("x = a*b*c") == "x = a\\*b\\*c");
  CHECK(KeepIntrawordStars("2**n**m") == "2\\*\\*n\\*\\*m");
  // Emphasis the writer meant, and stars beside spaces, stay as they are.
  CHECK(KeepIntrawordStars("a *word* and **bold** x * y") == "a *word* and **bold** x * y");
  CHECK(KeepIntrawordStars("* item\n- a*b") == "* item\n- a\\*b");
  // Inline code, fenced code and indented code show a backslash literally: left alone.
  CHECK(KeepIntrawordStars("see `a*b*c` or a*b") == "see `a*b*c` or a\\*b");
  CHECK(KeepIntrawordStars("```c\nx = a*b*c;\n```\ny = a*b") == "```c\nx = a*b*c;\n```\ny = a\\*b");
  CHECK(KeepIntrawordStars("~~~~\na*b\n~~~\nc*d\n~~~~\ne*f") == "~~~~\na*b\n~~~\nc*d\n~~~~\ne\\*f");
  CHECK(KeepIntrawordStars("    x = a*b*c\n\tp*q") == "    x = a*b*c\n\tp*q");
  // An already escaped star, and text without stars, are unchanged.
  CHECK(KeepIntrawordStars("a\\*b") == "a\\*b");
  CHECK(KeepIntrawordStars("plain\n\ntext\n") == "plain\n\ntext\n");
}

TEST_CASE("a view's answers and candidate answers are escaped, its other texts are not",
          "[views]") {
  nlohmann::json view = {{"status", "a*b*c"},
                         {"answer", {{"preview", "a*b"}, {"markdown", "a*b*c"}}},
                         {"candidates", {{{"markdown", "p*q"}, {"note", "p*q"}}}}};
  KeepIntrawordStarsInView(view);
  CHECK(view["status"] == "a*b*c");
  CHECK(view["answer"]["preview"] == "a\\*b");
  CHECK(view["answer"]["markdown"] == "a\\*b\\*c");
  CHECK(view["candidates"][0]["markdown"] == "p\\*q");
  CHECK(view["candidates"][0]["note"] == "p*q");
}
