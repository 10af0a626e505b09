#include "workflow/strict_json.h"

#include <optional>
#include <set>
#include <vector>

#include "core/json_text.h"

namespace pi_fusion::workflow {

using nlohmann::json;

std::string_view TrimJsonSpace(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

StrictJson ParseStrictJson(std::string_view raw, std::string_view what) {
  const std::string_view text = TrimJsonSpace(raw);
  if (text.empty()) return {json(), "the " + std::string(what) + " is empty"};
  if (text.starts_with("```")) {
    return {json(),
            "the output must be one bare JSON object; Markdown code fences are not allowed"};
  }
  std::vector<std::set<std::string>> keys;
  std::optional<std::string> duplicate;
  bool too_deep = false;
  const json::parser_callback_t track = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > kStrictJsonMaxDepth) too_deep = true;
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    if (event == json::parse_event_t::key && !keys.empty() &&
        !keys.back().insert(parsed.get<std::string>()).second && !duplicate) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  try {
    json value = json::parse(text, track);
    if (too_deep)
      return {json(), "JSON nesting deeper than " + std::to_string(kStrictJsonMaxDepth)};
    // The key itself is model text, which never reaches a record.
    if (duplicate) return {json(), "duplicate key in one object"};
    return {std::move(value), ""};
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number overflow
    // Position and kind only: the parser's own message quotes the model's text.
    return {json(), "not a single JSON value: " + JsonErrorText(e)};
  }
}

}  // namespace pi_fusion::workflow
