// Pi event handlers of the child library: copy the event into the governor's plain structs,
// then carry out its decision. They decide nothing themselves.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "child/child_state.h"
#include "child/js_convert.h"
#include "core/error_codes.h"
#include "core/pooled_task.h"

namespace pi_fusion::child {
namespace {

using Handler = std::function<Napi::Value(const Napi::CallbackInfo&, ChildGovernor&)>;

// The live pooled task, when the process is pooled and the registration has one.
PooledTask* Task(Napi::Env env) {
  ChildState& state = State(env);
  return state.task ? &*state.task : nullptr;
}

Napi::Object Ctx(const Napi::CallbackInfo& info) {
  return info.Length() > 1 && info[1].IsObject() ? info[1].As<Napi::Object>()
                                                 : Napi::Object::New(info.Env());
}

Napi::Object Event(const Napi::CallbackInfo& info) {
  return info.Length() > 0 && info[0].IsObject() ? info[0].As<Napi::Object>()
                                                 : Napi::Object::New(info.Env());
}

void CallCtx(Napi::Object ctx, const char* name) {
  Napi::Function fn = Method(ctx, name);
  if (!fn.IsEmpty()) fn.Call(ctx, {});
}

bool CtxFlag(Napi::Object ctx, const char* name) {
  Napi::Function fn = Method(ctx, name);
  return !fn.IsEmpty() && fn.Call(ctx, {}).ToBoolean().Value();
}

Napi::Value OnProviderRequest(const Napi::CallbackInfo& info, ChildGovernor& governor) {
  Napi::Env env = info.Env();
  Napi::Object ctx = Ctx(info);
  Napi::Value model = ctx.Get("model");
  ChildGovernor::ProviderRequest request;
  request.route = RouteOfModel(model);
  request.payload = StringifyObject(env, Event(info).Get("payload"), "the provider payload");
  if (model.IsObject()) {
    Napi::Object m = model.As<Napi::Object>();
    Napi::Value compat = m.Get("compat");
    if (compat.IsObject()) {
      Napi::Value flag = compat.As<Napi::Object>().Get("supportsLongCacheRetention");
      request.long_retention_allowed = !(flag.IsBoolean() && !flag.As<Napi::Boolean>().Value());
      request.model.compat = JsonValueOf(env, compat);
    }
    // What the cost admission prices a request with (read only when the run has a cost cap).
    if (governor.config().cost_allowance_usd) {
      Napi::Value cost = m.Get("cost");
      if (cost.IsObject()) request.model.cost = JsonValueOf(env, cost);
      Napi::Value max_tokens = m.Get("maxTokens");
      if (max_tokens.IsNumber()) {
        const double n = max_tokens.As<Napi::Number>().DoubleValue();
        if (n >= 1 && n <= 1e12 && n == static_cast<double>(static_cast<int64_t>(n))) {
          request.model.max_tokens = static_cast<int64_t>(n);
        }
      }
    }
  }
  ChildGovernor::ProviderDecision decision = governor.OnProviderRequest(std::move(request));
  if (decision.fail_process) FailExit(env);
  if (decision.abort) {
    CallCtx(ctx, "abort");  // before transport; throwing would not stop the request
    return env.Undefined();
  }
  return FromJson(env, decision.payload);
}

ChildGovernor::AssistantMessage ReadAssistant(Napi::Env env, Napi::Object message) {
  ChildGovernor::AssistantMessage m;
  m.route.provider = StringField(message, "provider").value_or("");
  m.route.model = StringField(message, "model").value_or("");
  m.route.api = StringField(message, "api").value_or("");
  m.response_model = StringField(message, "responseModel");
  m.stop_reason = StringField(message, "stopReason").value_or("");
  m.error_message = StringField(message, "errorMessage");
  Napi::Value content = message.Get("content");
  if (content.IsArray()) {
    Napi::Array blocks = content.As<Napi::Array>();
    for (uint32_t i = 0; i < blocks.Length(); ++i) {
      Napi::Value block = blocks.Get(i);
      if (!block.IsObject()) continue;
      Napi::Object b = block.As<Napi::Object>();
      const std::string type = StringField(b, "type").value_or("");
      if (type == "text") m.text_blocks.push_back(StringField(b, "text").value_or(""));
      if (type == "toolCall") ++m.tool_calls;
    }
  }
  Result<nlohmann::json> usage = StringifyObject(env, message.Get("usage"), "the usage");
  m.usage = usage.ok() ? *usage : nlohmann::json();  // the parent rejects a missing usage
  return m;
}

Napi::Value OnMessageEnd(const Napi::CallbackInfo& info, ChildGovernor& governor) {
  Napi::Env env = info.Env();
  Napi::Value message = Event(info).Get("message");
  if (!message.IsObject()) return env.Undefined();
  Napi::Object msg = message.As<Napi::Object>();
  const bool assistant = StringField(msg, "role") == "assistant";
  if (PooledTask* task = Task(env)) {
    // Pi's text mode judges the last message of the session (print-mode.js).
    task->final_stop_reason =
        assistant ? std::optional<std::string>(StringField(msg, "stopReason").value_or(""))
                  : std::nullopt;
  }
  if (!assistant) return env.Undefined();
  ChildGovernor::MessageDecision decision = governor.OnAssistantMessage(ReadAssistant(env, msg));
  if (decision.fail_process) FailExit(env);
  if (decision.follow_up) {
    Napi::Object pi = State(env).pi.Value();
    Method(pi, "setActiveTools").Call(pi, {Napi::Array::New(env)});
    Napi::Object options = Napi::Object::New(env);
    options.Set("deliverAs", "followUp");
    Method(pi, "sendUserMessage").Call(pi, {Napi::String::New(env, *decision.follow_up), options});
  }
  return env.Undefined();
}

Napi::Value BlockResult(Napi::Env env, const ChildGovernor::ToolDecision& decision) {
  if (!decision.block) return env.Undefined();
  Napi::Object result = Napi::Object::New(env);
  result.Set("block", true);
  result.Set("reason", decision.reason);
  return result;
}

// The project directory the file tools resolve against: ctx.cwd, as Pi's tools use it.
std::string CwdOf(Napi::Object ctx) {
  std::optional<std::string> cwd = StringField(ctx, "cwd");
  return cwd && !cwd->empty() ? *cwd : ".";
}

void Carry(const Napi::CallbackInfo& info, const ChildGovernor::ToolDecision& decision) {
  if (decision.fail_process) FailExit(info.Env());
  if (decision.abort) CallCtx(Ctx(info), "abort");
}

Napi::Value OnToolExecutionStart(const Napi::CallbackInfo& info, ChildGovernor& governor) {
  Napi::Env env = info.Env();
  Napi::Object event = Event(info);
  ChildGovernor::ToolStart start;
  start.route = RouteOfModel(Ctx(info).Get("model"));
  start.call_id = StringField(event, "toolCallId").value_or("");
  start.tool_name = StringField(event, "toolName").value_or("");
  start.arguments = JsonValueOf(env, event.Get("args"));
  Carry(info, governor.OnToolExecutionStart(start));
  return env.Undefined();
}

Napi::Value OnToolCall(const Napi::CallbackInfo& info, ChildGovernor& governor) {
  Napi::Env env = info.Env();
  Napi::Object event = Event(info);
  ChildGovernor::ToolCall call;
  call.call_id = StringField(event, "toolCallId").value_or("");
  call.tool_name = StringField(event, "toolName").value_or("");
  call.input = JsonValueOf(env, event.Get("input"));
  call.cwd = CwdOf(Ctx(info));
  ChildGovernor::ToolDecision decision = governor.OnToolCall(call);
  Carry(info, decision);
  return BlockResult(env, decision);
}

// The content the model receives is the result's `content` (text and image blocks).
Napi::Value OnToolExecutionEnd(const Napi::CallbackInfo& info, ChildGovernor& governor) {
  Napi::Env env = info.Env();
  Napi::Object event = Event(info);
  Napi::Value result = event.Get("result");
  Napi::Value content =
      result.IsObject() ? result.As<Napi::Object>().Get("content") : env.Undefined();
  const bool failed = governor.OnToolExecutionEnd(
      StringField(event, "toolCallId").value_or(""), StringField(event, "toolName").value_or(""),
      JsonValueOf(env, content), event.Get("isError").ToBoolean().Value());
  if (failed) FailExit(env);
  return env.Undefined();
}

Napi::Value OnCacheWarmingDecision(const Napi::CallbackInfo& info);

Napi::Value OnAgentSettled(const Napi::CallbackInfo& info, ChildGovernor& governor) {
  Napi::Object ctx = Ctx(info);
  // agent_settled.aborted arrived in Pi 1.1.0; before it, the last answer's stop reason tells.
  const Napi::Value flag = Event(info).Get("aborted");
  const bool aborted =
      flag.IsBoolean() ? flag.As<Napi::Boolean>().Value() : governor.last_answer_aborted();
  const bool was_settled = governor.settled();
  const bool failed =
      governor.OnSettled(aborted, CtxFlag(ctx, "isIdle"), CtxFlag(ctx, "hasPendingMessages"));
  if (failed) FailExit(info.Env());
  // A pooled task ends where a cold child's run would: at its settlement (after the frame), or
  // at an aborted settle. A settle that leaves the compression turn pending is not the end.
  PooledTask* task = Task(info.Env());
  if (task && !task->ended && (aborted || (!was_settled && governor.settled()))) {
    task->ended = true;
    (void)State(info.Env())
        .env->WriteStderrLine(pooled_task::EndLine(
            task->task_id, TaskExitCode(task->failed, task->final_stop_reason)));
  }
  return info.Env().Undefined();
}

// A pooled task begins once Pi has bound the new session's runtime (pi.setActiveTools throws
// while extensions load): its tools are set, then the start line says the task may be sent.
// A failure throws (Pi reports the extension error) and writes no start line, and the task stays
// refused: the parent kills the process and runs the attempt cold.
Napi::Value OnSessionStart(const Napi::CallbackInfo& info, ChildGovernor&) {
  Napi::Env env = info.Env();
  PooledTask* task = Task(env);
  if (!task || task->started) return env.Undefined();
  Napi::Object pi = State(env).pi.Value();
  Napi::Array wanted = Napi::Array::New(env, task->tools.size());
  for (size_t i = 0; i < task->tools.size(); ++i) {
    wanted.Set(static_cast<uint32_t>(i), task->tools[i]);
  }
  Method(pi, "setActiveTools").Call(pi, {wanted});
  Napi::Value active = Method(pi, "getActiveTools").Call(pi, {});
  std::vector<std::string> got;
  if (active.IsArray()) {
    Napi::Array names = active.As<Napi::Array>();
    for (uint32_t i = 0; i < names.Length(); ++i) {
      Napi::Value name = names.Get(i);
      got.push_back(name.IsString() ? name.As<Napi::String>().Utf8Value() : "");
    }
  }
  std::vector<std::string> want = task->tools;
  std::ranges::sort(got);
  std::ranges::sort(want);
  if (!active.IsArray() || got != want) {
    Napi::Error error = Napi::Error::New(
        env, "pi-fusion child: the task's tools could not be made the active tools");
    error.Set("code", std::string(kConfigInvalid));
    throw error;
  }
  task->started = true;
  if (Status written = State(env).env->WriteStderrLine(pooled_task::StartLine(task->task_id));
      !written.ok()) {
    task->failed = true;  // the parent sees no start line and kills the process
  }
  return env.Undefined();
}

// What a pooled registration without a started task answers: no request reaches the
// transport (ctx.abort(), as the governor refuses), no tool runs, nothing warms the cache.
Napi::Value Refuse(const std::string& event, const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (event == "before_provider_request") {
    CallCtx(Ctx(info), "abort");
    return env.Undefined();
  }
  if (event == "tool_call") {
    Napi::Object result = Napi::Object::New(env);
    result.Set("block", true);
    result.Set("reason", "Refused: this Fusion child has no task.");
    return result;
  }
  if (event == "cache_warming_decision") return OnCacheWarmingDecision(info);
  return env.Undefined();
}

// A Fusion child answers once and exits: a warming request would spend tokens that no metadata
// frame accounts for, so warming is always declined.
Napi::Value OnCacheWarmingDecision(const Napi::CallbackInfo& info) {
  Napi::Object result = Napi::Object::New(info.Env());
  result.Set("action", "stop");
  return result;
}

// Signs of life for the parent's stall watchdog (progress_beat.h): the event is not read.
Napi::Value OnModelProgress(const Napi::CallbackInfo& info, ChildGovernor& governor) {
  State(info.Env())
      .progress->Beat(ProgressBeat::kModelStream, governor.settled(), governor.tools_running());
  return info.Env().Undefined();
}

Napi::Value OnToolProgress(const Napi::CallbackInfo& info, ChildGovernor& governor) {
  State(info.Env())
      .progress->Beat(ProgressBeat::kTool, governor.settled(), governor.tools_running());
  return info.Env().Undefined();
}

// Wraps `handler` so it runs only for its own registration, and so a native failure becomes a
// loud JS error (Pi prints "Extension error", which the parent rejects) plus a failing exit.
// In pooled mode, until its task has started a registration only refuses (Refuse).
Napi::Function Wrap(Napi::Env env, uint64_t generation, std::string event, Handler handler) {
  return Napi::Function::New(env, [generation, event, handler](const Napi::CallbackInfo& info) {
    Napi::Env e = info.Env();
    ChildState& state = State(e);
    if (state.generation != generation) return e.Undefined();
    const bool refusing = state.task_reader && !(state.task && state.task->started);
    if (refusing && event != "session_start") return Refuse(event, info);
    if (!state.governor) return e.Undefined();
    try {
      return handler(info, *state.governor);
    } catch (const Napi::Error&) {
      FailExit(e);
      throw;
    } catch (const std::exception& ex) {
      FailExit(e);
      throw Napi::Error::New(e, std::string("pi-fusion child: ") + ex.what());
    }
  });
}

}  // namespace

void FailExit(Napi::Env env) {
  if (PooledTask* task = Task(env)) {
    task->failed = true;
    return;
  }
  FailProcessExit(env);
}

void RegisterHandlers(Napi::Env env, Napi::Object pi, uint64_t generation) {
  const std::pair<const char*, Handler> handlers[] = {
      {"before_provider_request", OnProviderRequest},
      {"message_end", OnMessageEnd},
      {"tool_execution_start", OnToolExecutionStart},
      {"tool_call", OnToolCall},
      {"tool_execution_end", OnToolExecutionEnd},
      {"agent_settled", OnAgentSettled},
      {"cache_warming_decision",
       [](const Napi::CallbackInfo& info, ChildGovernor&) { return OnCacheWarmingDecision(info); }},
      {"session_start", OnSessionStart},
      // Progress (provider_stream_event exists since Pi 0.99.0; older Pis never fire it, and
      // message_update still carries every normalized delta there).
      {"message_update", OnModelProgress},
      {"provider_stream_event", OnModelProgress},
      {"after_provider_response", OnModelProgress},
      {"tool_execution_start", OnToolProgress},
      {"tool_execution_update", OnToolProgress},
      // After OnToolExecutionEnd (handlers run in registration order): the count has dropped.
      {"tool_execution_end", OnToolProgress},
  };
  Napi::Function on = Method(pi, "on");
  const bool pooled = State(env).task_reader.has_value();
  for (const auto& [event, handler] : handlers) {
    if (!pooled && std::string_view(event) == "session_start") continue;  // cold: no tasks
    on.Call(pi, {Napi::String::New(env, event), Wrap(env, generation, event, handler)});
  }
}

}  // namespace pi_fusion::child
