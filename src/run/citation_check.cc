#include "run/citation_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>

#include "child/core/file_wall.h"
#include "child/core/path_confinement.h"
#include "child/core/protected_places.h"
#include "core/env_vars.h"
#include "core/file_system.h"
#include "pi_fusion/sha256.h"
#include "workflow/citation_refs.h"

namespace pi_fusion::run {
namespace {

using nlohmann::json;
using workflow::CitationRef;

// What the check learned of one cited path: its bytes, or why a citation of it cannot hold.
struct CitedFile {
  std::optional<workflow::CitationVerdict> refusal;  // missing_file or not_checkable
  std::string content;
  bool complete = true;
  bool changed = false;
};

// A citation and every text that made it.
struct Cited {
  CitationRef ref;
  std::vector<std::string> in;
};

child::EnvLookup LookupOf(const CitationCheckInput& input) {
  return [&input](std::string_view name) -> std::optional<std::string> {
    // The children were given the parent's session directory (child_command.cc).
    if (name == env_vars::kSessionDir) {
      return input.session_dir.empty() ? std::nullopt : std::optional(input.session_dir);
    }
    for (const std::string& entry : input.environment) {
      if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
          entry[name.size()] == '=') {
        return entry.substr(name.size() + 1);
      }
    }
    return std::nullopt;
  };
}

// The wall's refusal ("Refused: "x" may not be read: it is …") as a detail: what follows the
// quoted path.
std::string RefusalDetail(const std::string& message, const std::string& shown) {
  const std::string prefix = "Refused: \"" + shown + "\" ";
  std::string detail =
      message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
  while (!detail.empty() && (detail.back() == '.' || detail.back() == ' ')) detail.pop_back();
  return detail;
}

bool ModifiedAfter(int fd, std::optional<int64_t> started_unix_ms) {
  struct stat st = {};
  if (!started_unix_ms || ::fstat(fd, &st) != 0) return false;
  const int64_t mtime_ms = int64_t{st.st_mtim.tv_sec} * 1000 + st.st_mtim.tv_nsec / 1000000;
  return mtime_ms > *started_unix_ms;
}

// Reads at most kMaxCitedFileBytes (+1 to know whether there is more) through `fd`.
void ReadBounded(int fd, CitedFile* file) {
  std::string buffer(kMaxCitedFileBytes + 1, '\0');
  size_t got = 0;
  while (got < buffer.size()) {
    const ssize_t n = ::read(fd, buffer.data() + got, buffer.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  file->complete = got <= kMaxCitedFileBytes;
  buffer.resize(std::min(got, kMaxCitedFileBytes));
  file->content = std::move(buffer);
}

CitedFile ReadThroughWall(const child::FileWall* wall, const CitationCheckInput& input,
                          const std::string& path) {
  CitedFile file;
  auto not_checkable = [&file](std::string detail) {
    file.refusal = workflow::CitationVerdict{"not_checkable", std::move(detail)};
    return file;
  };
  if (wall == nullptr) return not_checkable("the project directory cannot be opened");
  const std::optional<std::string> resolved = child::ResolveLikePi(path, input.cwd, input.home);
  if (!resolved) return not_checkable("is not a path in the project");
  Result<child::VettedObject> vetted = wall->Vet(*resolved, path, child::WallWant::kFile);
  if (!vetted.ok()) {
    const std::string detail = RefusalDetail(vetted.status().message(), path);
    if (vetted.status().code() == child::kPathNotFound &&
        detail.find("does not exist") != std::string::npos) {
      file.refusal = workflow::CitationVerdict{"missing_file", "names a file that does not exist"};
      return file;
    }
    return not_checkable(detail);
  }
  Result<int> fd = child::FileWall::ReopenForReading(*vetted);
  if (!fd.ok()) return not_checkable(RefusalDetail(fd.status().message(), path));
  file.changed = ModifiedAfter(*fd, input.started_unix_ms);
  ReadBounded(*fd, &file);
  ::close(*fd);
  return file;
}

// The distinct citations of every text in first-seen order, with where each was made.
std::vector<Cited> CollectCitations(const std::vector<CitedText>& texts, size_t* unchecked) {
  std::vector<Cited> out;
  for (const CitedText& text : texts) {
    for (CitationRef& ref : workflow::ExtractCitations(text.text)) {
      auto same =
          std::find_if(out.begin(), out.end(), [&ref](const Cited& c) { return c.ref == ref; });
      if (same != out.end()) {
        if (std::find(same->in.begin(), same->in.end(), text.where) == same->in.end())
          same->in.push_back(text.where);
      } else if (out.size() < kMaxCitationsChecked) {
        out.push_back({std::move(ref), {text.where}});
      } else {
        ++*unchecked;
      }
    }
  }
  return out;
}

json FilesJson(const std::map<std::string, CitedFile>& files) {
  json out = json::array();
  for (const auto& [path, file] : files) {
    if (file.refusal) continue;
    json row = {{"path", path},
                {"sha256", Sha256Ref(file.content)},
                {"lines", workflow::LineCount(file.content)},
                {"changed_during_run", file.changed}};
    if (!file.complete) row["bytes_read"] = file.content.size();
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

json CheckCitations(const CitationCheckInput& input) {
  size_t unchecked = 0;
  const std::vector<Cited> cited = CollectCitations(input.texts, &unchecked);
  std::shared_ptr<const child::FileWall> wall;
  if (!cited.empty()) {
    const child::WallPlaces places = child::ResolveWallPlaces(
        LookupOf(input), PosixFileSystem(), input.cwd, input.agent_dir, input.home);
    Result<std::shared_ptr<const child::FileWall>> opened =
        child::FileWall::Open(input.cwd, places);
    if (opened.ok()) wall = *opened;
  }
  std::map<std::string, CitedFile> files;
  size_t bytes_read = 0;
  json broken = json::array();
  for (const Cited& c : cited) {
    auto at = files.find(c.ref.path);
    if (at == files.end() && bytes_read >= kMaxCitedBytesPerRun) {
      CitedFile over;
      over.refusal = workflow::CitationVerdict{
          "not_checkable", "was not read: the run's citation check had read its 64 MiB"};
      at = files.emplace(c.ref.path, std::move(over)).first;
    } else if (at == files.end()) {
      at = files.emplace(c.ref.path, ReadThroughWall(wall.get(), input, c.ref.path)).first;
      bytes_read += at->second.content.size();
    }
    const CitedFile& file = at->second;
    std::optional<workflow::CitationVerdict> verdict =
        file.refusal ? file.refusal : workflow::JudgeCitation(c.ref, file.content, file.complete);
    if (!verdict) continue;
    std::string detail = verdict->detail;
    if (file.changed) detail += "; the file changed during the run";
    broken.push_back(
        {{"ref", c.ref.Ref()}, {"reason", verdict->reason}, {"detail", detail}, {"in", c.in}});
  }
  json record = {
      {"checked", cited.size()}, {"broken", std::move(broken)}, {"files", FilesJson(files)}};
  if (unchecked > 0) record["unchecked"] = unchecked;
  return record;
}

}  // namespace pi_fusion::run
