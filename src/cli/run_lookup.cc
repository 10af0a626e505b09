#include "cli/run_lookup.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

#include "core/error_codes.h"
#include "core/file_system.h"
#include "core/terminal_text.h"
#include "store/run_finder.h"

namespace pi_fusion::cli {

Result<std::string> ProjectDir(const std::string& cwd) {
  std::error_code ec;
  const std::filesystem::path base =
      cwd.empty() ? std::filesystem::current_path(ec) : std::filesystem::path(cwd);
  const std::string project = std::filesystem::absolute(base, ec).lexically_normal().string();
  if (!std::filesystem::is_directory(project, ec)) {
    return Status::Error(kInvalidArguments, "--cwd " + cwd + " is not a directory");
  }
  return project;
}

Result<std::string> FindRunDir(const std::string& run, const std::string& project) {
  std::error_code ec;
  const std::filesystem::path given(run);
  const std::string as_path =
      (given.is_absolute() ? given : std::filesystem::path(project) / given).lexically_normal();
  const bool is_path = run.find('/') != std::string::npos || run == "." || run == ".." ||
                       std::filesystem::is_directory(as_path, ec);
  if (is_path) {
    if (!std::filesystem::is_directory(as_path, ec)) {
      return Status::Error(kInvalidArguments, "no such run: " + as_path + " is not a directory");
    }
    std::string dir = as_path;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return dir;
  }
  // By directory name, so a run whose manifest is broken is still found (and reported).
  FileSystem& fs = PosixFileSystem();
  std::vector<store::FoundRun> matches = store::RunsNamed(store::FindRuns(fs, project), run);
  if (matches.empty()) {
    return Status::Error(kInvalidArguments,
                         "no such run: no run " + run + " under " + project + "/.pi/fusion");
  }
  if (matches.size() > 1) {
    std::sort(
        matches.begin(), matches.end(),
        [](const store::FoundRun& a, const store::FoundRun& b) { return a.run_id < b.run_id; });
    std::string names;
    for (const store::FoundRun& found : matches) {
      names += (names.empty() ? "" : ", ") + found.run_id;
    }
    return Status::Error(kInvalidArguments, "ambiguous run id " + run + " (matches " + names + ")");
  }
  return matches.front().dir;
}

void PrintLine(FILE* stream, const std::string& line) {
  std::fprintf(stream, "%s\n", NeutralizeControls(line).c_str());
}

void PrintOneLine(FILE* stream, const std::string& line) {
  std::fprintf(stream, "%s\n", NeutralizeControls(line, TextShape::kSingleLine).c_str());
}

int UsageError(const Status& status) {
  PrintLine(stderr, "error: " + status.message());
  return 2;
}

void PrintJson(const nlohmann::json& value) {
  // ensure_ascii escapes DEL, C1 and bidi controls (\u009b, \u202e) too, as JSON always escapes
  // C0. A path that is not UTF-8 (a directory name on disk) gets U+FFFD rather than an exception.
  std::printf(
      "%s\n",
      value.dump(2, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace).c_str());
}

}  // namespace pi_fusion::cli
