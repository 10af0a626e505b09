#include "addon/tool_handlers.h"

#include "addon/js_values.h"
#include "schema/normalize.h"

namespace pi_fusion::addon {
namespace {

Napi::Object RunFusionTool(Napi::Env env, const schema::ToolSpec& spec, Napi::Value params) {
  Result<schema::NormalizedRequest> request = schema::NormalizeFusionCall(spec.name, ToJson(env, params));
  if (!request.ok()) return ErrorResult(env, request.status());
  // The run engine is not part of this build: say so rather than pretend a run started.
  return ErrorResult(env, Status::Error("orchestration_failed",
                                        spec.name +
                                            ": the arguments are valid, but this build of "
                                            "pi-fusion cannot start Fusion runs yet (no workflow "
                                            "engine). Nothing was started."));
}

// No task store exists yet, so every id is unknown and the task list is empty: true answers,
// not placeholders.
Napi::Object RunTaskTool(Napi::Env env, const schema::ToolSpec& spec, Napi::Value params) {
  Result<nlohmann::json> args = schema::NormalizeToolArguments(spec.name, ToJson(env, params));
  if (!args.ok()) return ErrorResult(env, args.status());
  if (spec.name == "bg_status" && !args->contains("taskId")) {
    return TextResult(env, "No background tasks in this session.", {{"tasks", nlohmann::json::array()}});
  }
  return ErrorResult(env, Status::Error("invalid_arguments",
                                        "Unknown background task ID: " +
                                            args->at("taskId").get<std::string>()));
}

Result<nlohmann::json> Normalize(const schema::ToolSpec& spec, const nlohmann::json& args) {
  if (spec.workflow.empty()) return schema::NormalizeToolArguments(spec.name, args);
  Result<schema::NormalizedRequest> request = schema::NormalizeFusionCall(spec.name, args);
  if (!request.ok()) return request.status();
  return std::move(request).value().request;
}

}  // namespace

Napi::Function MakeArgumentPreparer(Napi::Env env, const schema::ToolSpec& spec) {
  const schema::ToolSpec* tool = &spec;
  return Napi::Function::New(
      env,
      [tool](const Napi::CallbackInfo& info) -> Napi::Value {
        Napi::Env env = info.Env();
        Result<nlohmann::json> args = Normalize(*tool, ToJson(env, info[0]));
        if (!args.ok()) {
          Napi::Error error = Napi::Error::New(env, args.status().message() + "\n(error code: " +
                                                        args.status().code() + ")");
          error.Set("code", args.status().code());
          throw error;
        }
        return FromJson(env, *args);
      },
      spec.name + "_prepare");
}

Napi::Function MakeToolExecutor(Napi::Env env, const schema::ToolSpec& spec) {
  const schema::ToolSpec* tool = &spec;
  return Napi::Function::New(
      env,
      [tool](const Napi::CallbackInfo& info) -> Napi::Value {
        Napi::Env env = info.Env();
        Napi::Value params = info.Length() > 1 ? info[1] : env.Undefined();
        auto deferred = Napi::Promise::Deferred::New(env);
        try {
          deferred.Resolve(tool->workflow.empty() ? RunTaskTool(env, *tool, params)
                                                  : RunFusionTool(env, *tool, params));
        } catch (const nlohmann::json::exception& e) {
          deferred.Resolve(ErrorResult(env, Status::Error("invalid_arguments",
                                                          std::string("arguments are not JSON: ") + e.what())));
        }
        return deferred.Promise();
      },
      spec.name);
}

}  // namespace pi_fusion::addon
