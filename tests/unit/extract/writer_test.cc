#include <catch2/catch.hpp>

#include <string>

#include "extract/writer.h"

namespace pi_fusion::extract {
namespace {

TEST_CASE("Writer: collapses whitespace and separates blocks", "[extract][writer]") {
  Writer w;
  w.Text(
      "  a \n\t b\xC2\xA0\xC2\xA0"
      "c  ");
  w.Break(false);
  w.Text("d");
  w.Break(true);
  w.Break(false);
  w.Text(" e ");
  w.Break(true);
  CHECK(w.Take() == "a b c\nd\n\ne");
}

TEST_CASE("Writer: marks hug their text and vanish when empty", "[extract][writer]") {
  Writer w;
  w.Text("x ");
  w.OpenMark("**", "**");
  w.Text(" bold ");
  w.CloseMark();
  w.OpenMark("*", "*");
  w.CloseMark();
  w.Text("y");
  CHECK(w.Take() == "x **bold** y");
}

TEST_CASE("Writer: a block break ends a mark, a line break reopens it", "[extract][writer]") {
  Writer w;
  w.OpenMark("**", "**");
  w.Text("a");
  w.LineBreak();
  w.Text("b");
  w.Break(true);
  w.Text("c");
  w.CloseMark();
  CHECK(w.Take() == "**a**\n**b**\n\nc");
}

TEST_CASE("Writer: prefixes for quotes and list items, empty lines inside quotes",
          "[extract][writer]") {
  Writer w;
  w.Text("intro");
  w.Break(true);
  w.PushPrefix("> ", "> ");
  w.Text("q1");
  w.Break(true);
  w.PushPrefix("- ", "  ");
  w.Text("item");
  w.Break(true);
  w.Text("more");
  w.PopPrefix();
  w.PopPrefix();
  w.Break(true);
  w.Text("outro");
  CHECK(w.Take() == "intro\n\n> q1\n>\n> - item\n>\n>   more\n\noutro");
}

TEST_CASE("Writer: cells stay on one line; link text escapes brackets", "[extract][writer]") {
  Writer w(Writer::Mode::kCell);
  w.PushPrefix("> ", "> ");
  w.Text("a");
  w.Break(true);
  w.OpenMark("[", "](u)", /*link=*/true);
  w.Text("b [1]");
  w.CloseMark();
  w.Line("c");
  CHECK(w.Take() == "a [b \\[1\\]](u) c");
}

}  // namespace
}  // namespace pi_fusion::extract
