#include "child/file_tools.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "child/child_state.h"
#include "child/core/walk_tools.h"
#include "child/file_tool_common.h"
#include "child/grep_tool.h"
#include "child/js_convert.h"
#include "child/read_operations.h"
#include "child/walk_runner.h"

namespace pi_fusion::child::file_tools {
namespace {

// exists(): false for a path that is not there, the refusal for a path behind the wall.
Napi::Function ExistsOperation(Napi::Env env, SharedPtr s, std::string id) {
  return Napi::Function::New(env, [s, id](const Napi::CallbackInfo& info) {
    Result<VettedObject> vetted = s->setup.wall->Vet(Arg(info, 0), Arg(info, 0), WallWant::kAny);
    if (!vetted.ok() && vetted.status().code() != kPathNotFound) {
      Refuse(info.Env(), *s, id, vetted.status());
    }
    return Napi::Boolean::New(info.Env(), vetted.ok());
  });
}

Napi::Object LsOperations(Napi::Env env, SharedPtr s, std::string id) {
  Napi::Object ops = Napi::Object::New(env);
  ops.Set("exists", ExistsOperation(env, s, id));
  // Entries that lead behind the wall (a symlink out) fail here, and Pi's ls leaves them out.
  ops.Set("stat", Napi::Function::New(env, [s](const Napi::CallbackInfo& info) {
            Result<VettedObject> vetted =
                s->setup.wall->Vet(Arg(info, 0), Arg(info, 0), WallWant::kAny);
            if (!vetted.ok()) throw Napi::Error::New(info.Env(), vetted.status().message());
            const bool directory = vetted->directory();
            Napi::Object stat = Napi::Object::New(info.Env());
            stat.Set("isDirectory",
                     Napi::Function::New(info.Env(), [directory](const Napi::CallbackInfo& i) {
                       return Napi::Boolean::New(i.Env(), directory);
                     }));
            stat.Set("isFile",
                     Napi::Function::New(info.Env(), [directory](const Napi::CallbackInfo& i) {
                       return Napi::Boolean::New(i.Env(), !directory);
                     }));
            return stat;
          }));
  ops.Set("readdir", Napi::Function::New(env, [s, id](const Napi::CallbackInfo& info) {
            VettedObject dir = VetOrThrow(info.Env(), *s, id, Arg(info, 0), WallWant::kDirectory);
            Result<std::vector<std::string>> names = s->setup.wall->List(dir);
            if (!names.ok()) throw Napi::Error::New(info.Env(), names.status().message());
            Napi::Array out = Napi::Array::New(info.Env(), names->size());
            for (uint32_t i = 0; i < names->size(); ++i) out.Set(i, (*names)[i]);
            return out;
          }));
  return ops;
}

Napi::Function GlobOperation(Napi::Env env, SharedPtr s, std::string id) {
  return Napi::Function::New(env, [s, id](const Napi::CallbackInfo& info) -> Napi::Value {
    Napi::Env env = info.Env();
    const std::string pattern = Arg(info, 0);
    const std::string search_path = Arg(info, 1);
    int64_t limit = 1000;
    if (info.Length() > 2 && info[2].IsObject()) {
      Napi::Value l = info[2].As<Napi::Object>().Get("limit");
      if (l.IsNumber()) limit = std::max<int64_t>(1, l.As<Napi::Number>().Int64Value());
    }
    auto start =
        std::make_shared<VettedObject>(VetOrThrow(env, *s, id, search_path, WallWant::kDirectory));
    const std::string fd_bin = ToolBinary(*s, {"fd", "fdfind"});
    if (fd_bin.empty()) throw Napi::Error::New(env, "fd is not available");
    Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
    auto job = std::make_unique<WalkJob>();
    job->start = start;
    job->call_id = id;
    job->spec = WalkSpec(*s, fd_bin, FdArgs(pattern, start->real_path()), *start);
    job->finish = [s, start, search_path, limit, deferred](
                      Napi::Env env, const Result<process::ChildOutcome>& outcome) {
      if (std::optional<std::string> failure = WalkFailure(outcome, "fd", false)) {
        deferred.Reject(Napi::Error::New(env, *failure).Value());
        return;
      }
      Napi::Array results = Napi::Array::New(env);
      for (const std::string& line : FdLines(outcome->stdout_bytes)) {
        if (static_cast<int64_t>(results.Length()) >= limit) break;
        if (s->setup.wall->HiddenInWalk(*start, line)) continue;
        results.Set(results.Length(), search_path + "/" + line);
      }
      deferred.Resolve(results);
    };
    RunWalk(env, *s, info.Env().Undefined(), std::move(job));
    return deferred.Promise();
  });
}

Napi::Object FindOperations(Napi::Env env, SharedPtr s, std::string id) {
  Napi::Object ops = Napi::Object::New(env);
  ops.Set("exists", ExistsOperation(env, s, id));
  ops.Set("glob", GlobOperation(env, s, id));
  return ops;
}

// A copy of Pi's definition whose execute builds the definition again per call, with operations
// that know the call (for the journal) and go through the wall.
using OpsFactory = Napi::Object (*)(Napi::Env, SharedPtr, std::string);

Napi::Object CopyObject(Napi::Env env, Napi::Object source) {
  Napi::Object copy = Napi::Object::New(env);
  Napi::Array keys = source.GetPropertyNames();
  for (uint32_t i = 0; i < keys.Length(); ++i) copy.Set(keys.Get(i), source.Get(keys.Get(i)));
  return copy;
}

Napi::Object WalledDefinition(Napi::Env env, SharedPtr s, const char* factory, OpsFactory ops) {
  const std::string root = s->setup.wall->root();
  Napi::Object base =
      PiFunction(*s, factory).Call({Napi::String::New(env, root)}).As<Napi::Object>();
  Napi::Object definition = CopyObject(env, base);
  definition.Set("execute",
                 Napi::Function::New(env, [s, factory, ops, root](const Napi::CallbackInfo& info) {
                   Napi::Env env = info.Env();
                   Napi::Object options = Napi::Object::New(env);
                   options.Set("operations", ops(env, s, Arg(info, 0)));
                   Napi::Object inner = PiFunction(*s, factory)
                                            .Call({Napi::String::New(env, root), options})
                                            .As<Napi::Object>();
                   std::vector<napi_value> args;
                   for (size_t i = 0; i < info.Length(); ++i) args.push_back(info[i]);
                   return Method(inner, "execute").Call(inner, args);
                 }));
  return definition;
}

}  // namespace
}  // namespace pi_fusion::child::file_tools

namespace pi_fusion::child {

void RegisterFileTools(Napi::Env env, Napi::Object pi, Napi::Object pi_tools,
                       FileToolsSetup setup) {
  auto s = std::make_shared<file_tools::Shared>();
  s->setup = std::move(setup);
  // Kept in the environment's state, released with it: the tools may run until the process ends.
  ChildState& state = State(env);
  state.pi_tools = Napi::Persistent(pi_tools);
  s->pi_tools = &state.pi_tools;
  for (const char* name :
       {"createReadToolDefinition", "createLsToolDefinition", "createFindToolDefinition",
        "createGrepToolDefinition", "truncateHead", "truncateLine", "formatSize"}) {
    file_tools::PiFunction(*s, name);  // all present, or the child fails to load
  }
  Napi::Function register_tool = Method(pi, "registerTool");
  for (const std::string& tool : s->setup.tools) {
    Napi::Object definition;
    if (tool == "read") {
      definition = file_tools::WalledDefinition(env, s, "createReadToolDefinition",
                                                file_tools::ReadOperations);
    } else if (tool == "ls") {
      definition =
          file_tools::WalledDefinition(env, s, "createLsToolDefinition", file_tools::LsOperations);
    } else if (tool == "find") {
      definition = file_tools::WalledDefinition(env, s, "createFindToolDefinition",
                                                file_tools::FindOperations);
    } else if (tool == "grep") {
      Napi::Object base = file_tools::PiFunction(*s, "createGrepToolDefinition")
                              .Call({Napi::String::New(env, s->setup.wall->root())})
                              .As<Napi::Object>();
      definition = file_tools::CopyObject(env, base);
      definition.Set("execute", Napi::Function::New(env, [s](const Napi::CallbackInfo& info) {
                       return file_tools::GrepExecute(info, s);
                     }));
    } else {
      continue;
    }
    register_tool.Call(pi, {definition});
  }
}

}  // namespace pi_fusion::child
