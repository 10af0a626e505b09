#include "net/media_type.h"

#include <array>

namespace pi_fusion::net {

std::string MediaType(std::string_view content_type) {
  std::string_view type = content_type.substr(0, content_type.find(';'));
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  std::string out;
  for (char c : type) out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  return out;
}

bool IsAcceptedMediaType(std::string_view media_type) {
  static constexpr std::array<std::string_view, 4> kAccepted = {
      "text/html", "application/xhtml+xml", "text/plain", "text/markdown"};
  for (std::string_view accepted : kAccepted) {
    if (media_type == accepted) return true;
  }
  return false;
}

}  // namespace pi_fusion::net
