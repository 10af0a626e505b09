#include <catch2/catch.hpp>

#include <string>

#include "core/utf8.h"
#include "extract/text_util.h"

namespace pi_fusion::extract {
namespace {

TEST_CASE("NormalizePlainText: line endings, controls, trailing space, empty lines",
          "[extract][text]") {
  CHECK(NormalizePlainText("\n\n  a  \r\nb\rc\x01\x7F\n\n\n\nd\t \n\n") == "  a\nb\nc\n\nd");
  CHECK(NormalizePlainText("") == "");
  CHECK(NormalizePlainText(" \n\t\n") == "");
  CHECK(NormalizePlainText("x\ty  z") == "x\ty  z");
}

TEST_CASE("TruncateWithMarker: fits the cap, cuts on a boundary, trims before the marker",
          "[extract][text]") {
  const std::string marker = "\n\n[cut]";
  CHECK(TruncateWithMarker("hello world", 18, marker) == "hello world" + marker);
  CHECK(TruncateWithMarker("hello   world", 12, marker) == "hello" + marker);
  // "é" is two bytes: a cap that lands inside it drops the whole character.
  CHECK(TruncateWithMarker("ab\xC3\xA9", 3 + marker.size(), marker) == "ab" + marker);
  CHECK(TruncateWithMarker("anything", 4, marker) == "[cut");
  CHECK(TruncateWithMarker("", 20, marker) == "[cut]");
  for (size_t cap = marker.size(); cap < 40; ++cap) {
    const std::string out =
        TruncateWithMarker("\xF0\x9F\x98\x80\xE6\xBC\xA2 x y z \xC3\xA9\xC3\xA9", cap, marker);
    INFO("cap " << cap);
    CHECK(out.size() <= cap);
    CHECK(IsValidUtf8(out));
  }
}

}  // namespace
}  // namespace pi_fusion::extract
