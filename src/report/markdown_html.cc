#include "report/markdown_html.h"

#include <cstdlib>
#include <memory>
#include <vector>

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm.h>

#include "core/terminal_text.h"
#include "core/utf8.h"
#include "report/html_text.h"

namespace pi_fusion::report {
namespace {

constexpr const char* kExtensions[] = {"table", "strikethrough", "autolink"};

struct ParserDeleter {
  void operator()(cmark_parser* parser) const { cmark_parser_free(parser); }
};
struct NodeDeleter {
  void operator()(cmark_node* node) const { cmark_node_free(node); }
};

void RegisterExtensionsOnce() {
  static const bool registered = [] {
    cmark_gfm_core_extensions_ensure_registered();
    return true;
  }();
  (void)registered;
}

// An image becomes a link to its URL, its alt text the link's text after "image: ".
void ReplaceImage(cmark_node* image) {
  cmark_node* link = cmark_node_new(CMARK_NODE_LINK);
  const char* url = cmark_node_get_url(image);
  cmark_node_set_url(link, url && IsLinkableUrl(url) ? url : "");
  cmark_node* label = cmark_node_new(CMARK_NODE_TEXT);
  cmark_node_set_literal(label, "image: ");
  cmark_node_append_child(link, label);
  while (cmark_node* child = cmark_node_first_child(image)) cmark_node_append_child(link, child);
  cmark_node_replace(image, link);
  cmark_node_free(image);
}

// Links keep only the URLs IsLinkableUrl accepts; images become links.
void SanitizeTree(cmark_node* document) {
  std::vector<cmark_node*> images;
  cmark_iter* iter = cmark_iter_new(document);
  for (cmark_event_type event = cmark_iter_next(iter); event != CMARK_EVENT_DONE;
       event = cmark_iter_next(iter)) {
    if (event != CMARK_EVENT_ENTER) continue;
    cmark_node* node = cmark_iter_get_node(iter);
    if (cmark_node_get_type(node) == CMARK_NODE_IMAGE) {
      images.push_back(node);
    } else if (cmark_node_get_type(node) == CMARK_NODE_LINK) {
      const char* url = cmark_node_get_url(node);
      if (!url || !IsLinkableUrl(url)) cmark_node_set_url(node, "");
    }
  }
  cmark_iter_free(iter);
  for (cmark_node* image : images) ReplaceImage(image);
}

}  // namespace

bool IsLinkableUrl(std::string_view url) {
  auto starts = [&](std::string_view scheme) {
    if (url.size() < scheme.size()) return false;
    for (size_t i = 0; i < scheme.size(); ++i) {
      char c = url[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      if (c != scheme[i]) return false;
    }
    return true;
  };
  return starts("https://") || starts("http://") || starts("mailto:");
}

std::string MarkdownHtml(std::string_view markdown) {
  RegisterExtensionsOnce();
  // Neutralized first: the cut then falls on a character boundary of well-formed UTF-8.
  std::string text = NeutralizeControls(markdown, TextShape::kMultiLine);
  std::string note;
  if (text.size() > kMarkdownMaxBytes) {
    note = "<p class=\"note\">Cut: " + GroupedNumber(text.size()) + " bytes, the first " +
           GroupedNumber(kMarkdownMaxBytes) + " shown.</p>\n";
    text = TruncateUtf8(text, kMarkdownMaxBytes);
  }
  const int options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8;
  std::unique_ptr<cmark_parser, ParserDeleter> parser(cmark_parser_new(options));
  for (const char* name : kExtensions) {
    if (cmark_syntax_extension* ext = cmark_find_syntax_extension(name)) {
      cmark_parser_attach_syntax_extension(parser.get(), ext);
    }
  }
  cmark_parser_feed(parser.get(), text.data(), text.size());
  std::unique_ptr<cmark_node, NodeDeleter> document(cmark_parser_finish(parser.get()));
  SanitizeTree(document.get());
  char* html =
      cmark_render_html(document.get(), options, cmark_parser_get_syntax_extensions(parser.get()));
  std::string out = note + (html ? html : "");
  std::free(html);
  return out;
}

}  // namespace pi_fusion::report
