#include "workflow/validation_accounting.h"

#include <map>
#include <set>

#include "workflow/contract_checker.h"
#include "workflow/validation_report.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

// The string value of `object[key]`, or nullptr.
const std::string* StringField(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const json* v = ContractChecker::Field(object, key);
  return v != nullptr && v->is_string() ? &v->get_ref<const std::string&>() : nullptr;
}

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

class AccountingChecker : public ContractChecker {
 public:
  AccountingChecker(const json& accounting, const std::vector<std::string>& ids,
                    const std::string& path)
      : root_(accounting), known_(ids.begin(), ids.end()), ids_(ids), path_(path) {}

  void Check() {
    if (!Object(root_, path_, {"findings", "decisions", "groups"})) return;
    IndexFirstDecisions();
    IndexGroups();
    Findings();
    Decisions();
    Groups();
  }

 private:
  // source id -> the group its first decision names ("" when excluded or naming none).
  void IndexFirstDecisions() {
    const json* list = Field(root_, "decisions");
    if (list == nullptr || !list->is_array()) return;
    for (const json& d : *list) {
      const std::string* id = StringField(d, "source_id");
      if (id == nullptr || decided_.contains(*id)) continue;
      const std::string* disposition = StringField(d, "disposition");
      const std::string* group = StringField(d, "group_id");
      decided_[*id] = {disposition != nullptr && *disposition == "include",
                       group == nullptr ? "" : *group};
    }
  }

  // group id -> its listed source ids (first group of that id only).
  void IndexGroups() {
    const json* list = Field(root_, "groups");
    if (list == nullptr || !list->is_array()) return;
    for (const json& g : *list) {
      const std::string* id = StringField(g, "group_id");
      if (id == nullptr || groups_.contains(*id)) continue;
      std::set<std::string>& members = groups_[*id];
      const json* sources = g.is_object() ? Field(g, "source_ids") : nullptr;
      if (sources == nullptr || !sources->is_array()) continue;
      for (const json& s : *sources) {
        if (s.is_string()) members.insert(s.get<std::string>());
      }
    }
  }

  // A source id at `p`; nullptr (with the error reported) unless it is a known one.
  const std::string* SourceId(const json& v, const std::string& p) {
    if (!v.is_string()) {
      Fail(p, "expected a source finding id string");
      return nullptr;
    }
    const std::string& id = v.get_ref<const std::string&>();
    if (!known_.contains(id)) {
      Fail(p, "unknown source finding id " + Quoted(id), p + ": an unknown source finding id");
      return nullptr;
    }
    return &id;
  }

  // Reports each known id missing from `seen`, as "<what> <id>", at `p`.
  void Missing(const std::set<std::string>& seen, const std::string& p, const std::string& what) {
    for (const std::string& id : ids_) {
      if (!seen.contains(id)) Fail(p, what + " " + id);
    }
  }

  void Findings() {
    std::map<std::string, std::string> seen;  // id -> where first listed
    const std::string path = path_ + ".findings";
    const json* list =
        ArrayField(root_, path_, "findings", [&](const json& v, const std::string& p) {
          const std::string* id = SourceId(v, p);
          if (id != nullptr && !seen.emplace(*id, p).second) {
            Fail(p, "duplicate source finding id " + *id + " (also at " + seen[*id] + ")");
          }
        });
    std::set<std::string> ids;
    for (const auto& [id, where] : seen) ids.insert(id);
    if (list != nullptr) Missing(ids, path, "missing source finding id");
  }

  void Decisions() {
    std::map<std::string, std::string> seen;
    const std::string path = path_ + ".decisions";
    const json* list =
        ArrayField(root_, path_, "decisions", [&](const json& v, const std::string& p) {
          if (!Object(v, p, {"source_id", "disposition", "rationale"}, {"group_id"})) return;
          const json* source = Field(v, "source_id");
          const std::string* id = source == nullptr ? nullptr : SourceId(*source, p + ".source_id");
          if (id != nullptr && !seen.emplace(*id, p).second) {
            Fail(p + ".source_id",
                 "source finding " + *id + " already has a decision at " + seen[*id]);
            id = nullptr;
          }
          const std::string* disposition = EnumField(v, p, "disposition", {"include", "exclude"});
          NonBlankField(v, p, "rationale");
          const json* group = Field(v, "group_id");
          if (disposition == nullptr) return;
          if (*disposition == "exclude") {
            if (group != nullptr) Fail(p + ".group_id", "an excluded finding belongs to no group");
            return;
          }
          if (group == nullptr) {
            Fail(p + ".group_id", "an included finding must name its group");
          } else if (NonBlank(*group, p + ".group_id")) {
            const std::string& g = group->get_ref<const std::string&>();
            const auto it = groups_.find(g);
            if (it == groups_.end()) {
              Fail(p + ".group_id", "no group has group_id " + Quoted(g),
                   p + ".group_id: no group has this group_id");
            } else if (id != nullptr && !it->second.contains(*id)) {
              Fail(p + ".group_id", "group " + Quoted(g) + " does not list " + *id,
                   p + ".group_id: the group named does not list " + *id);
            }
          }
        });
    std::set<std::string> ids;
    for (const auto& [id, where] : seen) ids.insert(id);
    if (list != nullptr) Missing(ids, path, "no decision for source finding");
  }

  void GroupSources(const json& group, const std::string& p, const std::string* group_id) {
    ArrayField(group, p, "source_ids", [&](const json& v, const std::string& q) {
      const std::string* id = SourceId(v, q);
      if (id == nullptr) return;
      if (const auto it = grouped_.find(*id); it != grouped_.end()) {
        Fail(q, "source finding " + *id + " is already in " + it->second);
        return;
      }
      grouped_[*id] = p;
      const auto decision = decided_.find(*id);
      if (decision == decided_.end()) return;  // reported as a missing decision
      if (!decision->second.include) {
        Fail(q,
             "source finding " + *id + " is excluded by its decision, so it belongs to no group");
      } else if (group_id != nullptr && !decision->second.group.empty() &&
                 decision->second.group != *group_id) {
        // A decision naming no group is reported at the decision already.
        Fail(q, "the decision for " + *id + " names group " + Quoted(decision->second.group),
             q + ": the decision for " + *id + " names another group");
      }
    });
    const json* list = Field(group, "source_ids");
    if (list != nullptr && list->is_array() && list->empty()) {
      Fail(p + ".source_ids", "a group lists at least one source finding id");
    }
  }

  void Groups() {
    std::map<std::string, std::string> seen;
    ArrayField(root_, path_, "groups", [&](const json& v, const std::string& p) {
      if (!Object(v, p,
                  {"group_id", "source_ids", "severity", "location", "evidence", "impact",
                   "summary", "rationale"})) {
        return;
      }
      const std::string* group_id = nullptr;
      if (const json* g = Field(v, "group_id"); g != nullptr && NonBlank(*g, p + ".group_id")) {
        group_id = &g->get_ref<const std::string&>();
        if (!seen.emplace(*group_id, p).second) {
          Fail(p + ".group_id",
               "duplicate group_id " + Quoted(*group_id) + " (also at " + seen[*group_id] + ")",
               p + ".group_id: a duplicate group_id (also at " + seen[*group_id] + ")");
          group_id = nullptr;
        }
      }
      GroupSources(v, p, group_id);
      EnumField(v, p, "severity", {kSeverityCritical, kSeverityHigh, kSeverityMinor});
      for (const char* key : {"location", "evidence", "impact", "summary", "rationale"}) {
        NonBlankField(v, p, key);
      }
    });
  }

  struct Decided {
    bool include = false;
    std::string group;
  };

  const json& root_;
  const std::set<std::string> known_;
  const std::vector<std::string>& ids_;
  const std::string path_;
  std::map<std::string, Decided> decided_;
  std::map<std::string, std::set<std::string>> groups_;
  std::map<std::string, std::string> grouped_;  // source id -> path of the group listing it
};

}  // namespace

std::vector<EvaluationError> CheckValidationAccounting(const json& accounting,
                                                       const std::vector<std::string>& source_ids,
                                                       const std::string& path) {
  AccountingChecker checker(accounting, source_ids, path);
  checker.Check();
  return std::move(checker.errors);
}

ValidationAccounting AccountingFromJson(const json& accounting) {
  ValidationAccounting out;
  for (const json& d : accounting.at("decisions")) {
    AccountingDecision decision;
    decision.source_id = d.at("source_id").get<std::string>();
    decision.include = d.at("disposition").get<std::string>() == "include";
    decision.rationale = d.at("rationale").get<std::string>();
    if (d.contains("group_id")) decision.group_id = d.at("group_id").get<std::string>();
    out.decisions.push_back(std::move(decision));
  }
  for (const json& g : accounting.at("groups")) {
    out.groups.push_back(
        {g.at("group_id").get<std::string>(), g.at("source_ids").get<std::vector<std::string>>(),
         g.at("severity").get<std::string>(), g.at("location").get<std::string>(),
         g.at("evidence").get<std::string>(), g.at("impact").get<std::string>(),
         g.at("summary").get<std::string>(), g.at("rationale").get<std::string>()});
  }
  return out;
}

}  // namespace pi_fusion::workflow
