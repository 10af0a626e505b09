// getrandom(2)-backed RandomSource (Linux; glibc >= 2.25).
#include <sys/random.h>

#include <cerrno>
#include <system_error>

#include "workflow/anonymize.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

class SystemRandomSource : public RandomSource {
 public:
  Status Fill(std::span<uint8_t> out) override {
    size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = getrandom(out.data() + done, out.size() - done, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        return Status::Error(std::string(kOrchestrationFailed),
                             "getrandom failed: " + std::system_category().message(errno));
      }
      done += static_cast<size_t>(n);
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<RandomSource> NewSystemRandomSource() {
  return std::make_unique<SystemRandomSource>();
}

}  // namespace pi_fusion::workflow
