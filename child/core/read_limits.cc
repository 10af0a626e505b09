#include "child/core/read_limits.h"

namespace pi_fusion::child {

Status CheckSizeAtOpen(uint64_t size, std::string_view shown) {
  if (size <= kMaxReadBytes) return Status::Ok();
  return Status::Error(kFileTooLarge, "Refused: \"" + std::string(shown) + "\" is " +
                                          std::to_string(size) +
                                          " bytes; a read returns at most 2 GiB (as Pi's read).");
}

Status ReadBudget::BeforeRead(std::string_view shown) const {
  if (spent_ < time_) return Status::Ok();
  return Status::Error(kReadTimedOut, "Refused: reading \"" + std::string(shown) +
                                          "\" did not end within " +
                                          std::to_string(time_.count() / 1000) +
                                          " s; it may never end (a file that keeps producing "
                                          "data). Read a smaller part with offset and limit.");
}

Status ReadBudget::Charge(uint64_t bytes, std::string_view shown) {
  read_ += bytes;
  if (read_ <= kMaxReadBytes) return Status::Ok();
  return Status::Error(kFileTooLarge, "Refused: \"" + std::string(shown) +
                                          "\" gave more than 2 GiB without ending; a read "
                                          "returns at most 2 GiB (as Pi's read).");
}

}  // namespace pi_fusion::child
