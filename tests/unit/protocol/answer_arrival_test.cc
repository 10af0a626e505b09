// AnswerArrival: the trigger that ends a stage at its child's answer instead of its exit.
#include "protocol/answer_arrival.h"

#include <catch2/catch.hpp>

#include "test_streams.h"

namespace pi_fusion::protocol {
namespace {

using testing::StreamBuilder;
using testing::Usage;

TEST_CASE("AnswerArrival: complete only with the settlement and exactly the announced stdout") {
  StreamBuilder b;
  b.Add(StreamBuilder::Record(1, "toolUse", {"looking"}, Usage(10, 5)));
  b.Add(StreamBuilder::Record(2, "stop", {"Hi", "there"}, Usage(10, 2)));
  const std::string frames_only = b.stderr_bytes;
  b.Seal();
  const std::string out = "Hi\nthere\n";
  AnswerArrival arrival;
  CHECK_FALSE(arrival.Complete(out, frames_only));  // no settlement yet
  CHECK_FALSE(arrival.Complete("", b.stderr_bytes));
  CHECK_FALSE(arrival.Complete("Hi\n", b.stderr_bytes));  // stdout still arriving
  CHECK_FALSE(arrival.Complete("Hi\nthere", b.stderr_bytes));
  CHECK(arrival.Complete(out, b.stderr_bytes));
  CHECK_FALSE(arrival.Complete(out + "more\n", b.stderr_bytes));
  AnswerArrival other;
  CHECK_FALSE(other.Complete("Hi\nThere\n", b.stderr_bytes));  // the right size, other bytes
}

TEST_CASE("AnswerArrival: a settlement line still being written is not there yet") {
  StreamBuilder b;
  b.Add(StreamBuilder::Record(1, "stop", {"done"}, Usage(10, 2)));
  b.Seal();
  const std::string cut = b.stderr_bytes.substr(0, b.stderr_bytes.size() - 1);  // no "\n" yet
  AnswerArrival arrival;
  CHECK_FALSE(arrival.Complete("done\n", cut));
  CHECK(arrival.Complete("done\n", b.stderr_bytes));
}

TEST_CASE("AnswerArrival: a failed settlement never completes; the exit decides") {
  StreamBuilder b;
  b.Add(StreamBuilder::Record(1, "stop", {"done"}, Usage(10, 2)));
  b.Seal([](nlohmann::json& s) {
    s["status"] = "failed";
    s["failure_code"] = "child_output_cap";
  });
  AnswerArrival arrival;
  CHECK_FALSE(arrival.Complete("done\n", b.stderr_bytes));
  CHECK_FALSE(arrival.Complete("done\n", b.stderr_bytes));
}

TEST_CASE("AnswerArrival: stderr split at any byte finds the settlement once it is whole") {
  StreamBuilder b;
  b.Raw("Warning: a Pi diagnostic\n");
  b.Add(StreamBuilder::Record(1, "stop", {"done"}, Usage(10, 2)));
  b.Seal();
  const std::string& all = b.stderr_bytes;
  AnswerArrival arrival;
  size_t first_true = 0;
  for (size_t n = 0; n <= all.size(); ++n) {
    if (arrival.Complete("done\n", std::string_view(all).substr(0, n))) {
      first_true = n;
      break;
    }
  }
  CHECK(first_true == all.size());
}

}  // namespace
}  // namespace pi_fusion::protocol
