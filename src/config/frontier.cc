#include "config/frontier.h"

#include <array>

namespace pi_fusion::config {

namespace {

constexpr std::array<std::string_view, 4> kFrontierProviders = {"openai", "openrouter", "anthropic",
                                                                "openai-codex"};
constexpr std::array<std::string_view, 6> kWordPrefixes = {"gpt",    "chatgpt", "codex",
                                                           "claude", "opus",    "sonnet"};
constexpr std::array<std::string_view, 3> kReasoningSeries = {"o1", "o3", "o4"};
constexpr std::array<std::string_view, 8> kFrontierDomains = {
    "openai.com", "anthropic.com",    "openrouter.ai", "chatgpt.com",
    "claude.ai",  "openai.azure.com", "ai.azure.com",  "cognitiveservices.azure.com"};

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return c >= 'a' && c <= 'z'; }

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = Lower(c);
  return out;
}

bool IsFrontierWord(std::string_view segment) {
  for (std::string_view prefix : kWordPrefixes) {
    if (segment.substr(0, prefix.size()) != prefix) continue;
    const std::string_view rest = segment.substr(prefix.size());
    if (rest.empty() || IsDigit(rest.front())) return true;
  }
  for (std::string_view series : kReasoningSeries) {
    if (segment.substr(0, series.size()) != series) continue;
    const std::string_view rest = segment.substr(series.size());
    bool letters_only = true;
    for (char c : rest) letters_only = letters_only && IsLetter(c);
    if (letters_only) return true;
  }
  return false;
}

bool EndsWithDomain(std::string_view host, std::string_view domain) {
  if (host == domain) return true;
  return host.size() > domain.size() && host.substr(host.size() - domain.size()) == domain &&
         host[host.size() - domain.size() - 1] == '.';
}

}  // namespace

bool IsFrontierProvider(std::string_view provider) {
  const std::string lower = ToLower(provider);
  for (std::string_view p : kFrontierProviders) {
    if (lower == p) return true;
  }
  return lower.rfind("azure", 0) == 0;
}

std::string FrontierSegment(std::string_view text) {
  const std::string lower = ToLower(text);
  size_t i = 0;
  while (i < lower.size()) {
    while (i < lower.size() && !IsLetter(lower[i]) && !IsDigit(lower[i])) ++i;
    size_t end = i;
    while (end < lower.size() && (IsLetter(lower[end]) || IsDigit(lower[end]))) ++end;
    const std::string segment = lower.substr(i, end - i);
    if (!segment.empty() && IsFrontierWord(segment)) return segment;
    i = end;
  }
  return "";
}

std::string UrlHost(std::string_view url) {
  const size_t scheme = url.find("://");
  std::string_view rest = scheme == std::string_view::npos ? url : url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  const size_t at = rest.rfind('@');
  if (at != std::string_view::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') {
    rest =
        rest.substr(0, rest.find(']') == std::string_view::npos ? rest.size() : rest.find(']') + 1);
  } else {
    rest = rest.substr(0, rest.find(':'));
  }
  std::string host = ToLower(rest);
  while (!host.empty() && host.back() == '.') host.pop_back();
  return host;
}

bool IsFrontierHost(std::string_view host) {
  for (std::string_view domain : kFrontierDomains) {
    if (EndsWithDomain(host, domain)) return true;
  }
  return false;
}

FrontierSignal DetectFrontier(std::string_view provider, std::string_view model_id,
                              std::string_view model_name, std::string_view base_url) {
  if (IsFrontierProvider(provider)) return {true, "provider " + std::string(provider)};
  for (std::string_view text : {model_id, model_name}) {
    const std::string segment = FrontierSegment(text);
    if (!segment.empty()) return {true, "model segment \"" + segment + "\""};
  }
  const std::string host = UrlHost(base_url);
  if (!host.empty() && IsFrontierHost(host)) return {true, "endpoint host " + host};
  return {};
}

}  // namespace pi_fusion::config
