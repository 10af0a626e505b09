#include "child/core/walk_tools.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "child/core/protected_names.h"

namespace pi_fusion::child {
namespace {

// The protected places (file_wall.h) as ripgrep/fd globs: excluded directories are not entered.
// `.env.*` is left to the filter, since its example files stay searchable.
std::vector<std::string> Excluded() { return ProtectedGlobs(); }

// A text field of rg's JSON: `text`, or base64 `bytes` for data that is not UTF-8.
std::string RgText(const nlohmann::json& field) {
  if (!field.is_object()) return "";
  if (auto t = field.find("text"); t != field.end() && t->is_string()) return t->get<std::string>();
  auto b = field.find("bytes");
  if (b == field.end() || !b->is_string()) return "";
  const std::string in = b->get<std::string>();
  std::string out(in.size() / 4 * 3 + 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()),
                                static_cast<int>(in.size()));
  if (n < 0) return "";
  size_t size = static_cast<size_t>(n);
  for (size_t i = in.size(); i > 0 && in[i - 1] == '=' && size > 0; --i) --size;  // padding
  out.resize(size);
  return out;
}

}  // namespace

std::vector<std::string> RipgrepArgs(const GrepRequest& request, const std::string& target) {
  std::vector<std::string> args = {"--no-config", "--json", "--line-number", "--color=never",
                                   "--hidden"};
  if (request.ignore_case) args.push_back("--ignore-case");
  if (request.literal) args.push_back("--fixed-strings");
  if (request.glob) {
    // As Pi: rg never matches a leading "./", so it is dropped; "!" negates.
    std::string glob = *request.glob;
    const size_t bang = !glob.empty() && glob[0] == '!' ? 1 : 0;
    while (glob.compare(bang, 2, "./") == 0) glob.erase(bang, 2);
    args.insert(args.end(), {"--glob", glob});
  }
  if (request.context > 0) args.insert(args.end(), {"--context", std::to_string(request.context)});
  for (const std::string& excluded : Excluded())
    args.insert(args.end(), {"--glob", "!" + excluded});
  args.insert(args.end(), {"--", request.pattern, target});
  return args;
}

std::vector<RipgrepLine> ParseRipgrepJson(std::string_view output) {
  std::vector<RipgrepLine> lines;
  size_t start = 0;
  while (start < output.size()) {
    const size_t end = output.find('\n', start);
    if (end == std::string_view::npos) break;  // a last line cut by the cap
    nlohmann::json event = nlohmann::json::parse(output.substr(start, end - start), nullptr, false);
    start = end + 1;
    if (!event.is_object() || !event.contains("type") || !event["type"].is_string()) continue;
    const std::string type = event["type"].get<std::string>();
    if (type != "match" && type != "context") continue;
    const nlohmann::json& data = event["data"];
    if (!data.is_object() || !data.contains("line_number") ||
        !data["line_number"].is_number_integer()) {
      continue;
    }
    RipgrepLine line;
    line.path = RgText(data.value("path", nlohmann::json()));
    line.line_number = data["line_number"].get<int64_t>();
    line.text = RgText(data.value("lines", nlohmann::json()));
    line.match = type == "match";
    if (!line.path.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

std::vector<std::string> FdArgs(std::string_view pattern, const std::string& real_dir) {
  std::vector<std::string> args = {"--color=never", "--hidden"};
  std::string effective(pattern);
  while (effective.compare(0, 2, "./") == 0) effective.erase(0, 2);
  const bool path_pattern = effective.find('/') != std::string::npos;
  bool lower = true;
  for (char c : effective) lower = lower && !(c >= 'A' && c <= 'Z');
  args.push_back("--glob");
  if (path_pattern) args.push_back("--full-path");
  if (path_pattern && effective.front() != '/') {
    // fd matches the absolute path: anchor the pattern at the searched directory, glob-escaped.
    std::string root = real_dir;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    std::string escaped;
    for (char c : root) {
      if (std::string_view("\\*?[]{}").find(c) != std::string_view::npos) escaped += '\\';
      escaped += c;
    }
    effective = escaped + "/" + effective;
    if (lower) args.push_back("--ignore-case");
  }
  for (const std::string& excluded : Excluded()) args.insert(args.end(), {"--exclude", excluded});
  args.insert(args.end(), {"--", effective});
  return args;
}

std::vector<std::string> FdLines(std::string_view output) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string_view::npos) break;  // a last line cut by the cap
    std::string line(output.substr(start, end - start));
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    while (line.compare(0, 2, "./") == 0) line.erase(0, 2);
    if (!line.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

std::string FindExecutable(const std::vector<std::string>& names, const std::string& agent_bin,
                           std::string_view path_var) {
  std::vector<std::string> dirs = {agent_bin};
  size_t start = 0;
  while (start <= path_var.size()) {
    size_t end = path_var.find(':', start);
    if (end == std::string_view::npos) end = path_var.size();
    if (end > start) dirs.emplace_back(path_var.substr(start, end - start));
    start = end + 1;
  }
  for (const std::string& name : names) {
    for (const std::string& dir : dirs) {
      if (dir.empty() || dir.front() != '/') continue;  // never relative to the project
      const std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

}  // namespace pi_fusion::child
