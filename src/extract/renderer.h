// The HTML renderer: walks a gumbo tree and writes Markdown or plain text through a Writer.
//
// Recursion is bounded: below RenderOptions::max_depth a subtree is flattened to text by an
// iterative walk. Every node visited counts against max_nodes; the walk stops there, or as soon
// as the output is longer than max_output_bytes (the caller truncates and marks it).
//
// Internal to src/extract/; table.cc renders tables through the same object. Not thread-safe;
// one Renderer per document.
#pragma once

#include <gumbo.h>

#include <cstddef>
#include <string>

#include "core/limits.h"
#include "extract/writer.h"

namespace pi_fusion::extract {

struct RenderOptions {
  bool markdown = true;
  size_t max_output_bytes = kMaxExtractedTextBytes;
  size_t max_nodes = 500'000;
  size_t max_depth = 256;
};

enum class RenderStop { kNone, kOutputFull, kNodeLimit };

struct RenderResult {
  std::string text;
  RenderStop stop = RenderStop::kNone;
};

// REQUIRES: `document` is a gumbo document node that outlives the call.
RenderResult RenderDocument(const GumboNode* document, const RenderOptions& options);

class Renderer {
 public:
  explicit Renderer(const RenderOptions& options) : options_(options), writer_(&main_) {}

  RenderResult Run(const GumboNode* document);

  void Node(const GumboNode* node, int depth);
  void Children(const GumboNode* node, int depth);
  // The children of `cell` rendered on one line, as a table cell.
  std::string CellText(const GumboNode* cell, int depth);
  // Text of the subtree without structure, for preformatted blocks (`preformatted`: whitespace
  // and <br> kept) or code spans and over-deep content (whitespace collapsed later by the
  // Writer; elements other than spans separated by a space when `separate_elements`).
  std::string CollectText(const GumboNode* node, bool preformatted, bool separate_elements);

  Writer& writer() { return *writer_; }
  const RenderOptions& options() const { return options_; }
  bool in_cell() const { return cell_depth_ > 0; }
  bool stopped() const { return stop_ != RenderStop::kNone; }
  // Counts one visited node; false (and stopped) once over the node budget.
  bool CountNode();
  // Stops when the document output, plus `pending` bytes not yet written to it, is over the cap.
  void CheckOutput(size_t pending = 0);

 private:
  void Element(const GumboNode* node, int depth);
  void Block(const GumboNode* node, int depth, bool blank_line);
  void Heading(const GumboNode* node, int depth, int level);
  void Preformatted(const GumboNode* node);
  void CodeSpan(const GumboNode* node);
  void Quote(const GumboNode* node, int depth);
  void List(const GumboNode* node, int depth, bool ordered);
  void Item(const GumboNode* node, int depth, const std::string& marker);
  void Definition(const GumboNode* node, int depth);
  void Link(const GumboNode* node, int depth);
  void Emphasis(const GumboNode* node, int depth, const char* mark);

  RenderOptions options_;
  Writer main_;
  Writer* writer_;
  int cell_depth_ = 0;
  int list_depth_ = 0;
  size_t nodes_ = 0;
  RenderStop stop_ = RenderStop::kNone;
};

// table.cc: renders <table> as a GFM pipe table, or as blocks when it is a layout table.
void RenderTable(Renderer* renderer, const GumboNode* table, int depth);

}  // namespace pi_fusion::extract
