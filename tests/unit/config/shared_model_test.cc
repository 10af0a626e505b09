// Candidates on one model: which ones, and what the person is told.
#include "config/shared_model.h"

#include <catch2/catch.hpp>

namespace pi_fusion::config {
namespace {

TEST_CASE("SharedCandidateModel: three, two or none; unknown models never shared") {
  CHECK(SharedCandidateModel({"p/a", "p/a", "p/a"}) == SharedModel{"p/a", {1, 2, 3}});
  CHECK(SharedCandidateModel({"p/a", "q/b", "p/a"}) == SharedModel{"p/a", {1, 3}});
  CHECK(SharedCandidateModel({"q/b", "p/a", "p/a"}) == SharedModel{"p/a", {2, 3}});
  CHECK_FALSE(SharedCandidateModel({"p/a1", "p/b1", "q/c1"}));
  CHECK_FALSE(SharedCandidateModel({"", "", "p/a"}));
}

TEST_CASE("SharedCandidateModel: one family gets the softer note; exact ids still come first") {
  // Same provider, one stem.
  CHECK(SharedCandidateModel(
            {"anthropic/claude-sonnet-4-5", "x/gemma-3", "anthropic/claude-opus-4-1"}) ==
        SharedModel{"anthropic/claude-sonnet-4-5, anthropic/claude-opus-4-1", {1, 3}, true});
  // The same model through two providers: case, '.', a date and a variant suffix do not matter.
  CHECK(SharedCandidateModel({"anthropic/claude-sonnet-4-5-20250929",
                              "openrouter/anthropic/Claude-Sonnet-4.5:thinking", "x/llama-3"}) ==
        SharedModel{
            "anthropic/claude-sonnet-4-5-20250929, openrouter/anthropic/Claude-Sonnet-4.5:thinking",
            {1, 2},
            true});
  CHECK(SharedCandidateModel({"a/qwen3-coder", "a/qwen2-5-max", "a/qwen-plus"})->slots ==
        std::vector<int>{1, 2, 3});
  // An exact pair wins over a family of three.
  CHECK(SharedCandidateModel({"a/qwen3", "a/qwen-plus", "a/qwen3"}) ==
        SharedModel{"a/qwen3", {1, 3}, false});
  // Different providers with one stem are not one family; nor are short stems.
  CHECK_FALSE(SharedCandidateModel({"a/claude-x", "b/claude-y", "c/gemma"}));
  CHECK_FALSE(SharedCandidateModel({"openai/o3", "openai/o1", "x/gemma"}));
  CHECK_FALSE(ModelsOfOneFamily("claude-x", "claude-x"));  // no provider
}

TEST_CASE("SharedModelText: a warning for three, a softer note for two") {
  CHECK(SharedModelText({"p/a", {1, 2, 3}}) ==
        "All three candidates run on one model (p/a), so their agreement is weaker evidence than "
        "agreement between different models.");
  CHECK(SharedModelText({"p/a", {1, 3}}) ==
        "Candidates 1 and 3 run on one model (p/a), so their agreement counts for less.");
  CHECK(SharedModelText({"p/qwen3, p/qwen-max", {1, 3}, true}) ==
        "Candidates 1 and 3 run on one model family (p/qwen3, p/qwen-max), so their agreement "
        "counts for less.");
  CHECK(SharedModelText({"p/qwen3, p/qwen-max, p/qwen-plus", {1, 2, 3}, true}) ==
        "All three candidates run on one model family (p/qwen3, p/qwen-max, p/qwen-plus), so their "
        "agreement counts for less.");
}

}  // namespace
}  // namespace pi_fusion::config
