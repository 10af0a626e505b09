// Writer: the output buffer of the HTML renderer. It owns the rules that make the output tidy —
// collapsed whitespace, at most one blank line, no trailing spaces, line prefixes for quotes and
// list items, inline marks that hug their text — so the renderer only says what structure it
// saw. Not thread-safe; one per rendering (plus one per table cell).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pi_fusion::extract {

class Writer {
 public:
  // A cell writer keeps everything on one line: breaks become spaces, prefixes are ignored.
  enum class Mode { kDocument, kCell };
  explicit Writer(Mode mode = Mode::kDocument) : cell_(mode == Mode::kCell) {}

  // Inline text. Runs of whitespace (including U+00A0) collapse to one space; control
  // characters are dropped. Inside a link mark, '[' and ']' are escaped.
  void Text(std::string_view text);
  // Inline text written as one unit, without whitespace processing (a code span).
  void Atom(std::string_view text);

  // Ends the current block: the next content starts on a new line, after an empty line when
  // `blank_line`. Open inline marks are closed and stay closed (a mark does not span blocks).
  void Break(bool blank_line);
  // A line break inside a block (<br>): marks are closed and reopened on the next line.
  void LineBreak();

  // Prefixes for every line of the block being opened: `first` on its first line (a list
  // marker), `rest` afterwards. Pop in reverse order.
  void PushPrefix(std::string first, std::string rest);
  void PopPrefix();
  // Written once at the start of the next line, after the prefixes (a heading's "## ").
  void SetLineMarker(std::string marker) { line_marker_ = std::move(marker); }
  void ClearLineMarker() { line_marker_.clear(); }
  // While inline-only (headings), Break() and LineBreak() write a space instead.
  void PushInlineOnly() { ++inline_only_; }
  void PopInlineOnly() { --inline_only_; }

  // An inline mark: `open` is written just before the next content and `close` right after the
  // last content when the mark is closed, so "<b> x </b>" gives " **x** ". A mark that wraps no
  // content writes nothing. Marks nest; CloseMark closes the innermost.
  void OpenMark(std::string open, std::string close, bool link = false);
  void CloseMark();
  // True when a link mark is open and still live (not ended by a block break).
  bool InLink() const;
  // True when a live mark with this `open` text is open (no "****" for <b><strong>).
  bool HasMark(std::string_view open) const;

  // A preformatted line, written as is (control characters dropped, trailing spaces trimmed)
  // under the current prefixes.
  void Line(std::string_view line);

  size_t size() const { return out_.size(); }
  // The text written so far. The writer is empty afterwards.
  std::string Take();

 private:
  struct Prefix {
    std::string first, rest;
    bool used = false;
  };
  struct Mark {
    std::string open, close;
    bool link = false;
    bool written = false;  // open has been written
    bool ended = false;    // closed by a block break; writes nothing more
  };

  void Word(std::string_view word);
  void BeginContent();
  void StartLine();
  void CloseWrittenMarks(bool end);
  bool BreaksAreSpaces() const { return cell_ || inline_only_ > 0; }

  bool cell_;
  int inline_only_ = 0;
  int pending_newlines_ = 0;  // 0, 1 (new line) or 2 (empty line first)
  bool pending_space_ = false;
  std::string out_;
  std::string line_marker_;
  std::vector<Prefix> prefixes_;
  std::vector<Mark> marks_;
};

}  // namespace pi_fusion::extract
