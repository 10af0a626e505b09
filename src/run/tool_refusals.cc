#include "run/tool_refusals.h"

#include <algorithm>

#include "store/artifact_ref.h"
#include "store/attempt_files.h"

namespace pi_fusion::run {
namespace {

using nlohmann::json;

bool IsPathRefusal(const protocol::ToolCallRecord& record) {
  const std::optional<std::string>& code = record.provenance.error_code;
  return record.status == "error" && code &&
         std::find(kPathRefusalCodes.begin(), kPathRefusalCodes.end(), *code) !=
             kPathRefusalCodes.end();
}

// The candidate slot of a journal artifact "candidate-<slot>.attempt-<n>.tool-calls.jsonl", or 0.
int JournalSlot(const std::string& name) {
  const std::optional<store::AttemptFileId> file = store::ParseAttemptFileName(name);
  if (!file || file->file != store::AttemptFile::kToolCalls || !file->key.slot) return 0;
  return *file->key.slot;
}

}  // namespace

std::vector<protocol::ToolCallRecord> ParseJournalRecords(std::string_view journal) {
  std::vector<protocol::ToolCallRecord> records;
  while (!journal.empty()) {
    const size_t end = journal.find('\n');
    const std::string_view line = journal.substr(0, end);
    journal.remove_prefix(end == std::string_view::npos ? journal.size() : end + 1);
    const json value = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) continue;
    Result<protocol::ToolCallRecord> record = protocol::ParseToolCallRecord(value);
    if (record.ok()) records.push_back(std::move(record).value());
  }
  return records;
}

namespace {

int WalkStrength(const std::string& name) {
  if (name == "namespace+landlock") return 3;
  if (name == "namespace") return 2;
  if (name == "landlock") return 1;
  return 0;
}

}  // namespace

std::optional<std::string> WeakerWalkProtection(const std::optional<std::string>& a,
                                                const std::optional<std::string>& b) {
  if (!a) return b;
  if (!b) return a;
  const std::string& weaker = WalkStrength(*a) <= WalkStrength(*b) ? *a : *b;
  return WalkStrength(weaker) == 0 ? std::string("none") : weaker;
}

std::optional<std::string> WeakestWalkProtection(
    const std::vector<protocol::ToolCallRecord>& records) {
  std::optional<std::string> weakest;
  for (const protocol::ToolCallRecord& record : records) {
    if (record.provenance.walk_protection) {
      weakest = WeakerWalkProtection(weakest, *record.provenance.walk_protection);
    }
  }
  return weakest;
}

std::map<std::string, int64_t> CountPathRefusals(
    const std::vector<protocol::ToolCallRecord>& records) {
  std::map<std::string, int64_t> by_code;
  for (const protocol::ToolCallRecord& record : records) {
    if (IsPathRefusal(record)) ++by_code[*record.provenance.error_code];
  }
  return by_code;
}

void AddRefusals(int slot, const std::map<std::string, int64_t>& by_code,
                 std::vector<workflow::ToolRefusalRow>* rows) {
  if (by_code.empty()) return;
  auto it = std::find_if(rows->begin(), rows->end(),
                         [slot](const workflow::ToolRefusalRow& row) { return row.slot >= slot; });
  if (it == rows->end() || it->slot != slot)
    it = rows->insert(it, workflow::ToolRefusalRow{slot, {}});
  for (const auto& [code, n] : by_code) it->by_code[code] += n;
}

std::string RefusalsText(const json& tool_refusals) {
  if (!tool_refusals.is_array()) return "";
  std::string out;
  for (const json& row : tool_refusals) {
    if (!row.is_object() || !row.value("slot", json()).is_number_integer() ||
        !row.value("count", json()).is_number_integer() ||
        !row.value("by_code", json()).is_object()) {
      continue;
    }
    const int64_t count = row["count"].get<int64_t>();
    std::string codes;
    for (const auto& [code, n] : row["by_code"].items()) {
      if (!n.is_number_integer()) continue;
      codes += (codes.empty() ? "" : ", ") + code + " " + std::to_string(n.get<int64_t>());
    }
    out += (out.empty() ? "" : " ") + std::string("Candidate ") +
           std::to_string(row["slot"].get<int64_t>()) + " had " + std::to_string(count) +
           (count == 1 ? " tool call" : " tool calls") + " refused (" + codes + ").";
  }
  return out;
}

json ReadRunRefusals(FileSystem& fs, const std::string& run_dir, const store::Manifest& manifest) {
  std::vector<workflow::ToolRefusalRow> rows;
  for (const auto& [name, ref] : manifest.artifacts) {
    const int slot = JournalSlot(name);
    if (slot == 0) continue;
    Result<std::string> bytes = store::VerifyArtifact(fs, run_dir, ref);
    if (!bytes.ok()) continue;
    AddRefusals(slot, CountPathRefusals(ParseJournalRecords(*bytes)), &rows);
  }
  return workflow::ToolRefusalsJson(rows);
}

}  // namespace pi_fusion::run
