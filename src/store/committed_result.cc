#include "store/committed_result.h"

#include "core/durable_file.h"
#include "store/constants.h"
#include "store/json_util.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

Status Differs(const std::string& what) {
  return Status::Error(kArtifactError, "result.json " + what);
}

// details may repeat the run's identity; when it does, it must agree.
Status CheckDetailsIdentity(const json& details, const std::string& run_id,
                            std::string_view workflow) {
  if (details.contains("run_id") && details["run_id"] != run_id) {
    return Differs("details.run_id does not match the run");
  }
  if (details.contains("workflow") && details["workflow"] != workflow) {
    return Differs("details.workflow does not match the run");
  }
  return Status::Ok();
}

}  // namespace

Result<json> StampResultDetails(json details) {
  if (!details.is_object()) return Status::Error(kArtifactError, "result details is not an object");
  auto it = details.find("schema_version");
  if (it != details.end() && *it != kResultDetailsSchema) {
    return Status::Error(kArtifactError, "result details schema_version is not " +
                                             std::string(kResultDetailsSchema));
  }
  details["schema_version"] = kResultDetailsSchema;
  return details;
}

json CommittedResultToJson(const std::string& run_id, const ArtifactRef& merged,
                           const json& details) {
  return {{"schema_version", kCommittedResultSchema},
          {"run_id", run_id},
          {"merged", RefToJson(merged)},
          {"details", details}};
}

Status CheckCommittedResult(const json& result, const std::string& run_id,
                            std::string_view workflow, const ArtifactRef& merged_ref) {
  FieldReader r(result, "result.json");
  const std::string schema = r.String("schema_version");
  const std::string result_run_id = r.String("run_id");
  const json& merged = r.Object("merged");
  const json& details = r.Object("details");
  Status s = r.Finish();
  if (!s.ok()) return s;
  if (schema != kCommittedResultSchema) {
    return Differs("schema_version is not " + std::string(kCommittedResultSchema));
  }
  if (result_run_id != run_id) return Differs("run_id " + result_run_id + " != " + run_id);
  auto ref = RefFromJson(merged, "result.json merged");
  if (!ref.ok()) return ref.status();
  if (!(ref.value() == merged_ref)) return Differs("merged does not bind the recorded merged.md");
  if (!details.contains("schema_version") ||
      (details["schema_version"] != kResultDetailsSchema &&
       details["schema_version"] != kResultDetailsSchemaV5)) {
    return Differs("details.schema_version is not " + std::string(kResultDetailsSchema));
  }
  return CheckDetailsIdentity(details, run_id, workflow);
}

}  // namespace pi_fusion::store
