#include "extract/nesting_guard.h"

#include <cstdint>
#include <initializer_list>
#include <unordered_map>
#include <vector>

#include "extract/guard_tags.h"
#include "extract/html_lexer.h"

namespace pi_fusion::extract {
namespace {

using guard::HashLowercase;
using guard::LookupTag;
using guard::TagSet;

enum class Ns : uint8_t { kHtml, kSvg, kMath };

// One element of the modelled stack of open elements.
struct Open {
  GumboTag tag;
  Ns ns = Ns::kHtml;
  bool link = false;         // a renamed <a>
  bool special = false;      // a foreign element in gumbo's special category (and a boundary)
  bool integration = false;  // a foreign element whose children follow the HTML rules
  uint64_t name = 0;         // hash of the lowercased name: foreign end tags match by name
};

TagSet Only(GumboTag t) {
  TagSet set;
  set.set(t);
  return set;
}

bool IsOneOf(GumboTag t, std::initializer_list<GumboTag> tags) {
  for (const GumboTag x : tags) {
    if (t == x) return true;
  }
  return false;
}

// The SVG or MathML element a foreign start tag creates, with the flags gumbo derives from it.
Open ForeignElement(const Tag& tag, GumboTag t, Ns ns) {
  Open o{t, ns};
  o.name = HashLowercase(tag.name);
  const bool math_text = ns == Ns::kMath && IsOneOf(t, {GUMBO_TAG_MI, GUMBO_TAG_MO, GUMBO_TAG_MN,
                                                        GUMBO_TAG_MS, GUMBO_TAG_MTEXT});
  const bool svg_html =
      ns == Ns::kSvg && IsOneOf(t, {GUMBO_TAG_FOREIGNOBJECT, GUMBO_TAG_DESC, GUMBO_TAG_TITLE});
  const bool annotation = ns == Ns::kMath && t == GUMBO_TAG_ANNOTATION_XML;
  o.special = math_text || svg_html || annotation;
  bool html_encoding = false;
  if (annotation) {
    ForEachAttribute(tag.attributes, [&](std::string_view name, std::string_view value) {
      if (EqualsIgnoreCase(name, "encoding")) {
        html_encoding = EqualsIgnoreCase(value, "text/html") ||
                        EqualsIgnoreCase(value, "application/xhtml+xml");
      }
      return true;
    });
  }
  o.integration = math_text || svg_html || html_encoding;
  return o;
}

}  // namespace

// The guard proper: walks the tags once, copying the input to the output with the rewrites, and
// models gumbo 0.10.1's stack of open elements. The model must not end up shallower than gumbo:
// an element it forgets lets crafted input nest without bound. It must not keep elements gumbo
// closed either, since a later "clear back to the table" would then pop what gumbo keeps. So
// each rule follows gumbo's, and the randomized test in nesting_guard_test.cc checks the result
// against gumbo itself.
class NestingGuard {
 public:
  NestingGuard(std::string_view html, const GuardLimits& limits) : html_(html), limits_(limits) {
    out_.html.reserve(html.size() + html.size() / 16);
  }

  GuardedHtml Run() {
    TagLexer lexer(html_);
    Tag tag;
    while (lexer.Next(&tag)) {
      out_.html.append(html_.substr(copied_, tag.begin - copied_));
      copied_ = tag.end;
      if (tag.end_tag) {
        OnEndTag(tag);
      } else if (++elements_ > limits_.max_elements) {
        out_.cut = true;
        return std::move(out_);
      } else {
        OnStartTag(tag, &lexer);
      }
    }
    out_.html.append(html_.substr(copied_));
    return std::move(out_);
  }

 private:
  // ---- Start tags ----

  void OnStartTag(const Tag& tag, TagLexer* lexer) {
    const GumboTag t = LookupTag(tag.name);
    const bool formatting = guard::Formatting().test(t);
    if (t == GUMBO_TAG_TEMPLATE) return SkipTemplate(lexer);
    if (t == GUMBO_TAG_SELECT) return SkipSelect(lexer);
    // Raw text content is removed wherever it is: gumbo might read it as markup where the
    // model reads text (in SVG or MathML), and the renderer drops these elements anyway.
    if (guard::RawText().test(t)) {
      OnStartTagIn(tag, t, formatting, lexer);
      lexer->SkipRawText(tag.name);
      copied_ = lexer->position();
      return;
    }
    OnStartTagIn(tag, t, formatting, lexer);
  }

  void OnStartTagIn(const Tag& tag, GumboTag t, bool formatting, TagLexer* lexer) {
    if (UsesForeignRules(t)) {
      if (!formatting && !guard::BreakoutOfForeign().test(t)) {
        if (tag.self_closing) return Copy(tag);
        return Push(tag, ForeignElement(tag, t, stack_.back().ns));
      }
      while (UsesForeignRules(t)) stack_.pop_back();  // break out to the HTML rules
    }
    if (formatting) {
      if (t == GUMBO_TAG_A) CloseOpenLink();
      return Push(tag, {GUMBO_TAG_SPAN, Ns::kHtml, t == GUMBO_TAG_A});
    }
    OnHtmlStartTag(tag, t, lexer);
  }

  // Templates are not rendered, and their content follows insertion modes of their own (in
  // template, in row, ...) that the model would need to copy; gumbo 0.10.1 also aborts on some
  // template inputs (an assertion in node_qualified_tag_is, found by the randomized test). So a
  // template goes whole: from its start tag to the matching end tag, counting nested ones.
  void SkipTemplate(TagLexer* lexer) {
    int depth = 1;
    Tag t;
    while (lexer->Next(&t)) {
      if (!EqualsIgnoreCase(t.name, "template")) {
        if (!t.end_tag && guard::RawText().test(LookupTag(t.name))) lexer->SkipRawText(t.name);
        continue;
      }
      depth += t.end_tag ? -1 : 1;
      if (depth == 0) {
        copied_ = t.end;
        return;
      }
    }
    copied_ = html_.size();
  }

  // Select boxes are not rendered either, and gumbo 0.10.1 aborts on some selects inside
  // SVG/MathML inside tables (again found by the randomized test). A select goes up to its end
  // tag; without one only the start tag goes, and its options show as text.
  void SkipSelect(TagLexer* lexer) {
    TagLexer probe = *lexer;
    Tag t;
    while (probe.Next(&t)) {
      if (t.end_tag && EqualsIgnoreCase(t.name, "select")) {
        *lexer = probe;
        copied_ = t.end;
        return;
      }
      if (!t.end_tag && guard::RawText().test(LookupTag(t.name))) probe.SkipRawText(t.name);
    }
  }

  // Whether gumbo handles a start tag by the foreign-content rules: the current node is SVG or
  // MathML and not an integration point (mglyph/malignmark stay foreign even in MathML text).
  bool UsesForeignRules(GumboTag t) const {
    if (stack_.empty() || stack_.back().ns == Ns::kHtml) return false;
    const Open& top = stack_.back();
    if (!top.integration) {
      return !(top.ns == Ns::kMath && top.tag == GUMBO_TAG_ANNOTATION_XML && t == GUMBO_TAG_SVG);
    }
    return top.ns == Ns::kMath && top.tag != GUMBO_TAG_ANNOTATION_XML &&
           (t == GUMBO_TAG_MGLYPH || t == GUMBO_TAG_MALIGNMARK);
  }

  void OnHtmlStartTag(const Tag& tag, GumboTag t, TagLexer* lexer) {
    if (t == GUMBO_TAG_SVG || t == GUMBO_TAG_MATH) {
      if (tag.self_closing) return Copy(tag);
      return Push(tag, ForeignElement(tag, t, t == GUMBO_TAG_SVG ? Ns::kSvg : Ns::kMath));
    }
    // "In column group" mode: anything but <col> closes the column group first.
    if (TopIs(GUMBO_TAG_COLGROUP) && t != GUMBO_TAG_COL) stack_.pop_back();
    if (t == GUMBO_TAG_COL) {
      if (!OpenTableStructure(tag, t)) Copy(tag);
      return;
    }
    if (guard::NeverOpen().test(t) || guard::RawText().test(t)) return Copy(tag);
    if (t == GUMBO_TAG_XMP || t == GUMBO_TAG_PLAINTEXT) return EmitAsPre(tag, t, lexer);
    if (IsTableStructure(t)) {
      if (!OpenTableStructure(tag, t)) Copy(tag);  // outside a table: ignored
      return;
    }
    if (t == GUMBO_TAG_LI || t == GUMBO_TAG_DD || t == GUMBO_TAG_DT) {
      CloseListItem(t == GUMBO_TAG_LI);
      PopThrough(Find(Only(GUMBO_TAG_P), guard::ButtonScope()));
    } else if (guard::ClosesP().test(t)) {
      PopThrough(Find(Only(GUMBO_TAG_P), guard::ButtonScope()));
      if (guard::Headings().test(t) && TopIsHtml() && guard::Headings().test(stack_.back().tag)) {
        stack_.pop_back();
      }
    } else if (t == GUMBO_TAG_TABLE && InTableMode()) {
      PopThrough(Find(Only(GUMBO_TAG_TABLE), guard::TableScope()));  // closes the open table
    } else if (t == GUMBO_TAG_BUTTON) {
      PopThrough(Find(Only(GUMBO_TAG_BUTTON), guard::DefaultScope()));
    } else if (t == GUMBO_TAG_OPTION || t == GUMBO_TAG_OPTGROUP) {
      if (TopIs(GUMBO_TAG_OPTION)) stack_.pop_back();
    }
    Push(tag, {t});
  }

  // <xmp> and <plaintext> are shown as preformatted text: they become <pre> with escaped
  // content, which no tokenizer state can turn back into markup.
  void EmitAsPre(const Tag& tag, GumboTag t, TagLexer* lexer) {
    PopThrough(Find(Only(GUMBO_TAG_P), guard::ButtonScope()));
    if (t == GUMBO_TAG_PLAINTEXT) {
      lexer->SkipToEnd();
    } else {
      lexer->SkipRawText(tag.name);
    }
    const std::string_view text = html_.substr(tag.end, lexer->position() - tag.end);
    out_.html.append(text.substr(0, 1) == "\n" ? "<pre>\n" : "<pre>");  // <pre> eats one
    for (const char c : text) {
      if (c == '<') {
        out_.html.append("&lt;");
      } else if (c == '&') {
        out_.html.append("&amp;");
      } else {
        out_.html.push_back(c);
      }
    }
    out_.html.append("</pre>");
    copied_ = lexer->position();
    Tag end;
    if (t == GUMBO_TAG_XMP && lexer->Next(&end)) copied_ = end.end;  // the </xmp>
  }

  // ---- End tags ----

  void OnEndTag(const Tag& tag) {
    const GumboTag raw = LookupTag(tag.name);
    const bool formatting = guard::Formatting().test(raw);
    const GumboTag t = formatting ? GUMBO_TAG_SPAN : raw;
    const uint64_t name = formatting ? HashLowercase("span") : HashLowercase(tag.name);
    if (auto it = dropped_.find(Key(t, name)); it != dropped_.end() && it->second > 0) {
      --it->second;  // closes a start tag dropped for depth
      return;
    }
    if (formatting) {
      out_.html.append("</span>");
    } else {
      Copy(tag);
    }
    if (!stack_.empty() && stack_.back().ns != Ns::kHtml) {
      // Foreign content: the nearest foreign element of that name, else the HTML rules.
      for (long i = static_cast<long>(stack_.size()) - 1; i >= 0; --i) {
        if (stack_[i].ns == Ns::kHtml) break;
        if (stack_[i].name == name) return PopThrough(i);
      }
    }
    OnHtmlEndTag(t);
  }

  void OnHtmlEndTag(GumboTag t) {
    if (TopIs(GUMBO_TAG_COLGROUP) && t != GUMBO_TAG_COL) {
      stack_.pop_back();  // "in column group": anything else closes it first
      if (t == GUMBO_TAG_COLGROUP) return;
    }
    if (t == GUMBO_TAG_P) {
      PopThrough(Find(Only(t), guard::ButtonScope()));
    } else if (t == GUMBO_TAG_LI) {
      PopThrough(Find(Only(t), guard::ListItemScope()));
    } else if (guard::ClosedInScope().test(t)) {
      PopThrough(Find(Only(t), guard::DefaultScope()));
    } else if (guard::Headings().test(t)) {
      PopThrough(Find(guard::Headings(), guard::DefaultScope()));
    } else if (IsTableStructure(t) || t == GUMBO_TAG_TABLE) {
      PopThrough(Find(Only(t), guard::TableScope()));
    } else if (t == GUMBO_TAG_FORM) {
      // Removes the form element only: what was opened inside it stays open.
      const long i = Find(Only(t), guard::DefaultScope());
      if (i >= 0) stack_.erase(stack_.begin() + i);
    } else {
      PopThrough(FindAnyOtherEndTag(t));
    }
  }

  // "Any other end tag": the nearest open HTML element of that tag, unless a special element
  // comes first. Gumbo 0.10.1 compares tags only, so an unknown end tag closes any unknown
  // element.
  long FindAnyOtherEndTag(GumboTag t) const {
    for (long i = static_cast<long>(stack_.size()) - 1; i >= 0; --i) {
      const Open& o = stack_[i];
      if (o.ns != Ns::kHtml) {
        if (o.special) return -1;
        continue;
      }
      if (o.tag == t) return i;
      if (guard::Special().test(o.tag)) return -1;
    }
    return -1;
  }

  // ---- Tables ----

  static bool IsTableStructure(GumboTag t) {
    return IsOneOf(t, {GUMBO_TAG_CAPTION, GUMBO_TAG_COLGROUP, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD,
                       GUMBO_TAG_TFOOT, GUMBO_TAG_TR, GUMBO_TAG_TD, GUMBO_TAG_TH});
  }

  // Whether gumbo's insertion mode is a table mode (in table, table body, row, caption, column
  // group): the mode follows the nearest table-related open element, as in "reset the
  // insertion mode appropriately"; inside a cell it is "in cell".
  bool InTableMode() const {
    for (long i = static_cast<long>(stack_.size()) - 1; i >= 0; --i) {
      const Open& o = stack_[i];
      if (o.ns != Ns::kHtml) continue;
      if (o.tag == GUMBO_TAG_TABLE || o.tag == GUMBO_TAG_COLGROUP || IsTableStructure(o.tag)) {
        return o.tag != GUMBO_TAG_TD && o.tag != GUMBO_TAG_TH;
      }
    }
    return false;
  }

  // The tree builder clears the stack back to the row (for td/th), the table body (for tr) or
  // the table (otherwise) before inserting these, and implies the missing tbody and tr. The
  // model does the same, so that later end tags find what gumbo has. Outside any table gumbo
  // ignores them: false.
  bool OpenTableStructure(const Tag& tag, GumboTag t) {
    long table = -1;
    for (long i = static_cast<long>(stack_.size()) - 1; i >= 0 && table < 0; --i) {
      if (stack_[i].ns == Ns::kHtml && stack_[i].tag == GUMBO_TAG_TABLE) table = i;
    }
    if (table < 0) return false;
    const bool cell = t == GUMBO_TAG_TD || t == GUMBO_TAG_TH;
    long row = -1, body = -1;
    for (long i = static_cast<long>(stack_.size()) - 1; i > table; --i) {
      const Open& o = stack_[i];
      if (o.ns != Ns::kHtml) continue;
      if (o.tag == GUMBO_TAG_TR && row < 0 && body < 0) row = i;
      if (IsOneOf(o.tag, {GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT}) && body < 0) {
        body = i;
      }
    }
    std::vector<GumboTag> implied;
    if (t == GUMBO_TAG_COL) {  // a <col> outside a column group implies one, which stays open
      stack_.resize(table + 1);
      if (stack_.size() < limits_.max_depth) stack_.push_back({GUMBO_TAG_COLGROUP});
      Copy(tag);
      return true;
    }
    if (cell && row >= 0) {
      stack_.resize(row + 1);
    } else if ((cell || t == GUMBO_TAG_TR) && body >= 0) {
      stack_.resize(body + 1);
      if (cell) implied = {GUMBO_TAG_TR};
    } else {
      stack_.resize(table + 1);
      if (cell) implied = {GUMBO_TAG_TBODY, GUMBO_TAG_TR};
      if (t == GUMBO_TAG_TR) implied = {GUMBO_TAG_TBODY};
    }
    if (stack_.size() + implied.size() >= limits_.max_depth) {
      Push(tag, {t});  // over the limit: dropped, and gumbo implies nothing
      return true;
    }
    for (const GumboTag i : implied) stack_.push_back({i});
    Push(tag, {t});
    return true;
  }

  // ---- Implied closes ----

  // <li> closes an open <li> (and <dd>/<dt> one of those) unless a special element other than
  // address, div and p comes first.
  void CloseListItem(bool li) {
    for (long i = static_cast<long>(stack_.size()) - 1; i >= 0; --i) {
      const Open& o = stack_[i];
      if (o.ns != Ns::kHtml) {
        if (o.special) return;
        continue;
      }
      if (li ? o.tag == GUMBO_TAG_LI : IsOneOf(o.tag, {GUMBO_TAG_DD, GUMBO_TAG_DT})) {
        return PopThrough(i);
      }
      if (guard::Special().test(o.tag) &&
          !IsOneOf(o.tag, {GUMBO_TAG_ADDRESS, GUMBO_TAG_DIV, GUMBO_TAG_P})) {
        return;
      }
    }
  }

  // A new <a> closes an open one (HTML's adoption agency would). Its renamed span is closed by
  // one </span> per span down to it, each of which gumbo matches to the nearest open span.
  void CloseOpenLink() {
    size_t spans = 0;
    for (long i = static_cast<long>(stack_.size()) - 1; i >= 0; --i) {
      const Open& o = stack_[i];
      if (o.ns != Ns::kHtml) {
        if (o.special) return;
        continue;
      }
      if (o.tag != GUMBO_TAG_SPAN && guard::Special().test(o.tag)) return;
      if (o.tag == GUMBO_TAG_SPAN) ++spans;
      if (o.link) {
        for (size_t k = 0; k < spans; ++k) out_.html.append("</span>");
        return PopThrough(i);
      }
    }
  }

  // ---- Stack helpers ----

  // Index of the nearest open HTML element in `targets`, scanning down from the top and
  // stopping at a `boundaries` element (or, outside table scope, at a foreign boundary such as
  // <foreignObject>); -1 when there is none.
  long Find(const TagSet& targets, const TagSet& boundaries) const {
    const bool table_scope = &boundaries == &guard::TableScope();
    for (long i = static_cast<long>(stack_.size()) - 1; i >= 0; --i) {
      const Open& o = stack_[i];
      if (o.ns != Ns::kHtml) {
        if (o.special && !table_scope) return -1;
        continue;
      }
      if (targets.test(o.tag)) return i;
      if (boundaries.test(o.tag)) return -1;
    }
    return -1;
  }

  void Push(const Tag& tag, Open open) {
    const bool renamed =
        open.tag == GUMBO_TAG_SPAN && guard::Formatting().test(LookupTag(tag.name));
    if (stack_.size() >= limits_.max_depth) {
      ++dropped_[Key(open.tag, renamed ? HashLowercase("span") : HashLowercase(tag.name))];
      ++out_.dropped_tags;
      if (open.tag != GUMBO_TAG_SPAN) out_.html.push_back(' ');  // keep words apart
      return;
    }
    stack_.push_back(open);
    if (!renamed) return Copy(tag);
    out_.html.append("<span ");
    out_.html.append(kFormattingTagAttribute);
    out_.html.append("=\"");
    for (const char c : tag.name) out_.html.push_back(AsciiLower(c));
    out_.html.push_back('"');
    out_.html.append(tag.attributes);
    out_.html.push_back('>');
  }

  void Copy(const Tag& tag) { out_.html.append(html_.substr(tag.begin, tag.end - tag.begin)); }
  void PopThrough(long index) {
    if (index >= 0) stack_.resize(index);
  }
  static uint64_t Key(GumboTag t, uint64_t name) {
    return t == GUMBO_TAG_UNKNOWN ? name : static_cast<uint64_t>(t);
  }
  bool TopIsHtml() const { return !stack_.empty() && stack_.back().ns == Ns::kHtml; }
  bool TopIs(GumboTag t) const { return TopIsHtml() && stack_.back().tag == t; }

  std::string_view html_;
  GuardLimits limits_;
  GuardedHtml out_;
  size_t copied_ = 0;  // input before this offset has been written (or removed)
  std::vector<Open> stack_;
  size_t elements_ = 0;
  // Start tags dropped for depth, by element identity, so that their end tags go too.
  std::unordered_map<uint64_t, size_t> dropped_;
};

GuardedHtml GuardNesting(std::string_view html, const GuardLimits& limits) {
  return NestingGuard(html, limits).Run();
}

}  // namespace pi_fusion::extract
