#include "run/source_failures.h"

#include <map>

namespace pi_fusion::workflow {

std::vector<SourceFetch> SourceFetchesOf(const std::vector<protocol::ToolCallRecord>& records) {
  std::vector<SourceFetch> fetches;
  for (const protocol::ToolCallRecord& record : records) {
    if (!record.provenance.url) continue;
    fetches.push_back(
        {*record.provenance.url, record.status == "ok",
         record.provenance.error_code.value_or(record.status == "ok" ? "" : "error")});
  }
  return fetches;
}

std::vector<SourceFailureRow> FailedSources(const std::vector<SourceFetch>& fetches) {
  struct Seen {
    bool fetched = false;
    std::string code;
  };
  std::map<std::string, Seen> by_url;
  for (const SourceFetch& fetch : fetches) {
    Seen& seen = by_url[fetch.url];
    seen.fetched = seen.fetched || fetch.fetched;
    if (!fetch.fetched && seen.code.empty()) seen.code = fetch.code;
  }
  std::vector<SourceFailureRow> rows;
  for (const auto& [url, seen] : by_url) {
    if (!seen.fetched) rows.push_back({url, seen.code.empty() ? "error" : seen.code});
  }
  return rows;
}

std::vector<std::string> SourceFailureLines(const nlohmann::json& source_failures) {
  std::vector<std::string> lines;
  if (!source_failures.is_array()) return lines;
  for (const nlohmann::json& row : source_failures) {
    if (!row.is_object() || !row.value("url", nlohmann::json()).is_string() ||
        !row.value("code", nlohmann::json()).is_string()) {
      continue;
    }
    lines.push_back("Warning: the declared source " + row["url"].get<std::string>() +
                    " could not be fetched (" + row["code"].get<std::string>() +
                    "); no candidate read it.");
  }
  return lines;
}

std::string SourceFailureCount(size_t failed) {
  return std::to_string(failed) +
         (failed == 1 ? " declared source failed" : " declared sources failed");
}

}  // namespace pi_fusion::workflow
