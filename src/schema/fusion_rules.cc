#include "schema/fusion_rules.h"

#include <string>

#include "schema/schema_walker.h"
#include "url/source_policy.h"

namespace pi_fusion::schema {

const char kValidatePromptMigration[] =
    "fusion_validate no longer accepts `prompt`: describe the review with objective, background, "
    "changeSummary, scope, acceptanceCriteria and verification ({status: \"provided\", evidence: "
    "[{check, outcome}]} or {status: \"not_run\", reason}) instead";

Status ApplyVerificationRules(nlohmann::json& request) {
  nlohmann::json& verification = request["verification"];
  const std::string status = verification.at("status").get<std::string>();
  const bool has_reason = verification.contains("reason");
  const bool has_evidence = verification.contains("evidence") && !verification["evidence"].empty();
  if (status == "provided") {
    if (!has_evidence) {
      return Status::Error(kInvalidArguments,
                           "verification.evidence must not be empty when verification.status is "
                           "\"provided\"");
    }
    if (has_reason) {
      return Status::Error(kInvalidArguments,
                           "verification.reason is not allowed when verification.status is "
                           "\"provided\"");
    }
  } else {
    if (!has_reason) {
      return Status::Error(kInvalidArguments,
                           "verification.reason is required when verification.status is "
                           "\"not_run\"");
    }
    if (has_evidence) {
      return Status::Error(kInvalidArguments,
                           "verification.evidence must be empty when verification.status is "
                           "\"not_run\"");
    }
  }
  if (!verification.contains("evidence")) verification["evidence"] = nlohmann::json::array();
  return Status::Ok();
}

Status ApplySourceRules(nlohmann::json& request) {
  nlohmann::json& sources = request["sources"];
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string label = "sources[" + std::to_string(i) + "].url";
    Result<std::string> canonical =
        url::CanonicalizeDeclaredSource(sources[i].at("url").get<std::string>());
    if (!canonical.ok()) {
      return Status::Error(canonical.status().code(), label + " " + canonical.status().message());
    }
    for (size_t j = 0; j < i; ++j) {
      if (sources[j].at("url").get<std::string>() == *canonical) {
        return Status::Error(kInvalidArguments, label + " duplicates canonical URL from sources[" +
                                                    std::to_string(j) + "]: " + *canonical);
      }
    }
    sources[i]["url"] = *canonical;
  }
  return Status::Ok();
}

}  // namespace pi_fusion::schema
