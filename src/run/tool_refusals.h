// Refused file-tool calls of the candidates, made visible (issue "walls around the candidates":
// every refusal is visible). The child journals a read, grep, find or ls it refused as a record
// with status "error" and an error_code naming the wall (kPathRefusalCodes); the parent counts
// them per candidate from the verified audit logs, puts them in the result details
// (`tool_refusals`, result_details.h) and says so in bg_result's text:
//
//   "Candidate 2 had 3 tool calls refused (path_outside_project 2, path_protected 1)."
//
// Pure functions, except ReadRunRefusals, which reads through the FileSystem seam. Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "protocol/tool_audit.h"
#include "store/manifest.h"
#include "workflow/result_details.h"

namespace pi_fusion::run {

// The error codes of a file-tool call the child's walls refused (docs/protocol.md).
inline constexpr std::array<std::string_view, 5> kPathRefusalCodes = {
    "path_outside_project", "path_in_run_store", "path_protected", "path_not_regular",
    "path_not_found"};

// error_code -> calls, over the records refused by a wall (status "error", a kPathRefusalCodes
// code). Other errors (a tool that failed, a fetch error, a tool outside the allowlist) are not
// refusals by the walls and are not counted.
// The weakest walk protection (protocol::ToolCallRecord::walk_protection) any grep or find of
// `records` walked under: "none" < "landlock" < "namespace" < "namespace+landlock"; nullopt when
// no record names one (no walk ran). An unknown name counts as "none".
std::optional<std::string> WeakestWalkProtection(
    const std::vector<protocol::ToolCallRecord>& records);
// The weaker of two such names (either may be nullopt: the other is then the answer).
std::optional<std::string> WeakerWalkProtection(const std::optional<std::string>& a,
                                                const std::optional<std::string>& b);

std::map<std::string, int64_t> CountPathRefusals(
    const std::vector<protocol::ToolCallRecord>& records);

// The records of a journal's bytes, in order; a line that is not a record is skipped (the bytes
// were verified against their ref; this reader only turns them into values).
std::vector<protocol::ToolCallRecord> ParseJournalRecords(std::string_view journal);

// Adds `by_code` to the row of `slot` in `rows`, which stays ordered by slot and holds no row
// without a refusal.
void AddRefusals(int slot, const std::map<std::string, int64_t>& by_code,
                 std::vector<workflow::ToolRefusalRow>* rows);

// One sentence per candidate of a `tool_refusals` JSON array (result details or the failure
// view), joined by spaces; "" when it is empty or not such an array.
std::string RefusalsText(const nlohmann::json& tool_refusals);

// The `tool_refusals` of a run that did not commit (failed or cancelled), from the candidate
// journals its manifest binds: each read through VerifyArtifact, so only the bytes the parent
// verified and bound are counted; a journal that no longer matches its ref, or a line that is not
// a record, is skipped. The same JSON shape as the result details' field.
nlohmann::json ReadRunRefusals(FileSystem& fs, const std::string& run_dir,
                               const store::Manifest& manifest);

}  // namespace pi_fusion::run
