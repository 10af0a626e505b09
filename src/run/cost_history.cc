#include "run/cost_history.h"

#include <algorithm>
#include <set>

#include "store/run_finder.h"
#include "store/run_id.h"
#include "store/verify.h"

namespace pi_fusion::run {
namespace {

int64_t Median(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid] + 1) / 2;
}

bool SameRole(const RoleSample& sample, Slot role) {
  switch (role) {
    case Slot::kCandidate1:
    case Slot::kCandidate2:
    case Slot::kCandidate3:
      return sample.candidate;
    case Slot::kEvaluator:
      return !sample.candidate && sample.stage == Stage::kEvaluation;
    case Slot::kMerger:
      break;
  }
  return !sample.candidate && sample.stage == Stage::kMerge;
}

}  // namespace

std::vector<RoleSample> SamplesOf(const store::Manifest& manifest) {
  std::vector<RoleSample> samples;
  if (manifest.state != store::RunState::kCompleted) return samples;
  for (const store::AttemptRecord& attempt : manifest.attempts) {
    // First attempts only: the repair (evaluation attempt 2) is conditional and not estimated so.
    if (attempt.key.attempt != 1 || attempt.reused_from || !attempt.usage) continue;
    // The order check is conditional too (only an evaluation with conflicts asks it).
    if (attempt.key.stage == Stage::kOrderCheck) continue;
    RoleSample sample;
    sample.run_id = manifest.run_id;
    sample.stage = attempt.key.stage;
    if (attempt.key.stage == Stage::kCandidate) {
      if (!attempt.key.slot || *attempt.key.slot < 1 || *attempt.key.slot > 3) continue;
      sample.candidate = true;
      sample.route =
          manifest.models.candidates[static_cast<size_t>(*attempt.key.slot - 1)].QualifiedId();
    } else {
      sample.route = (attempt.key.stage == Stage::kEvaluation ? manifest.models.evaluator
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
  for (size_t i = 0; i < kAllSlots.size(); ++i) {
    std::vector<int64_t> input;
    std::vector<int64_t> output;
    std::set<std::string> runs;
    for (const RoleSample& sample : samples) {
      if (sample.route != routes[i] || !SameRole(sample, kAllSlots[i])) continue;
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
  for (const store::FoundRun& found : store::FindRuns(fs, cwd)) {
    if (!found.run_id.starts_with(std::string(workflow) + "-")) continue;
    Result<store::Manifest> manifest = store::ReadManifest(fs, found.dir);
    if (manifest.ok() && manifest->state == store::RunState::kCompleted &&
        manifest->run_id == found.run_id) {
      runs.push_back(std::move(manifest).value());
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

}  // namespace pi_fusion::run
