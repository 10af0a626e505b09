#include "child/file_tool_common.h"

#include <utility>

#include "child/core/read_limits.h"
#include "child/js_convert.h"

namespace pi_fusion::child::file_tools {
namespace {

bool IsWallCode(const std::string& code) {
  return code == kPathOutsideProject || code == kPathInRunStore || code == kPathProtected ||
         code == kPathNotRegular || code == kPathNotFound || code == kFileTooLarge ||
         code == kReadTimedOut;
}

}  // namespace

Napi::Function PiFunction(const Shared& s, const char* name) {
  Napi::Function fn = Method(s.pi_tools->Value(), name);
  if (fn.IsEmpty()) {
    throw Napi::Error::New(s.pi_tools->Env(), std::string("pi-fusion child: this Pi has no ") +
                                                  name + "; the confined file tools need it");
  }
  return fn;
}

[[noreturn]] void Refuse(Napi::Env env, const Shared& s, const std::string& call_id,
                         const Status& status) {
  if (IsWallCode(status.code()) && s.setup.on_refusal) s.setup.on_refusal(call_id, status.code());
  throw Napi::Error::New(env, status.message());
}

std::string Arg(const Napi::CallbackInfo& info, size_t i) {
  return info.Length() > i && info[i].IsString() ? info[i].As<Napi::String>().Utf8Value() : "";
}

VettedObject VetOrThrow(Napi::Env env, const Shared& s, const std::string& call_id,
                        const std::string& path, WallWant want) {
  Result<VettedObject> vetted = s.setup.wall->Vet(path, path, want);
  if (!vetted.ok()) Refuse(env, s, call_id, vetted.status());
  return std::move(vetted).value();
}

}  // namespace pi_fusion::child::file_tools
