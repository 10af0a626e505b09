#include "child/core/cache_policy.h"

#include <algorithm>
#include <vector>

#include "core/error_codes.h"
#include "core/utf8.h"
#include "protocol/constants.h"

namespace pi_fusion::child {
namespace {

using nlohmann::json;

constexpr std::string_view kAnthropicApi = "anthropic-messages";

// Where a marker sits, in Anthropic's prompt order (tools, system, messages).
enum class Section { kTopLevel = 0, kTools = 1, kSystem = 2, kMessages = 3 };

struct Marker {
  json* holder;  // the object carrying "cache_control"
  Section section;
  bool protected_ = false;  // one of the breakpoints Pi relies on
};

Status PolicyInvalid(const std::string& message) {
  return Status::Error(std::string(kChildCachePolicyInvalid), message);
}

void Collect(json* holder, Section section, std::vector<Marker>* out) {
  if (holder->is_object() && holder->contains("cache_control")) {
    out->push_back({holder, section});
  }
}

void CollectBlocks(json* blocks, Section section, std::vector<Marker>* out) {
  if (blocks == nullptr || !blocks->is_array()) return;
  for (json& block : *blocks) {
    Collect(&block, section, out);
    if (block.is_object() && block.value("type", json()) == "tool_result") {
      auto nested = block.find("content");
      if (nested != block.end()) CollectBlocks(&*nested, section, out);
    }
  }
}

json* Child(json* payload, const char* key) {
  auto it = payload->find(key);
  return it == payload->end() ? nullptr : &*it;
}

std::vector<Marker> FindMarkers(json* payload) {
  std::vector<Marker> markers;
  Collect(payload, Section::kTopLevel, &markers);
  CollectBlocks(Child(payload, "tools"), Section::kTools, &markers);
  CollectBlocks(Child(payload, "system"), Section::kSystem, &markers);
  if (json* messages = Child(payload, "messages"); messages != nullptr && messages->is_array()) {
    for (json& message : *messages) {
      if (message.is_object())
        CollectBlocks(Child(&message, "content"), Section::kMessages, &markers);
    }
  }
  return markers;
}

Status ValidateMarker(const json& control) {
  if (!control.is_object() || control.value("type", json()) != "ephemeral") {
    return PolicyInvalid("a cache_control is not {\"type\":\"ephemeral\"}: " +
                         TruncateUtf8(control.dump(), 200));
  }
  for (auto it = control.begin(); it != control.end(); ++it) {
    if (it.key() == "type") continue;
    if (it.key() == "ttl" && (*it == "5m" || *it == "1h")) continue;
    return PolicyInvalid("a cache_control has an unsupported " + it.key() + ": " +
                         TruncateUtf8(it->dump(), 200));
  }
  return Status::Ok();
}

// Marks the last marker of the tools, system and messages sections as protected.
void ProtectPiBreakpoints(std::vector<Marker>* markers) {
  for (Section section : {Section::kTools, Section::kSystem, Section::kMessages}) {
    for (auto it = markers->rbegin(); it != markers->rend(); ++it) {
      if (it->section == section) {
        it->protected_ = true;
        break;
      }
    }
  }
}

// Drops unprotected markers, earliest in prompt order first, until at most four remain.
int64_t EnforceCeiling(std::vector<Marker>* markers) {
  ProtectPiBreakpoints(markers);
  std::stable_sort(markers->begin(), markers->end(), [](const Marker& a, const Marker& b) {
    return static_cast<int>(a.section) < static_cast<int>(b.section);
  });
  int64_t removed = 0;
  for (auto it = markers->begin();
       it != markers->end() && markers->size() > protocol::kMaxCacheBreakpoints;) {
    if (it->protected_) {
      ++it;
      continue;
    }
    it->holder->erase("cache_control");
    it = markers->erase(it);
    ++removed;
  }
  return removed;
}

}  // namespace

Result<CachePolicy> ResolveCachePolicy(const std::optional<std::string>& env_value) {
  if (!env_value) return CachePolicy{"short", "default"};
  if (*env_value == "none" || *env_value == "short" || *env_value == "long") {
    return CachePolicy{*env_value, "env"};
  }
  return PolicyInvalid("PI_CACHE_RETENTION must be none, short or long, not '" +
                       TruncateUtf8(*env_value, 64) + "'");
}

Result<protocol::CacheObservation> ApplyCachePolicy(json* payload, const CachePolicy& policy,
                                                    std::string_view api, bool long_allowed,
                                                    int64_t ordinal) {
  protocol::CacheObservation o;
  o.provider_request_ordinal = ordinal;
  o.api = std::string(api);
  o.requested_retention = policy.requested;
  o.source = policy.source;
  if (api != kAnthropicApi) {
    o.effective_retention = "unmanaged";
    return o;
  }
  std::vector<Marker> markers = FindMarkers(payload);
  for (const Marker& marker : markers) {
    if (Status s = ValidateMarker((*marker.holder)["cache_control"]); !s.ok()) return s;
  }
  if (markers.empty()) {
    o.source = "payload";
    o.effective_retention = "none";
    return o;
  }
  if (policy.requested == "none") {
    for (Marker& marker : markers) marker.holder->erase("cache_control");
    o.effective_retention = "none";
    return o;
  }
  o.breakpoints_removed = EnforceCeiling(&markers);
  o.long_fallback = policy.requested == "long" && !long_allowed;
  const bool long_ttl = policy.requested == "long" && long_allowed;
  for (Marker& marker : markers) {
    json control = {{"type", "ephemeral"}};
    if (long_ttl) control["ttl"] = "1h";
    (*marker.holder)["cache_control"] = std::move(control);
  }
  o.effective_retention = long_ttl ? "long" : "short";
  o.breakpoints = static_cast<int64_t>(markers.size());
  return o;
}

}  // namespace pi_fusion::child
