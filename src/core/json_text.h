// Total conversions of JSON text that crosses from JavaScript into the core.
//
// JavaScript strings are UTF-16 and may hold a lone surrogate ("\ud800"), which a model can put in
// a tool argument or a conversation. JSON.stringify then writes the escape "\ud800", which is not
// valid JSON for any UTF-8 parser: nlohmann::json throws on it. Every JSON text that comes from the
// host goes through ParseHostJson, which never throws. Thread-compatible, no state.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion {

// `text` with every escaped lone UTF-16 surrogate (a high surrogate not followed by an escaped low
// one, or a low surrogate on its own) replaced by the escape of U+FFFD. Valid pairs, other escapes
// and all bytes outside escapes are kept as they are.
std::string ReplaceLoneSurrogateEscapes(std::string_view text);

// Parses JSON text produced by the host (JSON.stringify) after ReplaceLoneSurrogateEscapes.
// Never throws: text that still does not parse (invalid UTF-8, truncated) is an error with
// `code` and a message giving only the byte position, never the text itself.
Result<nlohmann::json> ParseHostJson(std::string_view text, const std::string& code);

// Parses one JSON value written to or read from disk (an artifact), refusing an object that
// repeats a key. nlohmann::json keeps the last of two equal keys without a word, so a file edited
// to carry `"state":"failed"` and then `"state":"completed"` would read as completed while another
// reader (or a person) sees the first. Never throws. Errors carry `code` and name `file`:
//   "<file> is not valid JSON (parse error at byte N)"
//   "<file> repeats the key \"<key>\" in one object" (the key cut to 64 bytes, invalid UTF-8
//   replaced)
Result<nlohmann::json> ParseUniqueKeyJson(std::string_view text, std::string_view file,
                                          const std::string& code);

// What went wrong in a JSON exception, without the input: nlohmann's message minus its
// "[json.exception.…] " prefix and minus the "; last read: '…'" excerpt, which quotes the text
// being parsed (a model's output, a conversation). Kept: the position and the kind of error, e.g.
// "parse error at line 1, column 5: syntax error while parsing value - invalid literal".
std::string JsonErrorText(const nlohmann::json::exception& e);

// The text of any exception for a record or a notice: JsonErrorText for JSON exceptions,
// otherwise what() cut to 200 bytes. Never quotes parsed input.
std::string ExceptionText(const std::exception& e);

}  // namespace pi_fusion
