#include "store/resumability.h"

#include <algorithm>
#include <map>

#include "core/error_codes.h"
#include "store/artifact_ref.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "store/verify.h"

namespace pi_fusion::store {
namespace {

Status NotResumable(const Manifest& m, const std::string& why) {
  return RunNotResumable(m.run_id, why);
}

std::string ResponseName(int slot) {
  return AttemptPrefix({Stage::kCandidate, slot, 1}) + ".response.md";
}

bool Binds(const AttemptRecord& a, const std::string& name) {
  return std::find(a.artifacts.begin(), a.artifacts.end(), name) != a.artifacts.end();
}

bool FailedAt(const Manifest& m, int slot) {
  return m.error && m.error->stage == Stage::kCandidate && m.error->slot == slot;
}

bool Dropped(const Manifest& m, int slot) {
  return std::any_of(m.dropped_reviewers.begin(), m.dropped_reviewers.end(),
                     [slot](const DroppedReviewerRecord& d) { return d.slot == slot; });
}

const AttemptRecord* FindAttempt(const Manifest& m, const AttemptKey& key) {
  for (const AttemptRecord& a : m.attempts) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

// The attempt's files, each verified (`bytes` holds every artifact the manifest binds); an
// attempt naming a file the manifest does not bind is refused.
Result<ReusedAttempt> Reuse(const Manifest& m, const AttemptRecord& a,
                            const std::map<std::string, std::string>& bytes,
                            const std::string& response) {
  ReusedAttempt out{a, {}, ""};
  for (const std::string& name : a.artifacts) {
    auto it = bytes.find(name);
    if (it == bytes.end()) {
      return NotResumable(m, "attempt " + AttemptPrefix(a.key) + " names " + name +
                                 ", which its manifest does not bind");
    }
    out.files.push_back({name, it->second});
    if (name == response) out.answer = it->second;
  }
  return out;
}

}  // namespace

Status RunNotResumable(const std::string& run_id, const std::string& why) {
  return Status::Error(kRunNotResumable, "run " + run_id + " cannot be resumed: " + why);
}

StoreBatch ReuseBatch(const ReusedAttempt& attempt, const std::string& old_run_id) {
  StoreBatch batch;
  AttemptUpdate update;
  update.key = attempt.record.key;
  update.state = attempt.record.state;
  update.error = attempt.record.error;
  update.reused_from = old_run_id;
  for (const ReusedFile& file : attempt.files) {
    batch.files.push_back({file.name, file.bytes});
    update.artifacts.push_back(file.name);
  }
  batch.attempt = std::move(update);
  return batch;
}

std::vector<int> VerifiedCandidateSlots(const Manifest& m) {
  std::vector<int> slots;
  for (int slot = 1; slot <= 3; ++slot) {
    const AttemptRecord* a = FindAttempt(m, {Stage::kCandidate, slot, 1});
    if (a == nullptr || a->state != AttemptState::kCompleted) continue;
    if (!Binds(*a, ResponseName(slot)) || m.artifacts.count(ResponseName(slot)) == 0) continue;
    if (Dropped(m, slot) || FailedAt(m, slot)) continue;
    slots.push_back(slot);
  }
  return slots;
}

Status CheckResumable(const Manifest& m) {
  if (m.state == RunState::kCompleted) {
    return NotResumable(m, "it completed; read its answer with bg_result " + m.run_id);
  }
  if (!IsTerminal(m.state)) {
    return NotResumable(m, "it is still running (" + std::string(RunStateName(m.state)) +
                               "); wait for it, or stop it with bg_kill " + m.run_id);
  }
  if (VerifiedCandidateSlots(m).empty()) {
    return NotResumable(m,
                        "no candidate answer of it verified, so there is nothing to reuse; "
                        "start it again with /fusion");
  }
  return Status::Ok();
}

bool EvaluationReusable(const Manifest& m) {
  return VerifiedCandidateSlots(m).size() == 3 && m.anonymous_map.is_object() &&
         m.artifacts.count(kEvaluationFile) > 0 && m.artifacts.count(kBlindCandidatesFile) > 0 &&
         FindAttempt(m, {Stage::kEvaluation, std::nullopt, 1}) != nullptr;
}

Result<ResumeSource> ReadResumeSource(FileSystem& fs, const std::string& run_dir) {
  Result<Manifest> manifest = ReadManifest(fs, run_dir);
  if (!manifest.ok()) {
    return Status::Error(kRunNotResumable,
                         "the run cannot be resumed: " + manifest.status().message());
  }
  const Manifest& m = *manifest;
  if (Status s = CheckResumable(m); !s.ok()) return s;
  std::map<std::string, std::string> bytes;
  for (const auto& [name, ref] : m.artifacts) {
    Result<std::string> verified = VerifyArtifact(fs, run_dir, ref);
    if (!verified.ok()) {
      return NotResumable(m, name + " fails verification (" + verified.status().message() + ")");
    }
    bytes.emplace(name, std::move(verified).value());
  }
  if (bytes.count(kCanonicalInputFile) == 0) {
    return NotResumable(m, std::string("its manifest binds no ") + kCanonicalInputFile);
  }
  ResumeSource out;
  out.run_dir = run_dir;
  out.canonical_input = bytes.at(kCanonicalInputFile);
  if (bytes.count(kContextLedgerFile) > 0) out.context_ledger = bytes.at(kContextLedgerFile);
  for (int slot : VerifiedCandidateSlots(m)) {
    Result<ReusedAttempt> reused =
        Reuse(m, *FindAttempt(m, {Stage::kCandidate, slot, 1}), bytes, ResponseName(slot));
    if (!reused.ok()) return reused.status();
    out.candidates.push_back(*std::move(reused));
  }
  if (EvaluationReusable(m)) {
    ReusedEvaluation evaluation;
    evaluation.anonymous_map = m.anonymous_map;
    for (int attempt : {1, 2}) {
      const AttemptRecord* a = FindAttempt(m, {Stage::kEvaluation, std::nullopt, attempt});
      if (a == nullptr) continue;
      const std::string response = AttemptPrefix(a->key) + ".response.txt";
      Result<ReusedAttempt> reused = Reuse(m, *a, bytes, response);
      if (!reused.ok()) return reused.status();
      evaluation.attempts.push_back(*std::move(reused));
    }
    for (const char* name : {kBlindCandidatesFile, kEvaluationFile}) {
      evaluation.documents.push_back({name, bytes.at(name)});
    }
    evaluation.evaluation = bytes.at(kEvaluationFile);
    out.evaluation = std::move(evaluation);
  }
  out.manifest = std::move(manifest).value();
  return out;
}

}  // namespace pi_fusion::store
