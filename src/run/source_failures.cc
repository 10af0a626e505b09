#include "run/source_failures.h"

#include <algorithm>
#include <map>

namespace pi_fusion::run {

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

std::vector<workflow::SourceFailureRow> FailedSources(const std::vector<SourceFetch>& fetches) {
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
  std::vector<workflow::SourceFailureRow> rows;
  for (const auto& [url, seen] : by_url) {
    if (!seen.fetched) rows.push_back({url, seen.code.empty() ? "error" : seen.code});
  }
  return rows;
}

bool NoSourceFetched(const std::vector<SourceFetch>& fetches) {
  return std::none_of(fetches.begin(), fetches.end(),
                      [](const SourceFetch& fetch) { return fetch.fetched; });
}

namespace {

bool Flagged(const nlohmann::json& details) {
  return details.is_object() && details.value("no_source_fetched", nlohmann::json()) == true;
}

std::vector<std::string> FailureLines(const nlohmann::json& details) {
  std::vector<std::string> lines;
  const nlohmann::json failures =
      details.is_object() ? details.value("source_failures", nlohmann::json()) : nullptr;
  if (!failures.is_array()) return lines;
  for (const nlohmann::json& row : failures) {
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

}  // namespace

std::vector<std::string> SourceWarningLines(const nlohmann::json& details) {
  std::vector<std::string> lines = FailureLines(details);
  if (Flagged(details)) lines.emplace_back(kNoSourceFetchedWarning);
  return lines;
}

std::string SourceWarningStatus(const nlohmann::json& details) {
  if (Flagged(details)) return "no declared source fetched";
  const size_t failed = FailureLines(details).size();
  if (failed == 0) return "";
  return std::to_string(failed) +
         (failed == 1 ? " declared source failed" : " declared sources failed");
}

}  // namespace pi_fusion::run
