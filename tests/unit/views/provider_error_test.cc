// provider_error.h: a provider's reply quoted in a child's failure, said as one sentence.
#include "views/provider_error.h"

#include <catch2/catch.hpp>

using pi_fusion::views::ProviderErrorSentence;

TEST_CASE("ProviderErrorSentence: the route, the HTTP status, the message and its type") {
  // As Pi reports an OpenAI-style provider's 500 through a child that exited 1.
  CHECK(ProviderErrorSentence("child ended with exit code 1: 500: {\"message\":\"Scripted internal "
                              "server error\",\"type\":\"api_error\",\"code\":\"api_error\"}",
                              "scripted/scripted-a") ==
        "scripted/scripted-a answered HTTP 500: Scripted internal server error (api_error).");
  // A nested reply, status before a space, a message that ends its own sentence.
  CHECK(ProviderErrorSentence("child ended with exit code 1: 529 {\"type\":\"error\",\"error\":"
                              "{\"type\":\"overloaded_error\",\"message\":\"Overloaded.\"}}",
                              "anthropic/claude") ==
        "anthropic/claude answered HTTP 529: Overloaded (overloaded_error).");
  // No route known, no status, the kind from `code`.
  CHECK(ProviderErrorSentence(
            "{\"error\":{\"message\":\"quota exceeded\",\"code\":\"insufficient_quota\"}}", "") ==
        "The provider answered with an error: quota exceeded (insufficient_quota).");
  // A number that is not a status (exit code 1, a port, a four-digit number) is not taken as one.
  CHECK(ProviderErrorSentence("child ended with exit code 1 after 1234 ms: {\"message\":\"no\"}",
                              "p/m") == "p/m answered with an error: no.");
}

TEST_CASE("ProviderErrorSentence: a message that quotes no provider reply is left to the caller") {
  CHECK_FALSE(ProviderErrorSentence("candidate 2 timed out", "p/m"));
  CHECK_FALSE(ProviderErrorSentence("child ended with exit code 1: 500: {not json", "p/m"));
  CHECK_FALSE(ProviderErrorSentence("child ended: {\"type\":\"api_error\"}", "p/m"));
  CHECK_FALSE(ProviderErrorSentence("child ended: {\"message\":\"\"}", "p/m"));
  CHECK_FALSE(ProviderErrorSentence("child ended: [\"message\"]", "p/m"));
  CHECK_FALSE(ProviderErrorSentence("", ""));
}
