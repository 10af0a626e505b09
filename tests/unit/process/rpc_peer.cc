// A scripted stand-in for a pooled `pi --mode rpc` child with the child library's task mode, for
// pooled_child_test.cc: just enough of Pi's RPC and of the task channel (core/pooled_task.h).
//
//   rpc_peer --mode rpc [session-mode]
//
// Session modes (how it answers new_session): "" (well), "no-start" (no start line),
// "wrong-start" (the start line of another task), "cancel-session" (new_session cancelled),
// "reject-model" (set_model fails), "queue-prompt" (the prompt is queued, not started).
// The prompt's first word says how the task goes:
//   ok <text>       a streamed assistant message (text blocks "<text>" and "more"), a
//                   frame-like line and a diagnostic on stderr, then the end line (exit 0)
//   exit1 <text>    the same with exit code 1 in the end line
//   aborted         a message that stopped with "aborted", end line with exit code 1
//   die             a line on stderr, then SIGKILL to itself
//   hang            a line on stderr, then nothing
//   stdout-only     Pi's streaming records on stdout every 50 ms, nothing on stderr
//   flood           2 MiB on stderr
//   big <n>         an answer of n bytes
//   wrong-end       the end line of another task
//   second-start    a second start line
//   garbage         a stdout line that is not JSON
//   split-end       the end line written in two pieces, 100 ms apart
//   end-exit        the end line, then exit 0 at once
// Every task's stderr also carries "vars <name>=<value>…" from its task record.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/pooled_task.h"

namespace {

using nlohmann::json;
namespace pooled_task = pi_fusion::pooled_task;

void Out(const json& record) {
  std::string line = record.dump() + "\n";
  fwrite(line.data(), 1, line.size(), stdout);
  fflush(stdout);
}

void Err(const std::string& text) {
  fwrite(text.data(), 1, text.size(), stderr);
  fflush(stderr);
}

void Respond(const json& command, bool success, json data = nullptr) {
  json response = {{"id", command["id"]},
                   {"type", "response"},
                   {"command", command["type"]},
                   {"success", success}};
  if (!data.is_null()) response["data"] = data;
  if (!success) response["error"] = "refused by the peer";
  Out(response);
}

std::string ReadRecord() {
  std::string line;
  char c = 0;
  while (read(pooled_task::kTaskChildFd, &c, 1) == 1) {
    line += c;
    if (c == '\n') break;
  }
  return line;
}

json Message(const json& content, const std::string& stop) {
  return {{"role", "assistant"}, {"content", content}, {"stopReason", stop}};
}

void Stream(const json& message) {
  Out({{"type", "message_start"}, {"message", {{"role", "user"}, {"content", "q"}}}});
  Out({{"type", "message_end"}, {"message", {{"role", "user"}, {"content", "q"}}}});
  Out({{"type", "message_update"}, {"message", message}});
  Out({{"type", "message_update"}, {"message", message}});
  Out({{"type", "message_end"}, {"message", message}});
}

void RunTask(const std::string& prompt, const pooled_task::Task& task) {
  const std::string word = prompt.substr(0, prompt.find(' '));
  const std::string rest =
      prompt.find(' ') == std::string::npos ? "" : prompt.substr(prompt.find(' ') + 1);
  std::string vars = "vars";
  for (const auto& [name, value] : task.vars) vars += " " + name + "=" + value;
  Err(vars + "\n");
  const std::string& id = task.task_id;
  if (word == "ok" || word == "exit1" || word == "end-exit" || word == "split-end") {
    Stream(Message(json::array({{{"type", "text"}, {"text", rest}},
                                {{"type", "thinking"}, {"thinking", "hm"}},
                                {{"type", "text"}, {"text", "more"}}}),
                   "stop"));
    Err("@pi-fusion-frame {\"kind\":\"beat\"}\n");
    Err("Warning: a diagnostic of Pi\n");
    if (word == "split-end") {
      const std::string end = pooled_task::EndLine(id, 0);
      Err(end.substr(0, 10));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      Err(end.substr(10));
      return;
    }
    Err(pooled_task::EndLine(id, word == "exit1" ? 1 : 0));
    if (word == "end-exit") exit(0);
    return;
  }
  if (word == "aborted") {
    Stream(Message(json::array({{{"type", "text"}, {"text", "partial"}}}), "aborted"));
    Err(pooled_task::EndLine(id, 1));
    return;
  }
  if (word == "big") {
    Stream(Message(json::array({{{"type", "text"}, {"text", std::string(std::stoul(rest), 'x')}}}),
                   "stop"));
    Err(pooled_task::EndLine(id, 0));
    return;
  }
  if (word == "die") {
    Err("about to die\n");
    kill(getpid(), SIGKILL);
  }
  if (word == "hang") {
    Err("hanging\n");
    for (;;) pause();
  }
  if (word == "stdout-only") {
    for (;;) {
      Out({{"type", "message_update"}, {"message", Message(json::array(), "stop")}});
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  if (word == "flood") {
    const std::string block(64 * 1024, 'e');
    for (int i = 0; i < 32; ++i) Err(block);
    Err(pooled_task::EndLine(id, 0));
    return;
  }
  if (word == "wrong-end") {
    Err(pooled_task::EndLine(std::string(32, 'f'), 0));
    for (;;) pause();
  }
  if (word == "second-start") {
    Err(pooled_task::StartLine(id));
    for (;;) pause();
  }
  if (word == "garbage") {
    Err("about to write garbage\n");
    fputs("this is not json\n", stdout);
    fflush(stdout);
    for (;;) pause();
  }
  Err("unknown prompt\n");
  Err(pooled_task::EndLine(id, 2));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string session_mode = argc > 3 ? argv[3] : "";
  Err("peer starting (idle noise)\n");
  pooled_task::Task task;
  std::string line;
  while (std::getline(std::cin, line)) {
    const json command = json::parse(line, nullptr, false);
    if (!command.is_object()) continue;
    const std::string type = command.value("type", "");
    if (type == "new_session") {
      pi_fusion::Result<pooled_task::Task> record = pooled_task::ParseRecord(ReadRecord());
      if (!record.ok()) {
        Err("bad record: " + record.status().message() + "\n");
        return 9;
      }
      task = *record;
      if (session_mode == "wrong-start") {
        Err(pooled_task::StartLine(std::string(32, 'a')));
      } else if (session_mode != "no-start") {
        Err("registering\n" + pooled_task::StartLine(task.task_id));
      }
      Respond(command, true, {{"cancelled", session_mode == "cancel-session"}});
    } else if (type == "set_model") {
      Respond(command, session_mode != "reject-model",
              {{"provider", command["provider"]}, {"id", command["modelId"]}});
    } else if (type == "set_thinking_level") {
      Respond(command, true);
    } else if (type == "prompt") {
      Respond(command, true,
              {{"disposition", session_mode == "queue-prompt" ? "queued" : "started"}});
      RunTask(command.value("message", ""), task);
      Out({{"type", "agent_end"}, {"messages", json::array()}});
    } else {
      Respond(command, false);
    }
  }
  return 0;
}
