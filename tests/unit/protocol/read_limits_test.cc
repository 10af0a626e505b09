// The bounds of one walled read (child/core/read_limits.h): what Pi's read refuses, and a call
// that cannot go on forever.
#include "child/core/read_limits.h"

#include <catch2/catch.hpp>

namespace pi_fusion::child {
namespace {

using std::chrono::milliseconds;

TEST_CASE("ReadLimits: a file over 2 GiB at open is refused as Pi's read refuses it") {
  CHECK(CheckSizeAtOpen(0, "a").ok());
  CHECK(CheckSizeAtOpen(kMaxReadBytes, "a").ok());
  const Status big = CheckSizeAtOpen(3758096384ull, "big.bin");  // the 3.5 GiB sparse file
  CHECK(big.code() == kFileTooLarge);
  CHECK(big.message() ==
        "Refused: \"big.bin\" is 3758096384 bytes; a read returns at most 2 GiB (as Pi's read).");
  CHECK(CheckSizeAtOpen(kMaxReadBytes + 1, "a").code() == kFileTooLarge);
}

TEST_CASE("ReadLimits: one call's reading time runs out, and later reads of it are refused too") {
  ReadBudget budget(milliseconds(1000));
  CHECK(budget.BeforeRead("f").ok());
  budget.AddReadTime(milliseconds(600));
  budget.AddReadTime(milliseconds(399));
  CHECK(budget.BeforeRead("f").ok());
  budget.AddReadTime(milliseconds(1));
  const Status late = budget.BeforeRead("f");
  CHECK(late.code() == kReadTimedOut);
  CHECK(late.message().find("\"f\" did not end within 1 s") != std::string::npos);
  CHECK(budget.BeforeRead("f").code() == kReadTimedOut);
}

TEST_CASE("ReadLimits: time that passes outside the call's reads is not counted") {
  // Pi runs a batch's calls on one thread: a neighbour's slow file must not spend this budget.
  ReadBudget budget(milliseconds(1000));
  budget.AddReadTime(milliseconds(10));
  CHECK(budget.BeforeRead("f").ok());
}

TEST_CASE("ReadLimits: a file that reported no size is cut after 2 GiB in one call") {
  ReadBudget budget;
  CHECK(budget.Charge(kMaxReadBytes - 10, "endless").ok());
  CHECK(budget.Charge(10, "endless").ok());
  const Status over = budget.Charge(1, "endless");
  CHECK(over.code() == kFileTooLarge);
  CHECK(over.message().find("more than 2 GiB without ending") != std::string::npos);
}

}  // namespace
}  // namespace pi_fusion::child
