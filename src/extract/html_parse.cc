#include "extract/html_parse.h"

#include <csetjmp>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <utility>

#include "core/error_codes.h"

namespace pi_fusion::extract {

// Every block gumbo allocates is preceded by this header and linked into the budget's list.
// 32 bytes keep the payload aligned like malloc's.
struct alignas(16) BlockHeader {
  BlockHeader* prev;
  BlockHeader* next;
  size_t size;
};
static_assert(sizeof(BlockHeader) % alignof(std::max_align_t) == 0);

struct ParseBudget {
  BlockHeader list{&list, &list, 0};  // circular, sentinel
  size_t live = 0;
  size_t peak = 0;
  size_t limit = 0;
  std::jmp_buf escape;

  void FreeAll() {
    for (BlockHeader* b = list.next; b != &list;) {
      BlockHeader* next = b->next;
      std::free(b);
      b = next;
    }
    list.prev = list.next = &list;
    live = 0;
  }
};

namespace {

void* Allocate(void* userdata, size_t size) {
  auto* budget = static_cast<ParseBudget*>(userdata);
  if (size > budget->limit - budget->live) std::longjmp(budget->escape, 1);
  auto* block = static_cast<BlockHeader*>(std::malloc(sizeof(BlockHeader) + size));
  if (block == nullptr) std::longjmp(budget->escape, 1);
  block->size = size;
  block->prev = &budget->list;
  block->next = budget->list.next;
  budget->list.next->prev = block;
  budget->list.next = block;
  budget->live += size;
  if (budget->live > budget->peak) budget->peak = budget->live;
  return block + 1;
}

void Deallocate(void* userdata, void* ptr) {
  if (ptr == nullptr) return;
  auto* budget = static_cast<ParseBudget*>(userdata);
  BlockHeader* block = static_cast<BlockHeader*>(ptr) - 1;
  block->prev->next = block->next;
  block->next->prev = block->prev;
  budget->live -= block->size;
  std::free(block);
}

// Holds no object with a destructor: Allocate's longjmp lands here, skipping gumbo's frames.
GumboOutput* ParseOrEscape(const GumboOptions* options, ParseBudget* budget, const char* data,
                           size_t size) {
  if (setjmp(budget->escape) != 0) return nullptr;
  return gumbo_parse_with_options(options, data, size);
}

}  // namespace

HtmlDocument::HtmlDocument() : budget_(std::make_unique<ParseBudget>()) {}

// Freeing the blocks directly is complete (the allocator saw every one) and, unlike
// gumbo_destroy_output, does not recurse over the tree.
HtmlDocument::~HtmlDocument() { budget_->FreeAll(); }

size_t HtmlDocument::peak_bytes() const { return budget_->peak; }

Result<std::unique_ptr<HtmlDocument>> ParseHtml(std::string html, size_t memory_budget) {
  std::unique_ptr<HtmlDocument> doc(new HtmlDocument());
  doc->html_ = std::move(html);
  doc->budget_->limit = memory_budget;
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &Allocate;
  options.deallocator = &Deallocate;
  options.userdata = doc->budget_.get();
  options.max_errors = 0;
  doc->output_ = ParseOrEscape(&options, doc->budget_.get(), doc->html_.data(), doc->html_.size());
  if (doc->output_ == nullptr) {
    return Status::Error(kExtractionFailed, "the HTML parser needed more than " +
                                                std::to_string(memory_budget >> 20) +
                                                " MiB for this document");
  }
  return Result<std::unique_ptr<HtmlDocument>>(std::move(doc));
}

}  // namespace pi_fusion::extract
