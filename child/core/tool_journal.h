// ToolJournal: the child side of the sealed tool-call audit log (src/protocol/tool_audit.h,
// docs/protocol.md "Tool-call audit log").
//
// Open() creates the empty journal exclusively. Every tool execution Pi starts is remembered at
// tool_execution_start (only the size and hash of its arguments are kept, and when it started) and
// appended as one record, durably (write + fsync), when it ends — refused, invalid and unknown-tool
// calls too, with status "error". Ordinals count records in the order calls finished (Pi runs a
// batch's calls concurrently). Seal() writes the seal once, binding the exact journal bytes.
//
// A failed append or seal is returned to the caller, which must fail the child: the parent then
// cannot verify the log. Thread-safety: none; JS thread only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "child/core/child_env.h"
#include "pi_fusion/status.h"
#include "protocol/frames.h"
#include "protocol/tool_audit.h"

namespace pi_fusion::child {

class ToolJournal {
 public:
  // `env` is not owned and must outlive the journal. Both paths are absolute.
  ToolJournal(std::string journal_path, std::string seal_path, ChildEnv* env);

  // Creates the empty journal; fails if anything already exists at its path.
  Status Open();

  // tool_execution_start of `call_id` with the arguments the model sent.
  void Start(const std::string& call_id, const nlohmann::json& arguments);
  // Attaches provenance (research's fetch tool) to a started call; recorded when it finishes.
  void Annotate(const std::string& call_id, protocol::ToolCallProvenance provenance);
  // tool_execution_end: appends the record. `result_content` is the content the model receives.
  // On success `*shown` (when given) is the arguments frame of the record: the arguments the
  // model sent when they are a small object, never a rejected raw URL (docs/protocol.md): a
  // fusion_web_fetch record shows them only when its URL was a declared one that ran, and one
  // whose call never ran (Pi's argument check failed) gets its URL's hash as
  // rejected_url_sha256.
  Status Finish(const std::string& call_id, const std::string& tool_name,
                const nlohmann::json& result_content, bool is_error,
                protocol::ToolArgumentsFrame* shown = nullptr);

  // Writes the seal: "complete" without a failure code, else "failed" with it. Once only; later
  // calls do nothing and return ok.
  Status Seal(const std::optional<std::string>& failure_code);

  int64_t record_count() const { return records_; }
  // Calls started and not yet finished: a fetch in flight is one.
  int64_t running() const { return static_cast<int64_t>(pending_.size()); }
  uint64_t result_bytes() const { return result_bytes_; }
  bool sealed() const { return sealed_; }

 private:
  struct Pending {
    std::string arguments_sha256;
    uint64_t arguments_bytes = 0;
    std::optional<nlohmann::json> shown_arguments;  // a small object, kept for its frame
    std::optional<std::string> url_sha256;          // of a string `url` argument
    int64_t started_ms = 0;                         // steady clock: the record's duration_ms
    std::string started_at;                         // wall clock: the record's started_at
    protocol::ToolCallProvenance provenance;
  };

  const std::string journal_path_;
  const std::string seal_path_;
  ChildEnv* const env_;
  std::map<std::string, Pending> pending_;  // started, not yet finished, by tool call id
  std::string journal_;                     // every byte appended so far
  int64_t records_ = 0;
  uint64_t result_bytes_ = 0;
  bool sealed_ = false;
};

// The journal's provenance fields from a fetch outcome's audit object (`url`, `final_url`,
// `http_status`, `response_bytes`, `content_sha256`, `rejected_url_sha256`, `error_code`); other
// keys and mistyped values are left out.
protocol::ToolCallProvenance ProvenanceOf(const nlohmann::json& audit);

}  // namespace pi_fusion::child
