#include "store/failure_view.h"

#include "core/durable_file.h"
#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"
#include "store/constants.h"
#include "store/failure_summary.h"
#include "store/json_util.h"
#include "store/role_usage.h"
#include "store/verify.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

json NoAnswer() { return {{"present", false}, {"reason", "run_did_not_commit"}}; }

// The per-role rows come from the summary; one written before they existed gets them from the
// verified manifest it belongs to.
json Project(const json& summary, const char* status, const json* summary_ref, const Manifest& m) {
  json evidence = json::array();
  if (summary_ref != nullptr) evidence.push_back(*summary_ref);
  for (const json& ref : summary["evidence"]) evidence.push_back(ref);
  const json& omitted = summary["omitted"];
  return {{"answer", NoAnswer()},
          {"summary_status", status},
          {"failure", summary["terminal_error"]},
          {"progress", summary["progress"]},
          {"usage_so_far", summary["usage"]},
          {"usage_by_role", summary.contains("usage_by_role") ? summary["usage_by_role"]
                                                              : UsageByRoleJson(UsageByRole(m))},
          {"model_requests",
           summary.contains("model_requests") ? summary["model_requests"] : RequestsJson(m)},
          {"attempts", summary["attempts"]},
          {"evidence_artifacts", std::move(evidence)},
          {"remediation_ids", summary["remediation_ids"]},
          {"omitted",
           {{"attempts", omitted.value("attempts", 0)},
            {"evidence_artifacts", omitted.value("evidence", 0)}}}};
}

json UnavailableView(const Status& why) {
  const std::string message = TruncateUtf8(RepairUtf8(why.message()), kTerminalMessageMaxBytes);
  return {{"answer", NoAnswer()},
          {"summary_status", "unavailable"},
          {"failure",
           {{"code", kArtifactError},
            {"message", message},
            {"message_bytes", why.message().size()},
            {"stage", nullptr},
            {"slot", nullptr},
            {"attempt", nullptr}}},
          {"progress", nullptr},
          {"usage_so_far", nullptr},
          {"attempts", json::array()},
          {"evidence_artifacts", json::array()},
          {"remediation_ids", {"check_run_directory"}},
          {"omitted", {{"attempts", 0}, {"evidence_artifacts", 0}}}};
}

// The stored summary when the manifest binds it and it verifies; nullopt with `status` set to
// why not.
std::optional<json> VerifiedSummary(FileSystem& fs, const std::string& run_dir, const Manifest& m,
                                    const char*& status) {
  const auto it = m.artifacts.find(kFailureSummaryFile);
  if (it == m.artifacts.end()) {
    status = "legacy_manifest_only";
    return std::nullopt;
  }
  status = "integrity_failed";
  auto bytes = VerifyArtifact(fs, run_dir, it->second);
  if (!bytes.ok()) return std::nullopt;
  auto parsed = ParseJson(bytes.value(), kFailureSummaryFile);
  if (!parsed.ok() || !CheckFailureSummary(parsed.value(), m).ok()) return std::nullopt;
  status = "verified";
  return std::move(parsed).value();
}

}  // namespace

void FitFailureView(json& view, size_t max_bytes) {
  json& attempts = view["attempts"];
  json& evidence = view["evidence_artifacts"];
  json& omitted = view["omitted"];
  while (CanonicalJson(view).size() > max_bytes) {
    if (!evidence.empty()) {
      evidence.erase(evidence.size() - 1);
      omitted["evidence_artifacts"] = omitted["evidence_artifacts"].get<uint64_t>() + 1;
    } else if (!attempts.empty()) {
      attempts.erase(0);
      omitted["attempts"] = omitted["attempts"].get<uint64_t>() + 1;
    } else {
      // Only reachable with a summary not written by this store: its message is the last resort.
      json& message = view["failure"]["message"];
      message = TruncateUtf8(message.get<std::string>(), message.get<std::string>().size() / 2);
      if (message.get<std::string>().empty()) break;
    }
  }
}

Result<json> ReadFailureView(FileSystem& fs, const std::string& run_dir) {
  auto manifest = ReadManifest(fs, run_dir);
  if (!manifest.ok()) {
    json view = UnavailableView(manifest.status());
    FitFailureView(view, kFailureViewMaxBytes);
    return view;
  }
  const Manifest& m = manifest.value();
  if (m.state != RunState::kFailed && m.state != RunState::kCancelled) {
    return Status::Error(kArtifactError, "run " + m.run_id + " is " +
                                             std::string(RunStateName(m.state)) +
                                             ", not failed or cancelled");
  }
  const char* status = "";
  if (auto summary = VerifiedSummary(fs, run_dir, m, status)) {
    try {
      const json ref = RefToJson(m.artifacts.at(kFailureSummaryFile));
      json view = Project(*summary, status, &ref, m);
      FitFailureView(view, kFailureViewMaxBytes);
      return view;
    } catch (const json::exception&) {
      // A bound summary whose inner shape is wrong was not written by this store.
      status = "integrity_failed";
    }
  }
  json view = Project(BuildFailureSummary(m, m.updated_at), status, nullptr, m);
  FitFailureView(view, kFailureViewMaxBytes);
  return view;
}

}  // namespace pi_fusion::store
