// Text post-processing shared by the HTML and plain-text paths: plain-text normalization and
// truncation with a marker. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pi_fusion::extract {

// Tidies decoded plain text or Markdown: CRLF and CR become LF, control characters other than
// tab and newline are dropped, trailing whitespace is trimmed from every line, runs of empty
// lines become one, and leading and trailing empty lines go. Spacing inside lines is kept:
// it may be code or a table.
std::string NormalizePlainText(std::string_view text);

// `text` cut so that it plus `marker` fits in `max_bytes`: cut on a UTF-8 boundary, trailing
// whitespace trimmed, `marker` appended. A marker longer than the cap is itself cut.
// REQUIRES: text is well-formed UTF-8; marker is ASCII.
std::string TruncateWithMarker(std::string_view text, size_t max_bytes, std::string_view marker);

}  // namespace pi_fusion::extract
