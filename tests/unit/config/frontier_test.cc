#include <catch2/catch.hpp>

#include <string>

#include "config/frontier.h"

namespace pi_fusion::config {
namespace {

TEST_CASE("Frontier: providers") {
  for (const char* p : {"openai", "OpenAI", "openrouter", "anthropic", "openai-codex", "azure",
                        "azure-openai", "Azure-Foundry"}) {
    INFO(p);
    CHECK(IsFrontierProvider(p));
  }
  for (const char* p : {"local", "llama.cpp", "ollama", "openai-compatible", "my-azure", "xai"}) {
    INFO(p);
    CHECK_FALSE(IsFrontierProvider(p));
  }
}

TEST_CASE("Frontier: model id and name segments") {
  struct Row {
    const char* text;
    const char* segment;  // "" = not frontier
  };
  const Row rows[] = {
      {"o3-mini", "o3"},
      {"o1", "o1"},
      {"o4-mini-high", "o4"},
      {"o4mini", "o4mini"},
      {"marco-o1", "o1"},
      {"gpt-oss-20b", "gpt"},
      {"gpt-oss:120b", "gpt"},
      {"gpt-4o", "gpt"},
      {"gpt4o", "gpt4o"},
      {"chatgpt-4o-latest", "chatgpt"},
      {"GPT-5.5", "gpt"},
      {"claude-sonnet-4-5", "claude"},
      {"Claude 3.5 Sonnet", "claude"},
      {"claude3", "claude3"},
      {"codex-mini-latest", "codex"},
      {"opus", "opus"},
      {"sonnet4", "sonnet4"},
      {"vendor/claude-opus", "claude"},
      // Not frontier.
      {"llama-3-8b", ""},
      {"scripted-a", ""},
      {"llama-2-7b-gptq", ""},  // gptq: a quantization format, not GPT
      {"qwen2.5-coder-7b", ""},
      {"deepseek-coder-v2", ""},
      {"mistral-7b-instruct-v0.3", ""},
      {"phi-3-mini-4k", ""},
      {"gemma-3n-e4b", ""},
      {"o10", ""},
      {"zo1", ""},
      {"codexer", ""},
      {"chatgptx", ""},
      {"sonnetina", ""},
      {"", ""},
  };
  for (const Row& row : rows) {
    INFO(row.text);
    CHECK(FrontierSegment(row.text) == row.segment);
  }
}

TEST_CASE("Frontier: endpoint hosts") {
  struct Row {
    const char* url;
    const char* host;
    bool frontier;
  };
  const Row rows[] = {
      {"https://api.openai.com/v1", "api.openai.com", true},
      {"https://api.anthropic.com", "api.anthropic.com", true},
      {"https://openrouter.ai/api/v1", "openrouter.ai", true},
      {"https://chatgpt.com/backend-api", "chatgpt.com", true},
      {"https://my-res.openai.azure.com/openai/v1", "my-res.openai.azure.com", true},
      {"https://x.services.ai.azure.com/models", "x.services.ai.azure.com", true},
      {"https://user:pw@API.ANTHROPIC.COM.:443/v1", "api.anthropic.com", true},
      {"api.openai.com/v1", "api.openai.com", true},
      {"http://127.0.0.1:8080/v1", "127.0.0.1", false},
      {"http://localhost:11434", "localhost", false},
      {"http://[::1]:8080/v1", "[::1]", false},
      {"https://notopenai.com/v1", "notopenai.com", false},
      {"https://openai.com.example.net", "openai.com.example.net", false},
      {"https://myvm.westus.cloudapp.azure.com", "myvm.westus.cloudapp.azure.com", false},
      {"", "", false},
  };
  for (const Row& row : rows) {
    INFO(row.url);
    CHECK(UrlHost(row.url) == row.host);
    CHECK(IsFrontierHost(UrlHost(row.url)) == row.frontier);
  }
}

TEST_CASE("Frontier: DetectFrontier reports the first reason") {
  CHECK(DetectFrontier("openai", "x", "", "").reason == "provider openai");
  CHECK(DetectFrontier("local", "gpt-oss-20b", "", "http://127.0.0.1:1/v1").reason ==
        "model segment \"gpt\"");
  CHECK(DetectFrontier("local", "m", "Claude Haiku", "").reason == "model segment \"claude\"");
  CHECK(DetectFrontier("proxy", "m", "M", "https://openrouter.ai/api").reason ==
        "endpoint host openrouter.ai");
  const FrontierSignal local =
      DetectFrontier("local", "scripted-a", "Scripted A", "http://127.0.0.1:8080/v1");
  CHECK_FALSE(local.frontier);
  CHECK(local.reason.empty());
}

}  // namespace
}  // namespace pi_fusion::config
