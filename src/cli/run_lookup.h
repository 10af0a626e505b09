// What the run commands (`verify`, `show`) share: the project a --cwd names, the one run a person
// names in it, and how their lines reach the terminal. Every line these commands print about a
// run passes through NeutralizeControls (core/terminal_text.h): a run directory is whatever is on
// disk, and a planted one must not drive the terminal.
//
// Reads the file system directly (std::filesystem) and through store::FindRuns; thread-safe.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::cli {

// The --cwd value as an absolute path (default: the current directory); invalid_arguments when it
// is not a directory (an error, not an empty project).
Result<std::string> ProjectDir(const std::string& cwd);

// The run a person named: a run directory (a path with a slash, or a directory that exists), or
// a run id, a prefix of one or the short id the views show, among the project's runs. Its
// directory, or invalid_arguments "no such run: …" / "ambiguous run id … (matches …)".
Result<std::string> FindRunDir(const std::string& run, const std::string& project);

// `line` and a line end on `stream`, every control character shown as visible text.
void PrintLine(FILE* stream, const std::string& line);

// A line that must stay one line: a text from a run directory inside it cannot start another (a
// planted run could otherwise print a line that seems to be about some other run).
void PrintOneLine(FILE* stream, const std::string& line);

// Prints "error: <message>" of an invalid invocation on stderr; its exit code, 2.
int UsageError(const Status& status);

// `value` on stdout, indented, pure ASCII: JSON's own escapes keep every string exact and every
// control out of the terminal.
void PrintJson(const nlohmann::json& value);

}  // namespace pi_fusion::cli
