// Workflow-specific argument rules that JSON Schema cannot express. Applied after the schema
// walk, on already trimmed values. Thread-safe; pure.
#pragma once

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::schema {

// The message for a legacy `prompt` argument to fusion_validate.
extern const char kValidatePromptMigration[];

// fusion_validate: `provided` needs non-empty evidence and no reason; `not_run` needs a reason and
// no evidence. On success `evidence` is always present ([] for not_run).
Status ApplyVerificationRules(nlohmann::json& request);

// fusion_research: canonicalizes every sources[i].url in place, refusing credentials, non-public
// literal addresses and blocked names, and canonical duplicates.
Status ApplySourceRules(nlohmann::json& request);

}  // namespace pi_fusion::schema
