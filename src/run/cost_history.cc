#include "run/cost_history.h"

#include <algorithm>
#include <set>

#include "store/run_id.h"
#include "store/verify.h"

namespace pi_fusion::workflow {
namespace {

int64_t Median(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid] + 1) / 2;
}

bool SameRole(const RoleSample& sample, budget::RouteRole role) {
  switch (role) {
    case budget::RouteRole::kCandidate1:
    case budget::RouteRole::kCandidate2:
    case budget::RouteRole::kCandidate3:
      return sample.candidate;
    case budget::RouteRole::kEvaluator:
      return !sample.candidate && sample.stage == store::Stage::kEvaluation;
    case budget::RouteRole::kMerger:
      break;
  }
  return !sample.candidate && sample.stage == store::Stage::kMerge;
}

}  // namespace

std::vector<RoleSample> SamplesOf(const store::Manifest& manifest) {
  std::vector<RoleSample> samples;
  if (manifest.state != store::RunState::kCompleted) return samples;
  for (const store::AttemptRecord& attempt : manifest.attempts) {
    // First attempts only: the repair (evaluation attempt 2) is conditional and not estimated so.
    if (attempt.key.attempt != 1 || attempt.reused_from || !attempt.usage) continue;
    RoleSample sample;
    sample.run_id = manifest.run_id;
    sample.stage = attempt.key.stage;
    if (attempt.key.stage == store::Stage::kCandidate) {
      if (!attempt.key.slot || *attempt.key.slot < 1 || *attempt.key.slot > 3) continue;
      sample.candidate = true;
      sample.route =
          manifest.models.candidates[static_cast<size_t>(*attempt.key.slot - 1)].QualifiedId();
    } else {
      sample.route = (attempt.key.stage == store::Stage::kEvaluation ? manifest.models.evaluator
                                                                     : manifest.models.merger)
                         .QualifiedId();
    }
    const store::Usage& usage = *attempt.usage;
    sample.input = static_cast<int64_t>(usage.input + usage.cache_read + usage.cache_write);
    sample.output = static_cast<int64_t>(usage.output);
    samples.push_back(std::move(sample));
  }
  return samples;
}

budget::ObservedRoles ObservedFrom(const std::vector<RoleSample>& samples,
                                   const std::array<std::string, 5>& routes) {
  budget::ObservedRoles observed;
  for (size_t i = 0; i < budget::kAllRoles.size(); ++i) {
    std::vector<int64_t> input;
    std::vector<int64_t> output;
    std::set<std::string> runs;
    for (const RoleSample& sample : samples) {
      if (sample.route != routes[i] || !SameRole(sample, budget::kAllRoles[i])) continue;
      input.push_back(sample.input);
      output.push_back(sample.output);
      runs.insert(sample.run_id);
    }
    if (static_cast<int>(runs.size()) < budget::kHistoryMinRuns) continue;
    observed[i] =
        budget::ObservedTokens{Median(input), Median(output), static_cast<int>(runs.size())};
  }
  return observed;
}

std::vector<RoleSample> ProjectSamples(FileSystem& fs, const std::string& cwd,
                                       std::string_view workflow) {
  std::vector<store::Manifest> runs;
  const std::string root = cwd + "/.pi/fusion";
  Result<std::vector<std::string>> sessions = fs.ListDir(root);
  if (!sessions.ok()) return {};
  for (const std::string& session : *sessions) {
    Result<std::vector<std::string>> names = fs.ListDir(root + "/" + session);
    if (!names.ok()) continue;
    for (const std::string& name : *names) {
      if (!store::IsValidRunId(name) || !name.starts_with(std::string(workflow) + "-")) continue;
      Result<store::Manifest> manifest = store::ReadManifest(fs, root + "/" + session + "/" + name);
      if (manifest.ok() && manifest->state == store::RunState::kCompleted &&
          manifest->run_id == name) {
        runs.push_back(std::move(manifest).value());
      }
    }
  }
  std::sort(runs.begin(), runs.end(), [](const store::Manifest& a, const store::Manifest& b) {
    return a.created_at > b.created_at;
  });
  if (runs.size() > static_cast<size_t>(budget::kHistoryMaxRuns)) {
    runs.resize(static_cast<size_t>(budget::kHistoryMaxRuns));
  }
  std::vector<RoleSample> samples;
  for (const store::Manifest& run : runs) {
    for (RoleSample& sample : SamplesOf(run)) samples.push_back(std::move(sample));
  }
  return samples;
}

}  // namespace pi_fusion::workflow
