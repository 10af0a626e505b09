#include "extract/renderer.h"

#include <algorithm>
#include <string>
#include <vector>

#include "extract/html_lexer.h"
#include "extract/render_util.h"

namespace pi_fusion::extract {

RenderResult RenderDocument(const GumboNode* document, const RenderOptions& options) {
  return Renderer(options).Run(document);
}

RenderResult Renderer::Run(const GumboNode* document) {
  Node(document, 0);
  return {main_.Take(), stop_};
}

bool Renderer::CountNode() {
  if (++nodes_ <= options_.max_nodes) return true;
  if (stop_ == RenderStop::kNone) stop_ = RenderStop::kNodeLimit;
  return false;
}

void Renderer::CheckOutput(size_t pending) {
  if (stop_ == RenderStop::kNone && main_.size() + pending > options_.max_output_bytes) {
    stop_ = RenderStop::kOutputFull;
  }
}

void Renderer::Node(const GumboNode* node, int depth) {
  if (stopped() || !CountNode()) return;
  switch (node->type) {
    case GUMBO_NODE_DOCUMENT:
      return Children(node, depth);
    case GUMBO_NODE_ELEMENT:
      if (static_cast<size_t>(depth) >= options_.max_depth) {
        writer_->Text(" ");
        writer_->Text(CollectText(node, /*preformatted=*/false, /*separate_elements=*/true));
        writer_->Text(" ");
      } else {
        Element(node, depth);
      }
      break;
    case GUMBO_NODE_TEXT:
    case GUMBO_NODE_CDATA:
    case GUMBO_NODE_WHITESPACE:
      writer_->Text(node->v.text.text);
      break;
    case GUMBO_NODE_COMMENT:
    case GUMBO_NODE_TEMPLATE:
      return;
  }
  if (!in_cell()) CheckOutput();
}

void Renderer::Children(const GumboNode* node, int depth) {
  const GumboVector& children = ChildrenOf(node);
  for (unsigned i = 0; i < children.length && !stopped(); ++i) {
    Node(static_cast<const GumboNode*>(children.data[i]), depth + 1);
  }
}

void Renderer::Element(const GumboNode* node, int depth) {
  const GumboElement& e = node->v.element;
  if (IsSkipped(e)) return;
  if (e.tag_namespace != GUMBO_NAMESPACE_HTML) return Children(node, depth);  // MathML text
  const GumboTag t = EffectiveTag(e);
  const bool md = options_.markdown;
  switch (t) {
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
      return Heading(node, depth, 1 + (t - GUMBO_TAG_H1));
    case GUMBO_TAG_P:
    case GUMBO_TAG_DL:
      return Block(node, depth, /*blank_line=*/true);
    case GUMBO_TAG_BR:
      return writer_->LineBreak();
    case GUMBO_TAG_HR:
      writer_->Break(true);
      if (md && !in_cell()) writer_->Atom("---");
      return writer_->Break(true);
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_LISTING:
    case GUMBO_TAG_XMP:
    case GUMBO_TAG_PLAINTEXT:
      return Preformatted(node);
    case GUMBO_TAG_BLOCKQUOTE:
      return Quote(node, depth);
    case GUMBO_TAG_UL:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_DIR:
      return List(node, depth, t == GUMBO_TAG_OL);
    case GUMBO_TAG_LI:
      return Item(node, depth, "- ");
    case GUMBO_TAG_DD:
      return Definition(node, depth);
    case GUMBO_TAG_TABLE:
      return RenderTable(this, node, depth);
    case GUMBO_TAG_IMG:
      return writer_->Text(Attribute(e, "alt"));
    case GUMBO_TAG_A:
      return Link(node, depth);
    case GUMBO_TAG_B:
    case GUMBO_TAG_STRONG:
      return Emphasis(node, depth, "**");
    case GUMBO_TAG_I:
    case GUMBO_TAG_EM:
      return Emphasis(node, depth, "*");
    case GUMBO_TAG_CODE:
    case GUMBO_TAG_KBD:
    case GUMBO_TAG_SAMP:
    case GUMBO_TAG_TT:
      return CodeSpan(node);
    default:
      if (IsBlockContainer(t)) return Block(node, depth, /*blank_line=*/false);
      return Children(node, depth);
  }
}

void Renderer::Block(const GumboNode* node, int depth, bool blank_line) {
  writer_->Break(blank_line);
  Children(node, depth);
  writer_->Break(blank_line);
}

void Renderer::Heading(const GumboNode* node, int depth, int level) {
  writer_->Break(true);
  if (options_.markdown) writer_->SetLineMarker(std::string(level, '#') + " ");
  writer_->PushInlineOnly();
  Children(node, depth);
  writer_->PopInlineOnly();
  writer_->ClearLineMarker();
  writer_->Break(true);
}

std::string Renderer::CollectText(const GumboNode* node, bool preformatted,
                                  bool separate_elements) {
  std::string text;
  std::vector<const GumboNode*> stack = {node};  // nullptr: the end of an element
  while (!stack.empty() && text.size() <= options_.max_output_bytes) {
    const GumboNode* n = stack.back();
    stack.pop_back();
    if (n == nullptr) {
      text.push_back(' ');
      continue;
    }
    if (n != node && !CountNode()) break;
    if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_CDATA ||
        n->type == GUMBO_NODE_WHITESPACE) {
      text.append(n->v.text.text);
      continue;
    }
    if (n->type != GUMBO_NODE_ELEMENT || IsSkipped(n->v.element)) continue;
    if (n->v.element.tag == GUMBO_TAG_BR) text.push_back(preformatted ? '\n' : ' ');
    if (separate_elements && n->v.element.tag != GUMBO_TAG_SPAN) {
      text.push_back(' ');
      stack.push_back(nullptr);
    }
    const GumboVector& children = n->v.element.children;
    for (unsigned i = children.length; i > 0; --i) {
      stack.push_back(static_cast<const GumboNode*>(children.data[i - 1]));
    }
  }
  return text;
}

void Renderer::Preformatted(const GumboNode* node) {
  if (in_cell()) return CodeSpan(node);
  std::string text = CollectText(node, /*preformatted=*/true, /*separate_elements=*/false);
  text.erase(std::remove(text.begin(), text.end(), '\r'), text.end());
  const size_t first = text.find_first_not_of('\n');
  const size_t last = text.find_last_not_of(" \t\n\f");
  if (first == std::string::npos || last == std::string::npos) return;
  const std::string_view body = std::string_view(text).substr(first, last + 1 - first);
  writer_->Break(true);
  std::string fence;
  if (options_.markdown) {
    std::string lang = LanguageFromClass(Attribute(node->v.element, "class"));
    const GumboVector& children = node->v.element.children;
    for (unsigned i = 0; lang.empty() && i < children.length; ++i) {
      const auto* child = static_cast<const GumboNode*>(children.data[i]);
      if (IsHtmlElement(child)) lang = LanguageFromClass(Attribute(child->v.element, "class"));
    }
    fence.assign(std::max<size_t>(3, LongestRun(body, '`') + 1), '`');
    writer_->Line(fence + lang);
  }
  for (size_t start = 0; start <= body.size();) {
    const size_t end = std::min(body.find('\n', start), body.size());
    writer_->Line(body.substr(start, end - start));
    start = end + 1;
  }
  if (options_.markdown) writer_->Line(fence);
  writer_->Break(true);
}

void Renderer::CodeSpan(const GumboNode* node) {
  const std::string raw = CollectText(node, /*preformatted=*/false, /*separate_elements=*/false);
  std::string text;  // whitespace collapsed, trimmed
  for (const char c : raw) {
    if (IsHtmlSpace(c)) {
      if (!text.empty() && text.back() != ' ') text.push_back(' ');
    } else {
      text.push_back(c);
    }
  }
  if (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.empty()) return;
  if (!options_.markdown) return writer_->Text(text);
  const std::string fence(LongestRun(text, '`') + 1, '`');
  const char* pad = (text.front() == '`' || text.back() == '`') ? " " : "";
  writer_->Atom(fence + pad + text + pad + fence);
}

void Renderer::Quote(const GumboNode* node, int depth) {
  writer_->Break(true);
  const char* prefix = options_.markdown ? "> " : "  ";
  writer_->PushPrefix(prefix, prefix);
  Children(node, depth);
  writer_->PopPrefix();
  writer_->Break(true);
}

void Renderer::List(const GumboNode* node, int depth, bool ordered) {
  const bool nested = list_depth_ > 0;
  writer_->Break(!nested);
  long number = ordered ? ParseLong(Attribute(node->v.element, "start"), 1) : 0;
  ++list_depth_;
  const GumboVector& children = node->v.element.children;
  for (unsigned i = 0; i < children.length && !stopped(); ++i) {
    const auto* child = static_cast<const GumboNode*>(children.data[i]);
    if (!IsHtmlElement(child) || child->v.element.tag != GUMBO_TAG_LI) {
      Node(child, depth + 1);
      continue;
    }
    if (!CountNode()) break;
    if (IsSkipped(child->v.element)) continue;
    std::string marker = "- ";
    if (ordered) {
      number = ParseLong(Attribute(child->v.element, "value"), number);
      marker = std::to_string(number++) + ". ";
    }
    Item(child, depth + 1, marker);
  }
  --list_depth_;
  writer_->Break(!nested);
}

void Renderer::Item(const GumboNode* node, int depth, const std::string& marker) {
  writer_->Break(false);
  writer_->PushPrefix(marker, std::string(marker.size(), ' '));
  Children(node, depth);
  writer_->PopPrefix();
  writer_->Break(false);
}

void Renderer::Definition(const GumboNode* node, int depth) {
  writer_->Break(false);
  writer_->PushPrefix(options_.markdown ? ": " : "  ", "  ");
  Children(node, depth);
  writer_->PopPrefix();
  writer_->Break(false);
}

void Renderer::Link(const GumboNode* node, int depth) {
  const std::string_view href = TrimSpace(Attribute(node->v.element, "href"));
  if (!options_.markdown || writer_->InLink() || !IsUsefulHref(href)) {
    return Children(node, depth);
  }
  writer_->OpenMark("[", "](" + EscapeHref(href) + ")", /*link=*/true);
  Children(node, depth);
  writer_->CloseMark();
}

void Renderer::Emphasis(const GumboNode* node, int depth, const char* mark) {
  if (!options_.markdown || writer_->HasMark(mark)) return Children(node, depth);
  writer_->OpenMark(mark, mark);
  Children(node, depth);
  writer_->CloseMark();
}

std::string Renderer::CellText(const GumboNode* cell, int depth) {
  Writer cell_writer(Writer::Mode::kCell);
  Writer* saved = writer_;
  writer_ = &cell_writer;
  ++cell_depth_;
  Children(cell, depth);
  --cell_depth_;
  writer_ = saved;
  return cell_writer.Take();
}

}  // namespace pi_fusion::extract
