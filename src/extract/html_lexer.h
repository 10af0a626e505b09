// A tag-boundary lexer for HTML. It follows the WHATWG tokenizer only as far as finding tags
// goes: comments, doctypes and bogus comments are skipped, quoted attribute values may contain
// '>', and a tag cut off by the end of input is dropped (as the tokenizer drops it). It neither
// decodes entities nor builds a tree. The meta-charset prescan and the nesting guard use it so
// that they see tags where gumbo will.
//
// A TagLexer is a cursor over a caller-owned string: not thread-safe, but instances are
// independent. Tags hold views into that string.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace pi_fusion::extract {

struct Tag {
  bool end_tag = false;         // "</name ...>"
  bool self_closing = false;    // written as "<name ... />"
  std::string_view name;        // as written (original case)
  std::string_view attributes;  // raw text between the name and the closing '>'
  size_t begin = 0;             // offset of '<'
  size_t end = 0;               // one past the closing '>'
};

class TagLexer {
 public:
  explicit TagLexer(std::string_view html) : html_(html) {}

  // Finds the next start or end tag at or after the cursor and moves past it. Returns false at
  // the end of input.
  bool Next(Tag* tag);

  // Moves the cursor to the next "</name" that ends raw text (script, style, title, ...), so the
  // next Next() returns that end tag. Without one, moves to the end of input.
  void SkipRawText(std::string_view name);

  void SkipToEnd() { pos_ = html_.size(); }
  size_t position() const { return pos_; }

 private:
  bool LexTag(size_t lt, bool end_tag, Tag* tag);
  void SkipComment(size_t body);
  void SkipPast(char c, size_t from);

  std::string_view html_;
  size_t pos_ = 0;
};

// Calls fn(name, value) for each attribute of a Tag::attributes text, in order, until fn returns
// false. Values come without quotes and with entities undecoded; a bare name has an empty value.
void ForEachAttribute(std::string_view attributes,
                      const std::function<bool(std::string_view, std::string_view)>& fn);

// ASCII-case-insensitive comparison (HTML names and charset labels are ASCII).
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

inline bool IsHtmlSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}
inline bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

}  // namespace pi_fusion::extract
