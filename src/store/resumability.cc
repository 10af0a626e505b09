#include "store/resumability.h"

#include <algorithm>
#include <map>

#include "core/error_codes.h"
#include "store/artifact_ref.h"
#include "store/attempt_files.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "store/run_id.h"
#include "store/verify.h"

namespace pi_fusion::store {
namespace {

Status NotResumable(const Manifest& m, const std::string& why) {
  return RunNotResumable(m.run_id, why);
}

bool Binds(const AttemptRecord& a, const std::string& name) {
  return std::find(a.artifacts.begin(), a.artifacts.end(), name) != a.artifacts.end();
}

bool FailedAt(const Manifest& m, int slot) {
  return m.error && m.error->stage == Stage::kCandidate && m.error->slot == slot;
}

// The stop reasons the run itself made after a verified answer (process::StopReasonName): the
// child lingered, or the run was cancelled. Its exit is then the run's, not the child's.
bool StoppedByRunAfterAnswer(const ChildExitRecord& e) {
  return e.after_answer && (e.stop_reason == "after_answer" || e.stop_reason == "cancelled");
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

std::string CandidateResponseName(int slot) {
  return AttemptFileName({Stage::kCandidate, slot, 1}, AttemptFile::kResponse);
}

Status RunNotResumable(const std::string& run_id, const std::string& why) {
  return Status::Error(kRunNotResumable, "run " + run_id + " cannot be resumed: " + why);
}

StoreBatch ReuseBatch(const ReusedAttempt& attempt, const std::string& old_run_id) {
  StoreBatch batch;
  AttemptUpdate update;
  update.key = attempt.record.key;
  update.state = attempt.record.state;
  update.error = attempt.record.error;
  // Through a chain of resumes a file keeps the run that first produced it.
  update.reused_from = attempt.record.reused_from.value_or(old_run_id);
  for (const ReusedFile& file : attempt.files) {
    batch.files.push_back({file.name, file.bytes});
    update.artifacts.push_back(file.name);
  }
  batch.attempt = std::move(update);
  return batch;
}

bool IsCleanEvidence(const AttemptRecord& a) {
  if (a.state != AttemptState::kCompleted || a.error) return false;
  if (!a.exit) return true;
  const ChildExitRecord& e = *a.exit;
  const bool own_clean_end = e.code == 0 && !e.signal && e.stop_reason == "none";
  return own_clean_end || StoppedByRunAfterAnswer(e);
}

std::vector<int> VerifiedCandidateSlots(const Manifest& m) {
  std::vector<int> slots;
  for (int slot = 1; slot <= 3; ++slot) {
    const AttemptRecord* a = FindAttempt(m, {Stage::kCandidate, slot, 1});
    if (a == nullptr || !IsCleanEvidence(*a)) continue;
    if (!Binds(*a, CandidateResponseName(slot)) ||
        m.artifacts.count(CandidateResponseName(slot)) == 0)
      continue;
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
    // /fusion starts reason runs only; the agent starts the others with its tool.
    const std::string again = m.workflow == "reason"
                                  ? "start it again with /fusion"
                                  : "ask the agent to start it again (fusion_" + m.workflow + ")";
    return NotResumable(
        m, "no candidate answer of it verified, so there is nothing to reuse; " + again);
  }
  return Status::Ok();
}

bool EvaluationReusable(const Manifest& m) {
  if (VerifiedCandidateSlots(m).size() != 3 || !m.anonymous_map.is_object() ||
      m.artifacts.count(kEvaluationFile) == 0 || m.artifacts.count(kBlindCandidatesFile) == 0) {
    return false;
  }
  // A run whose terminal error is the evaluation's (an evaluator that failed after its answer, in
  // a manifest from before such failures were recorded in the attempt) has none to reuse.
  if (m.error && m.error->stage == Stage::kEvaluation) return false;
  const AttemptRecord* first = FindAttempt(m, {Stage::kEvaluation, std::nullopt, 1});
  if (first == nullptr) return false;
  // Both attempts when it was repaired: the reused evaluation copies each of them.
  return std::all_of(m.attempts.begin(), m.attempts.end(), [](const AttemptRecord& a) {
    return a.key.stage != Stage::kEvaluation || IsCleanEvidence(a);
  });
}

std::optional<std::string> CompletedResumeOf(FileSystem& fs, const std::string& run_dir,
                                             const std::string& run_id) {
  // <project>/.pi/fusion/<session>-<pid>/<run-id>: every run of the project is two levels up.
  const size_t run_slash = run_dir.find_last_of('/');
  if (run_slash == std::string::npos || run_slash == 0) return std::nullopt;
  const size_t session_slash = run_dir.find_last_of('/', run_slash - 1);
  if (session_slash == std::string::npos) return std::nullopt;
  const std::string root = run_dir.substr(0, session_slash);
  Result<std::vector<std::string>> sessions = fs.ListDir(root);
  if (!sessions.ok()) return std::nullopt;
  for (const std::string& session : *sessions) {
    Result<std::vector<std::string>> names = fs.ListDir(root + "/" + session);
    if (!names.ok()) continue;
    for (const std::string& name : *names) {
      if (name == run_id || !IsValidRunId(name)) continue;
      Result<Manifest> other = ReadManifest(fs, root + "/" + session + "/" + name);
      if (other.ok() && other->run_id == name && other->state == RunState::kCompleted &&
          other->resumed_from == run_id) {
        return name;
      }
    }
  }
  return std::nullopt;
}

Status ResumedAlready(const std::string& run_id, const std::string& resumed_as) {
  return RunNotResumable(run_id, "it was resumed as " + resumed_as +
                                     ", which completed; read its answer with bg_result " +
                                     resumed_as);
}

Result<ResumeSource> ReadResumeSource(FileSystem& fs, const std::string& run_dir) {
  Result<Manifest> manifest = ReadManifest(fs, run_dir);
  if (!manifest.ok()) {
    return Status::Error(kRunNotResumable,
                         "the run cannot be resumed: " + manifest.status().message());
  }
  const Manifest& m = *manifest;
  // The id the person named is the directory's; a manifest that names another run (copied or
  // moved by hand) is not that run's record.
  const std::string name = run_dir.substr(run_dir.find_last_of('/') + 1);
  if (m.run_id != name) {
    return RunNotResumable(name, "its manifest.json names another run (" + m.run_id + ")");
  }
  if (Status s = CheckResumable(m); !s.ok()) return s;
  // Its answer exists already: a second resume would pay again for it.
  if (std::optional<std::string> by = CompletedResumeOf(fs, run_dir, m.run_id)) {
    return ResumedAlready(m.run_id, *by);
  }
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
        Reuse(m, *FindAttempt(m, {Stage::kCandidate, slot, 1}), bytes, CandidateResponseName(slot));
    if (!reused.ok()) return reused.status();
    out.candidates.push_back(*std::move(reused));
  }
  if (EvaluationReusable(m)) {
    ReusedEvaluation evaluation;
    evaluation.anonymous_map = m.anonymous_map;
    for (int attempt : {1, 2}) {
      const AttemptRecord* a = FindAttempt(m, {Stage::kEvaluation, std::nullopt, attempt});
      if (a == nullptr) continue;
      const std::string response = AttemptFileName(a->key, AttemptFile::kResponse);
      Result<ReusedAttempt> reused = Reuse(m, *a, bytes, response);
      if (!reused.ok()) return reused.status();
      evaluation.attempts.push_back(*std::move(reused));
    }
    for (const AttemptRecord& a : m.attempts) {
      if (a.key.stage != Stage::kOrderCheck || !IsCleanEvidence(a)) continue;
      // One that does not verify is not reused: the resumed run asks again.
      Result<ReusedAttempt> reused =
          Reuse(m, a, bytes, AttemptFileName(a.key, AttemptFile::kResponse));
      if (reused.ok()) evaluation.order_checks.push_back(*std::move(reused));
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
