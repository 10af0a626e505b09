#include "core/random_id.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "core/file_system.h"

namespace pi_fusion {
namespace {

Status Unavailable(const char* what, int err) {
  return Status::Error(kRandomUnavailable, std::string(what) + ": " + ErrnoText(err));
}

Status FillFromDevUrandom(std::span<unsigned char> out) {
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Unavailable("open /dev/urandom", errno);
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      ::close(fd);
      return Unavailable("read /dev/urandom", err);
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return Status::Ok();
}

class KernelRandom : public RandomSource {
 public:
  Status Fill(std::span<unsigned char> out) override {
    size_t done = 0;
    while (done < out.size()) {
      // Requests above 256 bytes may return short; the loop continues them.
      const ssize_t n = ::getrandom(out.data() + done, out.size() - done, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == ENOSYS) return FillFromDevUrandom(out.subspan(done));
        return Unavailable("getrandom", errno);
      }
      done += static_cast<size_t>(n);
    }
    return Status::Ok();
  }
};

}  // namespace

RandomSource& SystemRandom() {
  // Stateless: one shared instance is not shared mutable state.
  static KernelRandom random;
  return random;
}

Result<std::string> RandomHex(RandomSource& random, size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  Status s = random.Fill(raw);
  if (!s.ok()) return s;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char b : raw) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xf]);
  }
  return out;
}

}  // namespace pi_fusion
