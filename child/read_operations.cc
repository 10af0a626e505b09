#include "child/read_operations.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>

#include "child/core/read_limits.h"

namespace pi_fusion::child::file_tools {
namespace {

constexpr size_t kReadChunk = 64 * 1024;

// An open, vetted, readable file; closed with its last owner. It ends at the size it had when
// opened (a file that grows while it is read still ends, as Pi's read does); one of size 0 (a
// /proc-like file) is read to its end, within the call's budget.
struct OpenFile {
  OpenFile(int f, uint64_t size, std::shared_ptr<ReadBudget> b, std::string path)
      : fd(f), left(size > 0 ? size : UINT64_MAX), budget(std::move(b)), shown(std::move(path)) {}
  ~OpenFile() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  // Up to `max` bytes; empty at the end. A refusal when the call's time or bytes are spent.
  Result<std::string> Read(size_t max) {
    if (Status time = budget->BeforeRead(shown); !time.ok()) return time;
    max = static_cast<size_t>(std::min<uint64_t>(max, left));
    std::string out(max, '\0');
    ssize_t n = -1;
    const ReadBudget::Clock::time_point started = ReadBudget::Clock::now();
    while (fd >= 0 && max > 0 && (n = ::read(fd, out.data(), max)) < 0 && errno == EINTR) {
    }
    budget->AddReadTime(ReadBudget::Clock::now() - started);
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    left -= out.size();
    if (Status bytes = budget->Charge(out.size(), shown); !bytes.ok()) return bytes;
    return out;
  }
  int fd;
  uint64_t left;  // bytes before the size seen at open
  std::shared_ptr<ReadBudget> budget;
  const std::string shown;
};

// The file's next bytes, or the refusal thrown (journaled) when the call's budget is spent.
std::string ReadOrThrow(Napi::Env env, const Shared& s, const std::string& call_id, OpenFile& file,
                        size_t max) {
  Result<std::string> bytes = file.Read(max);
  if (!bytes.ok()) {
    file.Close();
    Refuse(env, s, call_id, bytes.status());
  }
  return std::move(bytes).value();
}

std::shared_ptr<OpenFile> OpenVettedFile(Napi::Env env, const Shared& s, const std::string& call_id,
                                         const std::string& path,
                                         std::shared_ptr<ReadBudget> budget) {
  VettedObject vetted = VetOrThrow(env, s, call_id, path, WallWant::kFile);
  Result<int> fd = FileWall::ReopenForReading(vetted);
  if (!fd.ok()) Refuse(env, s, call_id, fd.status());
  struct stat st {};
  const uint64_t size = ::fstat(*fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  // Refusals name the file by its place in the project, as the model sees the project.
  auto file = std::make_shared<OpenFile>(*fd, size, std::move(budget), vetted.relative());
  if (Status fits = CheckSizeAtOpen(size, vetted.relative()); !fits.ok()) {
    Refuse(env, s, call_id, fits);
  }
  return file;
}

Napi::Buffer<char> ToBuffer(Napi::Env env, const std::string& bytes) {
  return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
}

// The image types Pi's read sends as attachments, by their first bytes.
std::optional<std::string> SniffImage(const std::string& head) {
  auto starts = [&](std::string_view magic) { return head.compare(0, magic.size(), magic) == 0; };
  if (starts("\x89PNG\r\n\x1a\n")) return "image/png";
  if (starts("\xff\xd8\xff")) return "image/jpeg";
  if (starts("GIF87a") || starts("GIF89a")) return "image/gif";
  if (starts("RIFF") && head.size() >= 12 && head.compare(8, 4, "WEBP") == 0) return "image/webp";
  if (starts("BM")) return "image/bmp";
  return std::nullopt;
}

// An async iterable of the file's chunks, as Pi's createReadStream operation returns.
Napi::Object ChunkIterable(Napi::Env env, SharedPtr s, std::string id,
                           std::shared_ptr<OpenFile> file) {
  Napi::Object iterable = Napi::Object::New(env);
  auto step = [](Napi::Env env, Napi::Value value, bool done) {
    Napi::Object result = Napi::Object::New(env);
    result.Set("value", value);
    result.Set("done", done);
    Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
    deferred.Resolve(result);
    return deferred.Promise();
  };
  iterable.Set("next",
               Napi::Function::New(env, [s, id, file, step](const Napi::CallbackInfo& info) {
                 const std::string chunk = ReadOrThrow(info.Env(), *s, id, *file, kReadChunk);
                 if (chunk.empty()) {
                   file->Close();
                   return step(info.Env(), info.Env().Undefined(), true);
                 }
                 return step(info.Env(), ToBuffer(info.Env(), chunk), false);
               }));
  iterable.Set("return", Napi::Function::New(env, [file, step](const Napi::CallbackInfo& info) {
                 file->Close();
                 return step(info.Env(), info.Env().Undefined(), true);
               }));
  Napi::Value key = env.Global().Get("Symbol").As<Napi::Object>().Get("asyncIterator");
  iterable.Set(
      key, Napi::Function::New(env, [](const Napi::CallbackInfo& info) { return info.This(); }));
  return iterable;
}

}  // namespace

Napi::Object ReadOperations(Napi::Env env, SharedPtr s, std::string id) {
  auto budget = std::make_shared<ReadBudget>();
  Napi::Object ops = Napi::Object::New(env);
  ops.Set("access", Napi::Function::New(env, [s, id](const Napi::CallbackInfo& info) {
            VetOrThrow(info.Env(), *s, id, Arg(info, 0), WallWant::kFile);
            return info.Env().Undefined();
          }));
  ops.Set(
      "detectImageMimeType",
      Napi::Function::New(env, [s, id, budget](const Napi::CallbackInfo& info) {
        std::shared_ptr<OpenFile> file = OpenVettedFile(info.Env(), *s, id, Arg(info, 0), budget);
        std::optional<std::string> mime = SniffImage(ReadOrThrow(info.Env(), *s, id, *file, 16));
        return mime ? Napi::String::New(info.Env(), *mime).As<Napi::Value>()
                    : info.Env().Undefined();
      }));
  ops.Set("readFile", Napi::Function::New(env, [s, id, budget](const Napi::CallbackInfo& info) {
            std::shared_ptr<OpenFile> file =
                OpenVettedFile(info.Env(), *s, id, Arg(info, 0), budget);
            std::string all;
            for (std::string chunk;
                 !(chunk = ReadOrThrow(info.Env(), *s, id, *file, kReadChunk)).empty();) {
              all += chunk;
            }
            return ToBuffer(info.Env(), all);
          }));
  ops.Set("createReadStream",
          Napi::Function::New(env, [s, id, budget](const Napi::CallbackInfo& info) {
            return ChunkIterable(info.Env(), s, id,
                                 OpenVettedFile(info.Env(), *s, id, Arg(info, 0), budget));
          }));
  return ops;
}

}  // namespace pi_fusion::child::file_tools
