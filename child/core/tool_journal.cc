#include "child/core/tool_journal.h"

#include <chrono>
#include <utility>

#include "core/timestamp.h"
#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/frames.h"
#include "protocol/tool_audit_verify.h"

namespace pi_fusion::child {
namespace {

constexpr char kWebFetchToolName[] = "fusion_web_fetch";

// The env clock's steady time in milliseconds: only differences of two readings are used.
int64_t MillisNow(ChildEnv& env) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(env.clock().Now().time_since_epoch())
      .count();
}

}  // namespace

ToolJournal::ToolJournal(std::string journal_path, std::string seal_path, ChildEnv* env)
    : journal_path_(std::move(journal_path)), seal_path_(std::move(seal_path)), env_(env) {}

Status ToolJournal::Open() { return env_->CreateFileExclusive(journal_path_); }

void ToolJournal::Start(const std::string& call_id, const nlohmann::json& arguments) {
  const std::string canonical = CanonicalJson(arguments);
  Pending& p = pending_[call_id];
  p.arguments_sha256 = Sha256Ref(canonical);
  p.arguments_bytes = canonical.size();
  if (arguments.is_object() && canonical.size() <= protocol::kMaxShownArgumentsBytes) {
    p.shown_arguments = arguments;
  }
  if (arguments.is_object() && arguments.contains("url") && arguments["url"].is_string()) {
    p.url_sha256 = Sha256Ref(arguments["url"].get<std::string>());
  }
  p.started_ms = MillisNow(*env_);
  p.started_at = FormatUtcMillis(env_->clock().WallNow());
}

void ToolJournal::Annotate(const std::string& call_id, protocol::ToolCallProvenance provenance) {
  auto it = pending_.find(call_id);
  if (it == pending_.end()) return;
  // A walk's protection and a refusal's code may both be told; neither erases the other.
  std::optional<std::string> walk = it->second.provenance.walk_protection;
  it->second.provenance = std::move(provenance);
  if (!it->second.provenance.walk_protection) it->second.provenance.walk_protection = walk;
}

Status ToolJournal::Finish(const std::string& call_id, const std::string& tool_name,
                           const nlohmann::json& result_content, bool is_error,
                           protocol::ToolArgumentsFrame* shown) {
  Pending pending;
  if (auto it = pending_.find(call_id); it != pending_.end()) {
    pending = std::move(it->second);
    pending_.erase(it);
  } else {
    // An end without a start: Pi always starts first, but the record must still be complete.
    pending.arguments_sha256 = Sha256Ref("null");
    pending.arguments_bytes = 4;
    pending.started_ms = MillisNow(*env_);
    pending.started_at = FormatUtcMillis(env_->clock().WallNow());
  }
  const std::string result = CanonicalJson(result_content);
  protocol::ToolCallRecord record;
  record.ordinal = records_ + 1;
  record.tool_name = TruncateUtf8(tool_name, protocol::kMaxToolNameBytes);
  record.arguments_sha256 = pending.arguments_sha256;
  record.arguments_bytes = pending.arguments_bytes;
  record.result_sha256 = Sha256Ref(result);
  record.result_bytes = result.size();
  record.status = is_error ? "error" : "ok";
  const int64_t elapsed = MillisNow(*env_) - pending.started_ms;
  record.duration_ms = elapsed > 0 ? elapsed : 0;
  record.started_at = std::move(pending.started_at);
  record.provenance = std::move(pending.provenance);
  // A fetch whose URL was not a declared one that ran — refused by the source policy, or never
  // run because Pi's argument check failed — is known by its URL's hash only: its arguments
  // (the raw URL) are not shown.
  const bool fetch = tool_name == kWebFetchToolName;
  if (fetch && !record.provenance.url && !record.provenance.rejected_url_sha256) {
    record.provenance.rejected_url_sha256 = pending.url_sha256;
  }
  const bool hide =
      record.provenance.rejected_url_sha256.has_value() || (fetch && !record.provenance.url);
  const std::string line = protocol::EncodeJournalLine(record);
  if (Status s = env_->AppendDurably(journal_path_, line); !s.ok()) return s;
  journal_ += line;
  records_ = record.ordinal;
  result_bytes_ += record.result_bytes;
  if (shown != nullptr) {
    *shown = protocol::ToolArgumentsFrame{record.ordinal, std::nullopt};
    if (!hide) shown->arguments = std::move(pending.shown_arguments);
  }
  return Status::Ok();
}

Status ToolJournal::Seal(const std::optional<std::string>& failure_code) {
  if (sealed_) return Status::Ok();
  sealed_ = true;
  protocol::ToolCallSeal seal;
  seal.status = failure_code ? "failed" : "complete";
  seal.failure_code = failure_code;
  seal.record_count = records_;
  if (records_ > 0) seal.last_ordinal = records_;
  seal.journal_bytes = journal_.size();
  seal.journal_sha256 = Sha256Ref(journal_);
  seal.result_bytes = result_bytes_;
  return env_->WriteFileDurably(seal_path_, protocol::EncodeSeal(seal));
}

protocol::ToolCallProvenance ProvenanceOf(const nlohmann::json& audit) {
  protocol::ToolCallProvenance p;
  if (!audit.is_object()) return p;
  auto text = [&](const char* key) -> std::optional<std::string> {
    auto it = audit.find(key);
    if (it == audit.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  auto count = [&](const char* key) -> std::optional<int64_t> {
    auto it = audit.find(key);
    if (it == audit.end() || !it->is_number_integer() || it->get<int64_t>() < 0)
      return std::nullopt;
    return it->get<int64_t>();
  };
  p.url = text("url");
  p.final_url = text("final_url");
  if (std::optional<int64_t> status = count("http_status");
      status && *status >= 100 && *status <= 599) {
    p.http_status = status;
  }
  if (std::optional<int64_t> bytes = count("response_bytes")) p.response_bytes = *bytes;
  p.content_sha256 = text("content_sha256");
  p.rejected_url_sha256 = text("rejected_url_sha256");
  p.error_code = text("error_code");
  return p;
}

}  // namespace pi_fusion::child
