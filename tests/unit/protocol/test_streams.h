// Test helpers for the child protocol: an in-memory ChildEnv, a scripted child that runs the real
// ChildGovernor, and a builder for hand-made (possibly tampered) frame streams.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "child/core/child_env.h"
#include "child/core/governor.h"
#include "protocol/frames.h"
#include "protocol/verify.h"

namespace pi_fusion::testing {

// Frames go to `stderr`, files to `files`; `fail_writes` injects ENOSPC-like failures.
class MemoryChildEnv : public child::ChildEnv {
 public:
  Status WriteStderrLine(std::string_view line) override;
  Status WriteFileDurably(const std::string& path, std::string_view bytes) override;
  Status CreateFileExclusive(const std::string& path) override;
  Status AppendDurably(const std::string& path, std::string_view bytes) override;
  // The real realpath(3): confinement tests build real trees with symlinks in a temp directory.
  std::string HomeDir() override { return home; }
  void KeepSignalPrivate(int fd) override { kept_private.push_back(fd); }
  void SignalAndClose(int fd) override { signals.push_back(fd); }
  const Clock& clock() override { return clock_; }

  std::string stderr_bytes;
  std::map<std::string, std::string> files;
  bool fail_frames = false;
  bool fail_files = false;
  bool fail_appends = false;
  std::string home = "/home/user";
  int64_t now_ms = 1000;
  std::vector<int> kept_private;  // KeepSignalPrivate descriptors, in call order
  std::vector<int> signals;       // SignalAndClose descriptors, in call order

 private:
  // Reads now_ms (milliseconds since an arbitrary start): tests move time by changing it.
  class MillisClock : public Clock {
   public:
    explicit MillisClock(const int64_t* ms) : ms_(ms) {}
    TimePoint Now() const override { return TimePoint(std::chrono::milliseconds(*ms_)); }
    WallTimePoint WallNow() const override {
      return WallTimePoint(std::chrono::milliseconds(*ms_));
    }
    void SleepFor(std::chrono::milliseconds) const override {}

   private:
    const int64_t* ms_;
  };
  MillisClock clock_{&now_ms};
};

// Pi usage with the given token counts; cost derived; cacheWrite1h/reasoning only when >= 0.
nlohmann::json Usage(int input, int output, int cache_read = 0, int cache_write = 0,
                     int cache_write_1h = -1, int reasoning = -1);
nlohmann::json ZeroUsage();

inline const protocol::Route kRoute{"scripted", "scripted-a", "openai-completions"};
inline const protocol::Route kAnthropicRoute{"scripted-ant", "scripted-a", "anthropic-messages"};

// Drives a real ChildGovernor the way Pi would and records what the child process would output.
class ScriptedChild {
 public:
  explicit ScriptedChild(pi_fusion::Role role = pi_fusion::Role::kEvaluator,
                         protocol::Route route = kRoute);

  // One provider request with a simple payload; returns the governor's decision.
  child::ChildGovernor::ProviderDecision Request(nlohmann::json payload = {{"model", "m"}});
  // One assistant message_end (after a request); the last one becomes stdout when it is a stop.
  child::ChildGovernor::MessageDecision Message(const std::string& stop_reason,
                                                std::vector<std::string> texts,
                                                nlohmann::json usage, int64_t tool_calls = 0);
  // request + message.
  child::ChildGovernor::MessageDecision Turn(const std::string& stop_reason,
                                             std::vector<std::string> texts, nlohmann::json usage,
                                             int64_t tool_calls = 0);
  bool Settle(bool aborted = false);
  // One tool execution as Pi runs it: tool_execution_start, tool_call (unless the start already
  // refused it), then tool_execution_end with `result_text` (or the refusal reason) as content.
  // Returns the tool_call decision (or the start's refusal).
  child::ChildGovernor::ToolDecision Tool(const std::string& name, nlohmann::json input,
                                          const std::string& result_text = "result",
                                          const std::string& cwd = "/");

  // What the parent would capture: stderr frames, stdout as Pi's text mode prints it.
  protocol::VerifyRequest Verify(int exit_code = 0) const;

  MemoryChildEnv env;
  child::ChildConfig config;
  std::unique_ptr<child::ChildGovernor> governor;
  protocol::Route route;
  child::RequestModel model;  // ctx.model's prices, maxTokens and compat for every request
  std::string stdout_bytes;
  int64_t next_call_id = 1;
};

// Makes `child` a tool-enabled candidate (read, grep, find, ls) whose journal and seal live in
// `env.files` under /run. (ScriptedChild is not movable: its governor points at its env.)
void EnableTools(ScriptedChild& child);
inline const std::string kJournalPath = "/run/candidate-1.attempt-1.tool-calls.jsonl";
inline const std::string kSealPath = "/run/candidate-1.attempt-1.seal.json";

// Builds frame streams by hand: records from JSON, then a settlement that binds them correctly,
// so a test can change exactly one thing.
class StreamBuilder {
 public:
  // A valid metadata record JSON for `ordinal` (text blocks hashed, usage given).
  static nlohmann::json Record(int64_t ordinal, const std::string& stop_reason,
                               const std::vector<std::string>& texts, nlohmann::json usage,
                               const protocol::Route& route = kRoute);

  StreamBuilder& Add(nlohmann::json record);
  StreamBuilder& Raw(std::string line);  // any stderr line, frame or not
  // A settlement binding every record added so far; `edit` may change it before encoding.
  nlohmann::json Settlement() const;
  StreamBuilder& Seal(const std::function<void(nlohmann::json&)>& edit = nullptr);

  std::string stderr_bytes;
  std::vector<std::string> metadata_lines;
  std::vector<nlohmann::json> records;
};

}  // namespace pi_fusion::testing
