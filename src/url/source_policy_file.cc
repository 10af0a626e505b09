#include "url/source_policy_file.h"

#include <algorithm>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "core/error_codes.h"
#include "core/json_text.h"
#include "pi_fusion/canonical_json.h"
#include "url/source_policy.h"

namespace pi_fusion::url {
namespace {

Status Invalid(const std::string& message) {
  return Status::Error(kSourcePolicyInvalid, "source policy " + message);
}

// Empty when every URL is canonical and unique, else why not.
std::string CheckUrls(const std::vector<std::string>& urls) {
  if (urls.empty()) return "declares no URL";
  std::set<std::string> seen;
  for (size_t i = 0; i < urls.size(); ++i) {
    const std::string where = "declared_urls[" + std::to_string(i) + "] ";
    Result<std::string> canonical = CanonicalizeDeclaredSource(urls[i]);
    if (!canonical.ok()) return where + "is refused: " + canonical.status().message();
    if (*canonical != urls[i]) return where + "is not canonical";
    if (!seen.insert(urls[i]).second) return where + "repeats an earlier URL";
  }
  return "";
}

}  // namespace

Result<std::string> SourcePolicyJson(const SourcePolicy& policy) {
  if (std::string problem = CheckUrls(policy.declared_urls); !problem.empty()) {
    return Status::Error(kInvalidArguments, "source policy " + problem);
  }
  nlohmann::json doc = {{"schema_version", kSourcePolicySchema},
                        {"run_id", policy.run_id},
                        {"declared_urls", policy.declared_urls}};
  return CanonicalJson(doc);
}

Result<SourcePolicy> ParseSourcePolicy(std::string_view bytes) {
  Result<nlohmann::json> parsed =
      ParseUniqueKeyJson(bytes, kSourcePolicyFile, kSourcePolicyInvalid);
  if (!parsed.ok()) return parsed.status();
  const nlohmann::json& doc = *parsed;
  if (!doc.is_object()) return Invalid("is not a JSON object");
  for (const auto& [key, value] : doc.items()) {
    if (key != "schema_version" && key != "run_id" && key != "declared_urls") {
      return Invalid("has an unknown key \"" + key + "\"");
    }
  }
  if (!doc.contains("schema_version") || doc["schema_version"] != kSourcePolicySchema) {
    return Invalid("schema_version is not " + std::string(kSourcePolicySchema));
  }
  static const std::regex kRunId("^research-[0-9a-f]{32}$");
  if (!doc.contains("run_id") || !doc["run_id"].is_string() ||
      !std::regex_match(doc["run_id"].get<std::string>(), kRunId)) {
    return Invalid("run_id is not a research run id");
  }
  if (!doc.contains("declared_urls") || !doc["declared_urls"].is_array()) {
    return Invalid("declared_urls is not an array");
  }
  SourcePolicy policy;
  policy.run_id = doc["run_id"].get<std::string>();
  for (const nlohmann::json& entry : doc["declared_urls"]) {
    if (!entry.is_string()) return Invalid("declared_urls holds a non-string");
    policy.declared_urls.push_back(entry.get<std::string>());
  }
  if (std::string problem = CheckUrls(policy.declared_urls); !problem.empty()) {
    return Invalid(problem);
  }
  return policy;
}

std::optional<std::string> MatchDeclaredUrl(const SourcePolicy& policy,
                                            std::string_view requested) {
  Result<std::string> canonical = CanonicalizeDeclaredSource(requested);
  if (!canonical.ok()) return std::nullopt;
  auto it = std::find(policy.declared_urls.begin(), policy.declared_urls.end(), *canonical);
  if (it == policy.declared_urls.end()) return std::nullopt;
  return *it;
}

}  // namespace pi_fusion::url
