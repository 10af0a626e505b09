#include "store/verify.h"

#include "core/durable_file.h"
#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"
#include "store/committed_result.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "store/run_id.h"
#include "store/run_paths.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

Status Refuse(const std::string& message) { return Status::Error(kArtifactError, message); }

Status CheckIdentity(const Manifest& m, const std::string& run_id) {
  if (m.run_id != run_id) return Refuse("manifest.json run_id " + m.run_id + " != " + run_id);
  if (!IsValidRunId(run_id) || m.workflow != RunIdWorkflow(run_id)) {
    return Refuse("manifest.json workflow " + m.workflow + " does not match " + run_id);
  }
  if (m.state != RunState::kCompleted) {
    return Refuse("manifest.json state is " + std::string(RunStateName(m.state)) +
                  ", not completed");
  }
  return Status::Ok();
}

// Every bound artifact, not only the two the answer needs: a tampered evidence file means the
// directory can no longer be trusted as a whole.
Result<std::map<std::string, std::string>> VerifyAllRefs(FileSystem& fs, const std::string& run_dir,
                                                         const Manifest& m) {
  std::map<std::string, std::string> wanted;
  for (const auto& [name, ref] : m.artifacts) {
    auto bytes = VerifyArtifact(fs, run_dir, ref);
    if (!bytes.ok()) return bytes.status();
    if (name == kMergedFile || name == kResultFile) wanted[name] = std::move(bytes).value();
  }
  for (const char* name : {kMergedFile, kResultFile}) {
    if (wanted.count(name) == 0) return Refuse(std::string("manifest.json has no ref for ") + name);
  }
  return wanted;
}

Result<json> CheckResultJson(const std::string& bytes, const Manifest& m) {
  auto parsed = ParseJson(bytes, kResultFile);
  if (!parsed.ok()) return parsed.status();
  auto canonical = CanonicalBytes(parsed.value(), kResultFile);
  if (!canonical.ok() || canonical.value() != bytes) {
    return Refuse("result.json is not canonical JSON");
  }
  Status s =
      CheckCommittedResult(parsed.value(), m.run_id, m.workflow, m.artifacts.at(kMergedFile));
  if (!s.ok()) return s;
  return std::move(parsed.value()["details"]);
}

}  // namespace

Result<Manifest> ReadManifest(FileSystem& fs, const std::string& run_dir) {
  auto bytes = fs.ReadFile(ArtifactPath(run_dir, kManifestFile), kManifestMaxBytes);
  if (!bytes.ok()) return Refuse("manifest.json cannot be read: " + bytes.status().message());
  auto parsed = ParseJson(bytes.value(), kManifestFile);
  if (!parsed.ok()) return parsed.status();
  return ManifestFromJson(parsed.value());
}

Result<VerifiedResult> VerifyCompletedRun(FileSystem& fs, const std::string& run_dir,
                                          const std::string& run_id) {
  auto manifest = ReadManifest(fs, run_dir);
  if (!manifest.ok()) return manifest.status();
  Status s = CheckIdentity(manifest.value(), run_id);
  if (!s.ok()) return s;
  auto files = VerifyAllRefs(fs, run_dir, manifest.value());
  if (!files.ok()) return files.status();
  auto details = CheckResultJson(files.value()[kResultFile], manifest.value());
  if (!details.ok()) return details.status();
  std::string& merged = files.value()[kMergedFile];
  if (!IsValidUtf8(merged)) return Refuse("merged.md is not valid UTF-8");

  VerifiedResult out;
  out.merged = std::move(merged);
  out.merged_path = ArtifactPath(run_dir, kMergedFile);
  out.merged_ref = manifest->artifacts.at(kMergedFile);
  out.details = std::move(details).value();
  out.usage = manifest->usage;
  out.manifest = std::move(manifest).value();
  return out;
}

}  // namespace pi_fusion::store
