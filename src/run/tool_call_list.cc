#include "run/tool_call_list.h"

#include <algorithm>
#include <map>

#include "core/error_codes.h"
#include "core/number_text.h"
#include "core/terminal_text.h"
#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/frames.h"
#include "run/tool_refusals.h"
#include "store/artifact_ref.h"

namespace pi_fusion::run {
namespace {

using nlohmann::json;

// Codes with which a wall or the source policy refused a call before it ran; any other code is a
// call that ran and failed (a fetch's dns_failure, http_error, …).
constexpr std::string_view kRefusalCodes[] = {
    "path_outside_project", "path_in_run_store",   "path_protected",      "path_not_regular",
    "path_not_found",       "source_not_declared", "fetch_limit_exceeded"};

// One line of text, safe to draw: controls neutralized (newlines too), cut to `max_bytes`.
std::string Shown(std::string_view text, size_t max_bytes) {
  const std::string safe = NeutralizeControls(text, TextShape::kSingleLine);
  if (safe.size() <= max_bytes) return safe;
  return TruncateUtf8(safe, max_bytes) + "…";
}

std::string StringArg(const json& arguments, const char* key) {
  auto it = arguments.find(key);
  return it != arguments.end() && it->is_string() ? it->get<std::string>() : "";
}

// The part of a call's arguments a person needs to see what it looked at.
std::string TargetOf(const std::string& tool, const json& arguments) {
  if (tool == "read" || tool == "ls") {
    const std::string path = StringArg(arguments, "path");
    return path.empty() ? "." : path;
  }
  if (tool == "grep" || tool == "find") {
    const std::string pattern = StringArg(arguments, "pattern");
    const std::string path = StringArg(arguments, "path");
    return "\"" + pattern + "\"" + (path.empty() ? "" : " in " + path);
  }
  if (tool == "fusion_web_fetch") return StringArg(arguments, "url");
  return CanonicalJson(arguments);
}

// The journal ordinal -> the arguments of its frame in the event log.
std::map<int64_t, json> ArgumentsByOrdinal(std::string_view events) {
  std::map<int64_t, json> by_ordinal;
  while (!events.empty()) {
    const size_t end = events.find('\n');
    const std::string_view line = events.substr(0, end);
    events.remove_prefix(end == std::string_view::npos ? events.size() : end + 1);
    const json value = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!value.is_object() || value.value("schema_version", "") != protocol::kToolArgumentsSchema)
      continue;
    Result<protocol::ToolArgumentsFrame> frame = protocol::ParseToolArguments(value);
    if (frame.ok() && frame->arguments) by_ordinal.emplace(frame->ordinal, *frame->arguments);
  }
  return by_ordinal;
}

std::string Grouped(uint64_t n) { return GroupedDigits(n); }

}  // namespace

std::vector<ShownToolCall> ShownToolCalls(std::string_view journal, std::string_view events) {
  const std::map<int64_t, json> arguments = ArgumentsByOrdinal(events);
  std::vector<ShownToolCall> calls;
  for (const protocol::ToolCallRecord& record : ParseJournalRecords(journal)) {
    ShownToolCall call;
    call.tool = Shown(record.tool_name, protocol::kMaxToolNameBytes);
    call.result_bytes = record.result_bytes;
    // A URL research's source policy refused is recorded by its hash alone, without a code.
    const std::string code = record.provenance.rejected_url_sha256
                                 ? std::string(kSourceNotDeclared)
                                 : record.provenance.error_code.value_or("");
    call.reason = Shown(code, 64);
    const bool refused = std::find(std::begin(kRefusalCodes), std::end(kRefusalCodes), code) !=
                         std::end(kRefusalCodes);
    call.outcome = record.status == "ok" ? "ok" : refused ? "refused" : "failed";
    auto it = arguments.find(record.ordinal);
    // Shown only when they are the arguments whose hash the sealed journal holds.
    if (it != arguments.end() && Sha256Ref(CanonicalJson(it->second)) == record.arguments_sha256) {
      call.target = Shown(TargetOf(record.tool_name, it->second), kShownTargetMaxBytes);
      call.arguments_shown = true;
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

std::string ShownCallText(const ShownToolCall& call) {
  std::string text =
      call.tool + " " + (call.arguments_shown ? call.target : "(arguments not shown)");
  if (call.outcome == "ok") return text + " · " + Grouped(call.result_bytes) + " bytes";
  text += " · " + call.outcome;
  return call.reason.empty() ? text : text + ": " + call.reason;
}

json ReadAttemptToolCalls(FileSystem& fs, const std::string& run_dir,
                          const store::Manifest& manifest, const store::AttemptKey& attempt) {
  auto journal_ref =
      manifest.artifacts.find(store::AttemptFileName(attempt, store::AttemptFile::kToolCalls));
  if (journal_ref == manifest.artifacts.end()) return nullptr;
  Result<std::string> journal = store::VerifyArtifact(fs, run_dir, journal_ref->second);
  if (!journal.ok()) return nullptr;
  std::string events;
  if (auto events_ref =
          manifest.artifacts.find(store::AttemptFileName(attempt, store::AttemptFile::kEvents));
      events_ref != manifest.artifacts.end()) {
    Result<std::string> bytes = store::VerifyArtifact(fs, run_dir, events_ref->second);
    if (bytes.ok()) events = std::move(bytes).value();  // else: no arguments are shown
  }
  const std::vector<ShownToolCall> calls = ShownToolCalls(*journal, events);
  size_t refused = 0, failed = 0;
  json rows = json::array();
  for (const ShownToolCall& call : calls) {
    refused += call.outcome == "refused";
    failed += call.outcome == "failed";
    if (rows.size() < kShownCallsMax) {
      rows.push_back(
          {{"state", call.outcome == "ok" ? "done" : "failed"}, {"text", ShownCallText(call)}});
    }
  }
  std::string summary = calls.empty()       ? "No tool calls"
                        : calls.size() == 1 ? "1 tool call"
                                            : std::to_string(calls.size()) + " tool calls";
  if (refused > 0) summary += ", " + std::to_string(refused) + " refused";
  if (failed > 0) summary += ", " + std::to_string(failed) + " failed";
  json view = {{"summary", summary}, {"calls", rows}};
  if (calls.size() > rows.size()) {
    view["more"] = "… and " + std::to_string(calls.size() - rows.size()) + " more";
  }
  return view;
}

}  // namespace pi_fusion::run
