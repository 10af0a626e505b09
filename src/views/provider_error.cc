#include "views/provider_error.h"

#include <cctype>

#include <nlohmann/json.hpp>

namespace pi_fusion::views {
namespace {

using nlohmann::json;

// The reply's string at error.`key` where the provider nests its error
// ({"type":"error","error":{"type":…,"message":…}}), else at `key`; "" when neither is a string.
std::string ReplyField(const json& reply, const char* key) {
  const json nested = reply.value("error", json());
  if (nested.is_object() && nested.contains(key) && nested[key].is_string()) {
    return nested[key].get<std::string>();
  }
  if (reply.contains(key) && reply[key].is_string()) return reply[key].get<std::string>();
  return "";
}

// The last HTTP status (a three-digit number from 100 to 599 standing alone) in `text`; 0 when
// none.
int LastStatus(std::string_view text) {
  int status = 0;
  for (size_t i = 0; i + 3 <= text.size(); ++i) {
    const bool alone_before = i == 0 || std::isdigit(static_cast<unsigned char>(text[i - 1])) == 0;
    const bool alone_after =
        i + 3 == text.size() || std::isdigit(static_cast<unsigned char>(text[i + 3])) == 0;
    bool digits = alone_before && alone_after;
    for (size_t k = 0; digits && k < 3; ++k) {
      digits = std::isdigit(static_cast<unsigned char>(text[i + k])) != 0;
    }
    if (!digits) continue;
    const int value = std::stoi(std::string(text.substr(i, 3)));
    if (value >= 100 && value <= 599) status = value;
  }
  return status;
}

}  // namespace

std::optional<std::string> ProviderErrorSentence(std::string_view message, std::string_view route) {
  const size_t open = message.find('{');
  if (open == std::string_view::npos) return std::nullopt;
  // The reply is the JSON object from the first brace to the end; anything else is not one.
  const json reply = json::parse(message.substr(open), nullptr, /*allow_exceptions=*/false);
  if (!reply.is_object()) return std::nullopt;
  std::string text = ReplyField(reply, "message");
  while (!text.empty() && (text.back() == '.' || text.back() == ' ')) text.pop_back();
  if (text.empty()) return std::nullopt;
  std::string kind = ReplyField(reply, "type");
  if (kind.empty()) kind = ReplyField(reply, "code");
  const int status = LastStatus(message.substr(0, open));
  std::string sentence = route.empty() ? "The provider" : std::string(route);
  sentence += status != 0 ? " answered HTTP " + std::to_string(status) : " answered with an error";
  sentence += ": " + text;
  if (!kind.empty() && kind != text) sentence += " (" + kind + ")";
  return sentence + ".";
}

}  // namespace pi_fusion::views
