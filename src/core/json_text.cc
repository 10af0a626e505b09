#include "core/json_text.h"

#include <optional>
#include <set>
#include <vector>

#include "core/utf8.h"

namespace pi_fusion {
namespace {

constexpr std::string_view kReplacementEscape = "\\ufffd";

// The value of the four hex digits at text[pos..pos+4), or -1.
int HexQuad(std::string_view text, size_t pos) {
  if (pos + 4 > text.size()) return -1;
  int value = 0;
  for (size_t i = pos; i < pos + 4; ++i) {
    const char c = text[i];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

bool IsHigh(int unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
bool IsLow(int unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

// The code unit of a "\uXXXX" escape starting at text[pos], or -1.
int EscapedUnit(std::string_view text, size_t pos) {
  if (pos + 1 >= text.size() || text[pos] != '\\' || text[pos + 1] != 'u') return -1;
  return HexQuad(text, pos + 2);
}

}  // namespace

std::string ReplaceLoneSurrogateEscapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out.push_back(text[i++]);
      continue;
    }
    const int unit = EscapedUnit(text, i);
    if (unit < 0) {  // any other escape, copied whole so "\\" never starts a new one
      out.append(text.substr(i, 2));
      i += 2;
      continue;
    }
    if (IsHigh(unit) && IsLow(EscapedUnit(text, i + 6))) {
      out.append(text.substr(i, 12));
      i += 12;
    } else if (IsHigh(unit) || IsLow(unit)) {
      out.append(kReplacementEscape);
      i += 6;
    } else {
      out.append(text.substr(i, 6));
      i += 6;
    }
  }
  return out;
}

Result<nlohmann::json> ParseHostJson(std::string_view text, const std::string& code) {
  const std::string repaired = ReplaceLoneSurrogateEscapes(text);
  nlohmann::json value = nlohmann::json::parse(repaired, nullptr, /*allow_exceptions=*/false);
  if (!value.is_discarded()) return value;
  // Find where it broke without quoting the input (it may be a model's text).
  size_t position = 0;
  try {
    // Parsed again only for the error's position; GCC does not let a (void) cast drop the
    // library's warn_unused_result, so the value is named.
    [[maybe_unused]] const nlohmann::json unused = nlohmann::json::parse(repaired);
  } catch (const nlohmann::json::parse_error& e) {
    position = e.byte;
  } catch (const std::exception&) {
  }
  return Status::Error(code, "the value is not valid JSON text (parse error at byte " +
                                 std::to_string(position) + " of " +
                                 std::to_string(repaired.size()) + ")");
}

Result<nlohmann::json> ParseUniqueKeyJson(std::string_view text, std::string_view file,
                                          const std::string& code) {
  using nlohmann::json;
  std::vector<std::set<std::string>> keys;  // one set per object being read
  std::optional<std::string> repeated;
  const json::parser_callback_t track = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() && !repeated &&
        !keys.back().insert(parsed.get<std::string>()).second) {
      repeated = parsed.get<std::string>();
    }
    return true;
  };
  json value;
  try {
    value = json::parse(text, track, /*allow_exceptions=*/false);
  } catch (const json::exception&) {  // never expected without exceptions; kept total anyway
    value = json::value_t::discarded;
  }
  if (value.is_discarded()) {
    size_t position = 0;
    try {
      [[maybe_unused]] const json unused = json::parse(text);  // for the error's position only
    } catch (const json::parse_error& e) {
      position = e.byte;
    } catch (const std::exception&) {
    }
    return Status::Error(code, std::string(file) + " is not valid JSON (parse error at byte " +
                                   std::to_string(position) + ")");
  }
  if (repeated) {
    return Status::Error(code, std::string(file) + " repeats the key \"" +
                                   TruncateUtf8(RepairUtf8(*repeated), 64) + "\" in one object");
  }
  return value;
}

std::string JsonErrorText(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0) {
    if (const size_t end = what.find("] "); end != std::string::npos) what.erase(0, end + 2);
  }
  // Both excerpts nlohmann writes quote the input: "; last read: '…'" after a syntax error and
  // "number overflow parsing '…'" after a number too large for a double.
  for (const char* excerpt : {"; last read: ", " parsing '"}) {
    if (const size_t quote = what.find(excerpt); quote != std::string::npos) what.erase(quote);
  }
  return what;
}

std::string ExceptionText(const std::exception& e) {
  if (const auto* json_error = dynamic_cast<const nlohmann::json::exception*>(&e)) {
    return JsonErrorText(*json_error);
  }
  std::string what = e.what();
  if (what.size() > 200) what.resize(200);
  return what;
}

}  // namespace pi_fusion
