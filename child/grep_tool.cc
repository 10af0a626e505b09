#include "child/grep_tool.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "child/core/grep_filter.h"
#include "child/core/grep_output.h"
#include "child/core/path_confinement.h"
#include "child/core/walk_tools.h"
#include "child/js_convert.h"
#include "child/walk_runner.h"
#include "napi_util/text_result.h"

namespace pi_fusion::child::file_tools {
namespace {

struct GrepParams {
  std::string id;
  std::string path;
  GrepRequest request;
  int64_t limit = kGrepDefaultLimit;
};

GrepParams ReadGrepParams(const Napi::CallbackInfo& info) {
  GrepParams p;
  p.id = Arg(info, 0);
  Napi::Object params = info.Length() > 1 && info[1].IsObject() ? info[1].As<Napi::Object>()
                                                                : Napi::Object::New(info.Env());
  p.request.pattern = StringField(params, "pattern").value_or("");
  std::string path = StringField(params, "path").value_or("");
  p.path = path.empty() ? std::string(".") : std::move(path);
  p.request.glob = StringField(params, "glob");
  if (p.request.glob && p.request.glob->empty()) p.request.glob.reset();
  p.request.ignore_case = params.Get("ignoreCase").ToBoolean().Value();
  p.request.literal = params.Get("literal").ToBoolean().Value();
  Napi::Value context = params.Get("context");
  if (context.IsNumber() && context.As<Napi::Number>().DoubleValue() > 0) {
    p.request.context = static_cast<int64_t>(
        std::floor(std::min(context.As<Napi::Number>().DoubleValue(), 9007199254740991.0)));
  }
  Napi::Value limit = params.Get("limit");
  if (limit.IsNumber()) {
    p.limit = std::max<int64_t>(
        1, static_cast<int64_t>(
               std::floor(std::min(limit.As<Napi::Number>().DoubleValue(), 9007199254740991.0))));
  }
  return p;
}

// Pi's truncation helpers as GrepOutput takes them. Pi's grep details carry the object
// truncateHead returned, so the last one is kept in `*head`.
PiTruncation PiGrepTruncation(const Shared& s, Napi::Env env, Napi::Object* head) {
  PiTruncation pi;
  Napi::Function truncate_line = PiFunction(s, "truncateLine");
  pi.line = [env, truncate_line](const std::string& text) {
    Napi::Object cut = truncate_line.Call({Napi::String::New(env, text)}).As<Napi::Object>();
    const bool truncated = cut.Get("wasTruncated").ToBoolean().Value();
    return CutLine{cut.Get("text").ToString().Utf8Value(), truncated};
  };
  pi.head = [&s, env, head](const std::string& raw) {
    Napi::Object max_lines = Napi::Object::New(env);
    max_lines.Set("maxLines", Napi::Number::New(env, 9007199254740991.0));
    *head = PiFunction(s, "truncateHead")
                .Call({Napi::String::New(env, raw), max_lines})
                .As<Napi::Object>();
    return CutHead{head->Get("content").ToString().Utf8Value(),
                   head->Get("truncated").ToBoolean().Value()};
  };
  pi.format_size = [&s, env](int64_t bytes) {
    return PiFunction(s, "formatSize")
        .Call({Napi::Number::New(env, static_cast<double>(bytes))})
        .ToString()
        .Utf8Value();
  };
  pi.max_bytes = s.pi_tools->Value().Get("DEFAULT_MAX_BYTES").ToNumber().Int64Value();
  return pi;
}

// The tool result of Pi's grep: the text, and details only when there is something to say.
Napi::Object GrepToolResult(Napi::Env env, const GrepOutputResult& r, Napi::Object head) {
  if (!r.matched) return napi_util::TextResult(env, r.text, env.Undefined());
  head.Set("totalLines", Napi::Number::New(env, static_cast<double>(r.total_lines)));
  head.Set("totalBytes", Napi::Number::New(env, static_cast<double>(r.total_bytes)));
  Napi::Object details = Napi::Object::New(env);
  if (r.match_limit_reached) {
    details.Set("matchLimitReached",
                Napi::Number::New(env, static_cast<double>(*r.match_limit_reached)));
  }
  if (r.head_truncated) details.Set("truncation", head);
  if (r.lines_truncated) details.Set("linesTruncated", true);
  return napi_util::TextResult(
      env, r.text,
      details.GetPropertyNames().Length() > 0 ? details.As<Napi::Value>() : env.Undefined());
}

// rg's output through the wall's per-line filter into Pi's grep format.
Napi::Object FormatGrep(Napi::Env env, const Shared& s, const GrepParams& p,
                        const std::string& single, const VettedObject& start,
                        const process::ChildOutcome& outcome) {
  Napi::Object head;
  GrepOutput output(PiGrepTruncation(s, env, &head),
                    GrepOutputOptions{p.limit, p.request.context, single});
  GrepFilter filter(*s.setup.wall, start);
  for (const RipgrepLine& line : ParseRipgrepJson(outcome.stdout_bytes)) {
    if (filter.Hidden(line.path, line.text)) continue;
    if (!output.Add(line)) break;
  }
  const bool capped = outcome.stop_reason == process::StopReason::kStdoutCap;
  return GrepToolResult(env, output.Finish(capped), head);
}

std::string BaseName(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

}  // namespace

Napi::Value GrepExecute(const Napi::CallbackInfo& info, SharedPtr s) {
  Napi::Env env = info.Env();
  Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
  try {
    auto params = std::make_shared<GrepParams>(ReadGrepParams(info));
    std::optional<std::string> resolved =
        ResolveLikePi(params->path, s->setup.wall->root(), s->setup.home);
    if (!resolved) {
      Refuse(env, *s, params->id,
             Status::Error(kPathOutsideProject,
                           "Refused: \"" + params->path + "\" is not a plain file path."));
    }
    auto start =
        std::make_shared<VettedObject>(VetOrThrow(env, *s, params->id, *resolved, WallWant::kAny));
    const std::string rg = ToolBinary(*s, {"rg"});
    if (rg.empty()) throw Napi::Error::New(env, "ripgrep (rg) is not available");
    auto job = std::make_unique<WalkJob>();
    job->start = start;
    job->call_id = params->id;
    job->spec = WalkSpec(
        *s, rg, RipgrepArgs(params->request, start->directory() ? "." : start->ProcPath()), *start);
    const std::string single = start->directory() ? "" : BaseName(*resolved);
    job->finish = [s, start, params, single, deferred](
                      Napi::Env env, const Result<process::ChildOutcome>& outcome) {
      if (std::optional<std::string> failure = WalkFailure(outcome, "ripgrep", true)) {
        deferred.Reject(Napi::Error::New(env, *failure).Value());
        return;
      }
      try {
        deferred.Resolve(FormatGrep(env, *s, *params, single, *start, *outcome));
      } catch (const Napi::Error& e) {
        deferred.Reject(e.Value());
      }
    };
    RunWalk(env, *s, info.Length() > 2 ? info[2] : env.Undefined(), std::move(job));
  } catch (const Napi::Error& e) {
    deferred.Reject(e.Value());
  }
  return deferred.Promise();
}

}  // namespace pi_fusion::child::file_tools
