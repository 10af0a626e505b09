#include "test_streams.h"

#include <cstdlib>
#include <stdexcept>

#include "pi_fusion/sha256.h"
#include "protocol/text_digest.h"

namespace pi_fusion::testing {

using nlohmann::json;

Status MemoryChildEnv::WriteStderrLine(std::string_view line) {
  if (fail_frames) return Status::Error("artifact_error", "stderr closed");
  stderr_bytes += line;
  return Status::Ok();
}

Status MemoryChildEnv::WriteFileDurably(const std::string& path, std::string_view bytes) {
  if (fail_files) return Status::Error("artifact_error", "No space left on device");
  files[path] = std::string(bytes);
  return Status::Ok();
}

Status MemoryChildEnv::CreateFileExclusive(const std::string& path) {
  if (fail_files) return Status::Error("artifact_error", "No space left on device");
  if (files.count(path) != 0) return Status::Error("artifact_error", "exists: " + path);
  files[path] = "";
  return Status::Ok();
}

Status MemoryChildEnv::AppendDurably(const std::string& path, std::string_view bytes) {
  if (fail_appends) return Status::Error("artifact_error", "No space left on device");
  if (files.count(path) == 0) return Status::Error("artifact_error", "missing: " + path);
  files[path] += bytes;
  return Status::Ok();
}

json Usage(int input, int output, int cache_read, int cache_write, int cache_write_1h,
           int reasoning) {
  json usage = {
      {"input", input},
      {"output", output},
      {"cacheRead", cache_read},
      {"cacheWrite", cache_write},
      {"totalTokens", input + output + cache_read + cache_write},
      {"cost",
       {{"input", input * 0.5e-6},
        {"output", output * 1.5e-6},
        {"cacheRead", cache_read * 0.05e-6},
        {"cacheWrite", cache_write * 0.625e-6},
        {"total", input * 0.5e-6 + output * 1.5e-6 + cache_read * 0.05e-6 + cache_write * 0.625e-6},
        {"totalFromProvider", false}}}};
  if (cache_write_1h >= 0) usage["cacheWrite1h"] = cache_write_1h;
  if (reasoning >= 0) usage["reasoning"] = reasoning;
  return usage;
}

json ZeroUsage() {
  return {
      {"input", 0},
      {"output", 0},
      {"cacheRead", 0},
      {"cacheWrite", 0},
      {"totalTokens", 0},
      {"cost", {{"input", 0}, {"output", 0}, {"cacheRead", 0}, {"cacheWrite", 0}, {"total", 0}}}};
}

ScriptedChild::ScriptedChild(pi_fusion::Role role, protocol::Route r) : route(std::move(r)) {
  config.role = role;
  if (role == pi_fusion::Role::kCandidate) config.oversize_path = "/run/original.md";
  governor = std::make_unique<child::ChildGovernor>(config, &env);
}

void EnableTools(ScriptedChild& child) {
  child.config.tools = {"read", "grep", "find", "ls"};
  child.config.tool_journal_path = kJournalPath;
  child.config.tool_seal_path = kSealPath;
  child.governor = std::make_unique<child::ChildGovernor>(child.config, &child.env);
  if (Status s = child.governor->OpenJournal(); !s.ok()) throw std::runtime_error(s.ToString());
}

child::ChildGovernor::ToolDecision ScriptedChild::Tool(const std::string& name, json input,
                                                       const std::string& result_text,
                                                       const std::string& cwd) {
  const std::string id = "call_" + std::to_string(next_call_id++);
  child::ChildGovernor::ToolDecision decision =
      governor->OnToolExecutionStart({route, id, name, input});
  if (!decision.block) decision = governor->OnToolCall({id, name, input, cwd});
  const std::string text = decision.block ? decision.reason : result_text;
  env.now_ms += 3;
  governor->OnToolExecutionEnd(id, name, json::array({{{"type", "text"}, {"text", text}}}),
                               decision.block);
  return decision;
}

child::ChildGovernor::ProviderDecision ScriptedChild::Request(json payload) {
  child::ChildGovernor::ProviderRequest request;
  request.route = route;
  request.payload = std::move(payload);
  request.model = model;
  return governor->OnProviderRequest(std::move(request));
}

child::ChildGovernor::MessageDecision ScriptedChild::Message(const std::string& stop_reason,
                                                             std::vector<std::string> texts,
                                                             json usage, int64_t tool_calls) {
  child::ChildGovernor::AssistantMessage m;
  m.route = route;
  m.stop_reason = stop_reason;
  m.text_blocks = texts;
  m.usage = std::move(usage);
  m.tool_calls = tool_calls;
  // Pi prints the last assistant message unless it is error/aborted.
  stdout_bytes = (stop_reason == "error" || stop_reason == "aborted")
                     ? std::string()
                     : protocol::PrintedText(texts);
  return governor->OnAssistantMessage(m);
}

child::ChildGovernor::MessageDecision ScriptedChild::Turn(const std::string& stop_reason,
                                                          std::vector<std::string> texts,
                                                          json usage, int64_t tool_calls) {
  Request();
  return Message(stop_reason, std::move(texts), std::move(usage), tool_calls);
}

bool ScriptedChild::Settle(bool aborted) {
  return governor->OnSettled(aborted, /*idle=*/true, /*has_pending_messages=*/false);
}

protocol::VerifyRequest ScriptedChild::Verify(int exit_code) const {
  protocol::VerifyRequest request;
  request.stdout_bytes = stdout_bytes;
  request.stderr_bytes = env.stderr_bytes;
  request.exit.exit_code = exit_code;
  request.provider = route.provider;
  request.model = route.model;
  auto file = env.files.find(config.oversize_path);
  if (file != env.files.end()) request.oversized_original = file->second;
  return request;
}

json StreamBuilder::Record(int64_t ordinal, const std::string& stop_reason,
                           const std::vector<std::string>& texts, json usage,
                           const protocol::Route& route) {
  protocol::MetadataRecord record;
  record.ordinal = ordinal;
  record.route = route;
  record.stop_reason = stop_reason;
  record.text = protocol::DigestTextBlocks(texts);
  record.usage = std::move(usage);
  protocol::CacheObservation cache;
  cache.provider_request_ordinal = ordinal;
  cache.api = route.api;
  cache.requested_retention = "short";
  cache.source = "default";
  cache.effective_retention = "unmanaged";
  record.cache = cache;
  return protocol::ToJson(record);
}

StreamBuilder& StreamBuilder::Add(json record) {
  const std::string line = protocol::EncodeFrameLine(record);
  metadata_lines.push_back(line);
  records.push_back(std::move(record));
  stderr_bytes += line;
  return *this;
}

StreamBuilder& StreamBuilder::Raw(std::string line) {
  stderr_bytes += line;
  return *this;
}

json StreamBuilder::Settlement() const {
  protocol::SettlementFrame s;
  s.status = "ok";
  s.metadata_count = static_cast<int64_t>(records.size());
  std::string joined;
  for (const std::string& line : metadata_lines) joined += line;
  s.metadata_sha256 = Sha256Ref(joined);
  if (!records.empty()) {
    s.final_ordinal = s.metadata_count;
    s.final_record_sha256 = Sha256Ref(metadata_lines.back());
  }
  for (size_t i = 0; i + 1 < records.size(); ++i) {
    if (records[i]["stop_reason"] == "error") {
      s.retry_marker_ordinals.push_back(static_cast<int64_t>(i + 1));
    }
  }
  s.provider_requests = s.metadata_count;
  return protocol::ToJson(s);
}

StreamBuilder& StreamBuilder::Seal(const std::function<void(json&)>& edit) {
  json settlement = Settlement();
  if (edit) edit(settlement);
  stderr_bytes += protocol::EncodeFrameLine(settlement);
  return *this;
}

}  // namespace pi_fusion::testing
