// Gumbo parsing under a memory budget.
//
// Gumbo allocates through our allocator, which counts live bytes and keeps every block on a list.
// A parse that would go over the budget does not return through gumbo: the allocator longjmps
// back to ParseHtml (only C frames and trivially destructible ones lie between), which then
// frees every block of that parse and reports `extraction_failed`. Gumbo has no other resources
// and no global state, so abandoning it mid-parse is safe, and the budget is a hard bound that
// does not depend on knowing which inputs make gumbo allocate a lot.
//
// An HtmlDocument is immutable after parsing; concurrent reads are safe.
#pragma once

#include <gumbo.h>

#include <cstddef>
#include <memory>
#include <string>

#include "pi_fusion/status.h"

namespace pi_fusion::extract {

struct ParseBudget;  // allocator state, defined in html_parse.cc

class HtmlDocument {
 public:
  ~HtmlDocument();
  HtmlDocument(const HtmlDocument&) = delete;
  HtmlDocument& operator=(const HtmlDocument&) = delete;

  // The document node; owned by this object.
  const GumboNode* document() const { return output_->document; }
  // Largest number of bytes gumbo held at once during the parse.
  size_t peak_bytes() const;

 private:
  friend Result<std::unique_ptr<HtmlDocument>> ParseHtml(std::string html, size_t memory_budget);
  HtmlDocument();

  std::string html_;  // gumbo's nodes point into it
  std::unique_ptr<ParseBudget> budget_;
  GumboOutput* output_ = nullptr;
};

// Parses `html` (REQUIRES: well-formed UTF-8) with gumbo, error recording off: gumbo copies the
// whole stack of open elements into every parse error, which is quadratic.
Result<std::unique_ptr<HtmlDocument>> ParseHtml(std::string html, size_t memory_budget);

}  // namespace pi_fusion::extract
