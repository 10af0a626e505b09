#include "config/pi_models_json.h"

#include "config/provider_overrides.h"

namespace pi_fusion::config {

nlohmann::json ReadPiModelsJson(FileSystem& fs, const std::string& agent_dir) {
  Result<std::string> text =
      fs.ReadFileFollowingLink(agent_dir + "/models.json", kPiModelsJsonMaxBytes);
  if (text.ok()) return ParseModelsJson(*text);
  if (text.status().code() == kFsTooLarge)
    return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::object();
}

}  // namespace pi_fusion::config
