#include "child/core/grep_filter.h"

#include "child/core/secret_content.h"

namespace pi_fusion::child {

bool GrepFilter::Hidden(const std::string& path, const std::string& text) {
  auto found = seen_.find(path);
  if (found == seen_.end()) {
    Verdict verdict;
    if (start_.directory()) {
      verdict.hidden = wall_.HiddenInWalk(start_, path, FileWall::WalkCheck::kContent);
      verdict.redacted = wall_.RedactedInWalk(start_, path);
    } else {
      verdict.redacted = start_.redacted();  // Vet judged the file itself
    }
    found = seen_.emplace(path, verdict).first;
  }
  if (found->second.hidden) return true;
  return found->second.redacted && RedactUrlUserinfo(text) != text;
}

}  // namespace pi_fusion::child
