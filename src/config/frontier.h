// Frontier detection: does a route look like a frontier (OpenAI, Anthropic, OpenRouter, Azure)
// model? Such routes are admitted only as subscription OAuth on Pi's trusted endpoints
// (route_admission.h); everything else is a local route. Detection errs towards "frontier":
// a false positive costs a refusal with a clear message, a false negative would let a metered
// or API-key route through. docs/config.md lists the rules with examples.
//
// A route is frontier when any of these holds:
//   provider   (ASCII case-insensitive) is openai, openrouter, anthropic or openai-codex, or starts
//              with "azure";
//   model      the id or the display name has a frontier segment. Lowercase the text and split it
//              into maximal runs of ASCII letters and digits. A segment is frontier when
//                (a) it starts with gpt, chatgpt, codex, claude, opus or sonnet and the rest of
//                    the segment is empty or starts with a digit ("gpt", "gpt4o", "claude3";
//                    not "gptq", the quantization format), or
//                (b) it is o1, o3 or o4, optionally followed by letters only ("o3", "o4mini";
//                    not "o10");
//   endpoint   the base URL's host is, or is a subdomain of, openai.com, anthropic.com,
//              openrouter.ai, chatgpt.com, claude.ai, openai.azure.com, ai.azure.com or
//              cognitiveservices.azure.com.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pi_fusion::config {

struct FrontierSignal {
  bool frontier = false;
  // Why, for messages: "provider openai", "model segment \"gpt\"", "endpoint host
  // api.openai.com". Empty when !frontier.
  std::string reason;
};

FrontierSignal DetectFrontier(std::string_view provider, std::string_view model_id,
                              std::string_view model_name, std::string_view base_url);

bool IsFrontierProvider(std::string_view provider);
// The first frontier segment of `text` (lowercased), or "" when there is none.
std::string FrontierSegment(std::string_view text);
// The lowercase host of an absolute or scheme-less URL, without userinfo, port or trailing dot;
// "" when there is none.
std::string UrlHost(std::string_view url);
bool IsFrontierHost(std::string_view host);

}  // namespace pi_fusion::config
