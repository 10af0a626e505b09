#include "extract/render_util.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include "extract/guard_tags.h"
#include "extract/html_lexer.h"
#include "extract/nesting_guard.h"

namespace pi_fusion::extract {

const GumboVector& ChildrenOf(const GumboNode* node) {
  return node->type == GUMBO_NODE_DOCUMENT ? node->v.document.children : node->v.element.children;
}

bool IsHtmlElement(const GumboNode* node) {
  return node->type == GUMBO_NODE_ELEMENT && node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML;
}

bool IsBlockContainer(GumboTag t) {
  static const guard::TagSet set = guard::MakeTagSet(
      {GUMBO_TAG_DIV,     GUMBO_TAG_SECTION, GUMBO_TAG_ARTICLE,    GUMBO_TAG_MAIN,
       GUMBO_TAG_HEADER,  GUMBO_TAG_FOOTER,  GUMBO_TAG_NAV,        GUMBO_TAG_ASIDE,
       GUMBO_TAG_ADDRESS, GUMBO_TAG_FIGURE,  GUMBO_TAG_FIGCAPTION, GUMBO_TAG_DETAILS,
       GUMBO_TAG_SUMMARY, GUMBO_TAG_FORM,    GUMBO_TAG_FIELDSET,   GUMBO_TAG_LEGEND,
       GUMBO_TAG_CENTER,  GUMBO_TAG_HGROUP,  GUMBO_TAG_DT,         GUMBO_TAG_CAPTION,
       GUMBO_TAG_TR,      GUMBO_TAG_TD,      GUMBO_TAG_TH,         GUMBO_TAG_THEAD,
       GUMBO_TAG_TBODY,   GUMBO_TAG_TFOOT,   GUMBO_TAG_OPTION,     GUMBO_TAG_BODY,
       GUMBO_TAG_HTML});
  return set.test(t);
}

std::string_view TrimSpace(std::string_view s) {
  while (!s.empty() && IsHtmlSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsHtmlSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool IsUsefulHref(std::string_view href) {
  if (href.empty() || href.front() == '#' || href.size() > kMaxHrefBytes) return false;
  const auto starts = [&](std::string_view scheme) {
    return href.size() >= scheme.size() && EqualsIgnoreCase(href.substr(0, scheme.size()), scheme);
  };
  return !starts("javascript:") && !starts("data:") && !starts("vbscript:");
}

std::string EscapeHref(std::string_view href) {
  std::string out;
  for (const char c : href) {
    switch (c) {
      case ' ':
        out += "%20";
        break;
      case '(':
        out += "%28";
        break;
      case ')':
        out += "%29";
        break;
      case '<':
        out += "%3C";
        break;
      case '>':
        out += "%3E";
        break;
      case '\t':
      case '\n':
      case '\r':
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string LanguageFromClass(std::string_view classes) {
  size_t i = 0;
  while (i < classes.size()) {
    while (i < classes.size() && IsHtmlSpace(classes[i])) ++i;
    size_t j = i;
    while (j < classes.size() && !IsHtmlSpace(classes[j])) ++j;
    std::string_view token = classes.substr(i, j - i);
    for (std::string_view prefix : {"language-", "lang-"}) {
      if (token.size() > prefix.size() && token.substr(0, prefix.size()) == prefix) {
        std::string lang;
        for (const char c : token.substr(prefix.size())) {
          if (std::isalnum(static_cast<unsigned char>(c)) ||
              (c != 0 && std::strchr("+-_.#", c) != nullptr))
            lang += c;
        }
        return lang;
      }
    }
    i = j;
  }
  return "";
}

size_t LongestRun(std::string_view s, char c) {
  size_t best = 0, run = 0;
  for (const char x : s) {
    run = x == c ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

long ParseLong(std::string_view s, long fallback) {
  s = TrimSpace(s);
  long value = fallback;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc()) return fallback;
  return std::clamp(value, 0L, 999'999'999L);
}

GumboTag EffectiveTag(const GumboElement& element) {
  if (element.tag != GUMBO_TAG_SPAN) return element.tag;
  const std::string_view name = Attribute(element, kFormattingTagAttribute);
  if (name.empty()) return GUMBO_TAG_SPAN;
  return gumbo_tagn_enum(name.data(), static_cast<unsigned>(name.size()));
}

std::string_view Attribute(const GumboElement& element, const char* name) {
  const GumboAttribute* a = gumbo_get_attribute(&element.attributes, name);
  return a == nullptr ? std::string_view() : std::string_view(a->value);
}

bool IsSkipped(const GumboElement& element) {
  static const guard::TagSet html_skipped = guard::MakeTagSet(
      {GUMBO_TAG_HEAD, GUMBO_TAG_SCRIPT, GUMBO_TAG_STYLE, GUMBO_TAG_NOSCRIPT, GUMBO_TAG_TEMPLATE,
       GUMBO_TAG_TITLE, GUMBO_TAG_IFRAME, GUMBO_TAG_OBJECT, GUMBO_TAG_EMBED, GUMBO_TAG_CANVAS,
       GUMBO_TAG_SELECT, GUMBO_TAG_DATALIST, GUMBO_TAG_AUDIO, GUMBO_TAG_VIDEO, GUMBO_TAG_TEXTAREA,
       GUMBO_TAG_NOEMBED, GUMBO_TAG_NOFRAMES, GUMBO_TAG_FRAMESET, GUMBO_TAG_INPUT});
  if (element.tag == GUMBO_TAG_SVG) return true;
  if (element.tag_namespace == GUMBO_NAMESPACE_HTML && html_skipped.test(element.tag)) {
    return true;
  }
  if (gumbo_get_attribute(&element.attributes, "hidden") != nullptr) return true;
  const std::string_view style = Attribute(element, "style");
  if (style.empty()) return false;
  std::string compact;
  for (const char c : style) {
    if (!IsHtmlSpace(c)) compact.push_back(AsciiLower(c));
  }
  return compact.find("display:none") != std::string::npos ||
         compact.find("visibility:hidden") != std::string::npos;
}

}  // namespace pi_fusion::extract
