#include "run/preflight.h"

#include <array>

#include "budget/cost_cap.h"
#include "budget/plan_json.h"
#include "config/config_store.h"
#include "config/panels.h"
#include "core/error_codes.h"
#include "pi_fusion/canonical_json.h"
#include "process/child_command.h"
#include "run/child_stage.h"
#include "run/cost_history.h"
#include "run/resume_inputs.h"
#include "store/constants.h"
#include "store/run_id.h"
#include "url/source_policy_file.h"
#include "workflow/child_wrapper.h"
#include "workflow/clean_task.h"
#include "workflow/context_projection.h"
#include "workflow/stage_inputs.h"
#include "workflow/validation_findings.h"
#include "workflow/workflow_constants.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::run {
namespace {

using nlohmann::json;

// The rendered stage prompts the planner measures: upstream outputs are still unknown, so they
// are rendered empty and the planner reserves their contract sizes.
struct RenderedStages {
  std::string candidate_system, candidate_user;
  std::string evaluation_system, evaluation_user;
  std::string repair_system, repair_user;
  std::string merge_system, merge_user;
};

// Validate's stages get their own prompts, and its blind input carries the (empty) source
// findings, so the plan measures what those children will receive.
Result<RenderedStages> RenderStages(const workflow::WorkflowSpec& spec,
                                    const workflow::CanonicalDocument& input,
                                    workflow::CandidateSet set, bool evaluator_tools) {
  const bool validate = spec.shape == workflow::StageShape::kValidation;
  RenderedStages out;
  out.candidate_system = workflow::CandidateSystemPromptOf(spec);
  out.candidate_user = workflow::CandidateStdin(input);
  std::vector<workflow::AnonymousCandidate> empty = {{"A", ""}, {"B", ""}, {"C", ""}};
  Result<workflow::CanonicalDocument> blind =
      validate ? workflow::BuildValidationBlindInput(input, {{"A", {}}, {"B", {}}, {"C", {}}})
               : workflow::BuildBlindInput(input, empty);
  if (!blind.ok()) return blind.status();
  out.evaluation_system = workflow::EvaluatorSystemPromptOf(spec, set, evaluator_tools);
  out.evaluation_user = blind->bytes;
  Result<workflow::CanonicalDocument> repair = workflow::BuildRepairInput(*blind, "", {});
  if (!repair.ok()) return repair.status();
  out.repair_system = workflow::RepairSystemPromptOf(spec, set, evaluator_tools);
  out.repair_user = repair->bytes;
  Result<workflow::CanonicalDocument> merge =
      workflow::BuildMergeInput(input, empty, json::object());
  if (!merge.ok()) return merge.status();
  out.merge_system = workflow::MergerSystemPromptOf(spec, set, evaluator_tools);
  out.merge_user = merge->bytes;
  return out;
}

Result<budget::BudgetPlan> PlanRun(const PreparedRun& run, const workflow::WorkflowSpec& spec) {
  Result<RenderedStages> stages =
      RenderStages(spec, run.canonical_input, CandidateSetOf(run),
                   workflow::EvaluatorHasTools(spec, run.policy.evaluator_tools));
  if (!stages.ok()) return stages.status();
  budget::PlanInput input;
  input.workflow = spec.workflow;
  for (size_t i = 0; i < kAllSlots.size(); ++i) {
    const config::ModelInfo& model = run.models.routes[i].model;
    input.routes[i] = {kAllSlots[i], model.provider, model.id, model.context_window,
                       model.max_tokens};
  }
  input.candidate = {stages->candidate_system, stages->candidate_user};
  input.evaluation = {stages->evaluation_system, stages->evaluation_user};
  input.evaluation_repair = {stages->repair_system, stages->repair_user};
  input.merge = {stages->merge_system, stages->merge_user};
  // Validate's evaluator reads each review twice: whole, and as validation_source_findings.
  input.evaluation_answer_copies = spec.shape == workflow::StageShape::kValidation ? 2 : 1;
  const std::string request = run.request.request.canonical;
  input.request = request;
  const json& context = run.canonical_input.value.at("context");
  const std::string history =
      context.contains("conversation") ? CanonicalJson(context.at("conversation")) : "";
  input.history = history;
  return budget::PlanBudget(input);
}

// Each route's prices as Pi's model object gave them, and whether its login is a subscription.
std::array<budget::RoutePricing, 5> PricingOf(const config::ResolvedModels& models) {
  std::array<budget::RoutePricing, 5> out;
  for (size_t i = 0; i < kAllSlots.size(); ++i) {
    const config::ModelInfo& model = models.routes[i].model;
    if (model.prices) {
      out[i].prices = budget::TokenPrices{model.prices->input, model.prices->output,
                                          model.prices->cache_read, model.prices->cache_write};
    }
    out[i].subscription = model.is_using_oauth && model.oauth_is_subscription;
  }
  return out;
}

store::RunModels RunModelsOf(const config::ResolvedModels& models) {
  store::RunModels out;
  for (size_t i = 0; i < 3; ++i) {
    out.candidates[i] = {models.routes[i].model.provider, models.routes[i].model.id};
  }
  out.evaluator = {models.route(Slot::kEvaluator).model.provider,
                   models.route(Slot::kEvaluator).model.id};
  out.merger = {models.route(Slot::kMerger).model.provider, models.route(Slot::kMerger).model.id};
  out.thinking_level = models.thinking_level;
  const store::RoleThinkingLevels levels{models.ThinkingOf(Role::kCandidate),
                                         models.ThinkingOf(Role::kEvaluator),
                                         models.ThinkingOf(Role::kMerger)};
  if (levels.candidates != out.thinking_level || levels.evaluator != out.thinking_level ||
      levels.merger != out.thinking_level) {
    out.role_thinking = levels;
  }
  return out;
}

// policy.evaluator_tools gives the evaluator (not its repair) the candidates' tools.
json ToolPolicy(const workflow::WorkflowSpec& spec, bool evaluator_tools) {
  return {
      {"candidate_tools", process::CapabilityTools(spec.candidate_capability)},
      {"evaluator_tools",
       evaluator_tools ? json(process::CapabilityTools(spec.candidate_capability)) : json::array()},
      {"merger_tools", json::array()},
      {"excluded_tools", workflow::ChildDeniedTools()}};
}

// source-policy.private.json of a research run: the normalized request's declared URLs (already
// canonical), in declaration order.
Result<std::string> SourcePolicyBytes(const std::string& run_id,
                                      const schema::NormalizedRequest& request) {
  url::SourcePolicy policy{run_id, {}};
  for (const json& source : request.request.at("sources")) {
    policy.declared_urls.push_back(source.at("url").get<std::string>());
  }
  return url::SourcePolicyJson(policy);
}

// The checks the run's policy adds on the evaluator's route: only the fusion sequence runs them,
// and a resumed run reuses the agreement decision with candidates 1 and 2 (run/agreement_stage.h).
budget::JudgeChecks ChecksOf(const PreparedRun& run) {
  const bool fusion =
      workflow::SpecOf(run.request.request.workflow).shape == workflow::StageShape::kFusion;
  const bool decided = ReusedCandidateOf(run, 1) != nullptr && ReusedCandidateOf(run, 2) != nullptr;
  return {.adaptive = fusion && run.policy.adaptive && !decided,
          .order_check = fusion && run.policy.order_check == config::OrderCheck::kOnConflict};
}

// The forecast of what this run will spend: a resumed run does not pay again for the candidates
// (and the evaluation) it reuses. The expected figures come from this project's earlier runs of
// the workflow on the same routes when there are enough (run/cost_history.h).
budget::CostForecast ForecastOf(const PreparedRun& run) {
  budget::BudgetPlan plan = run.plan;
  std::erase_if(plan.stages, [&](const budget::StageForecast& stage) {
    if (stage.stage == Role::kCandidate) {
      return ReusedCandidateOf(run, stage.slot) != nullptr;
    }
    return ReusedEvaluationOf(run) != nullptr &&
           (stage.stage == Role::kEvaluator || stage.stage == Role::kRepair);
  });
  std::array<std::string, 5> routes;
  for (size_t i = 0; i < routes.size(); ++i) routes[i] = run.plan.routes[i].QualifiedId();
  const std::vector<RoleSample> samples =
      ProjectSamples(*run.seams.fs, run.request.host.cwd, Name(run.request.request.workflow));
  return budget::ForecastCost(plan, PricingOf(run.models), ObservedFrom(samples, routes),
                              ChecksOf(run));
}

// Whether two project paths name one directory: equal, or equal once every symlink is resolved
// (a project opened once through a link and once by its real path is the same project).
bool SameProject(FileSystem& fs, const std::string& a, const std::string& b) {
  if (a == b) return true;
  Result<std::string> real_a = fs.RealPath(a);
  Result<std::string> real_b = fs.RealPath(b);
  return real_a.ok() && real_b.ok() && *real_a == *real_b;
}

// /fusion-resume: the old run read back and verified, its canonical input (`*input`) and its
// request normalized again, and the run started in this same project (its candidates' file tools
// are confined to it).
Result<std::shared_ptr<const store::ResumeSource>> ReadResume(FileSystem& fs, RunRequest& request,
                                                              workflow::CanonicalDocument* input) {
  Result<store::ResumeSource> source = store::ReadResumeSource(fs, request.resume_run_dir);
  if (!source.ok()) return source.status();
  if (!SameProject(fs, source->manifest.cwd, request.host.cwd)) {
    return Status::Error(kRunNotResumable,
                         "run " + source->manifest.run_id + " cannot be resumed here: it ran in " +
                             source->manifest.cwd + ", Pi runs in " + request.host.cwd);
  }
  Result<workflow::CanonicalDocument> old_input = ResumedCanonicalInput(*source);
  if (!old_input.ok()) return old_input.status();
  Result<schema::NormalizedRequest> resumed = ResumedRequest(*source, *old_input);
  if (!resumed.ok()) return resumed.status();
  request.request = std::move(resumed).value();
  *input = std::move(old_input).value();
  return std::make_shared<const store::ResumeSource>(std::move(source).value());
}

Result<workflow::CanonicalDocument> CanonicalInput(const RunRequest& request,
                                                   workflow::CanonicalDocument* ledger) {
  if (workflow::SpecOf(request.request.workflow).context == workflow::ContextPolicy::kCleanTask) {
    return workflow::BuildCleanTaskInput(request.host.cwd, request.request);
  }
  workflow::SessionProjectionRequest projection{request.host.cwd, request.host.branch, std::nullopt,
                                                request.request};
  if (!request.host.tool_call_id.empty())
    projection.active_tool_call_id = request.host.tool_call_id;
  Result<workflow::SessionProjection> projected = workflow::ProjectSession(projection);
  if (!projected.ok()) return projected.status();
  *ledger = std::move(projected->ledger);
  return std::move(projected->input);
}

// The routes a run runs on: the chosen panel's (or the top-level cast); for a resumed run, the
// old run's, but for the slots the person named instead (SwapRoutes).
Result<config::ModelsConfig> RoutesOf(const RunRequest& request, const store::ResumeSource* resume,
                                      const config::ModelsConfig& configured) {
  if (!resume) return configured;
  return SwapRoutes(*resume, request.route_swaps,
                    PinnedRoutes(resume->manifest.models, configured));
}

// /fusion-resume @<panel>: the panel's route for every slot the resume does not reuse becomes a
// swap like --slot's (an explicit --slot still wins), so the receipt and config.route_changes
// say what changed; a slot whose route stays the same is no change.
std::vector<RouteSwap> WithPanelSwaps(const store::ResumeSource& resume,
                                      const config::ModelsConfig& panel,
                                      std::vector<RouteSwap> explicit_swaps) {
  std::vector<RouteSwap> swaps;
  for (RouteSwap& swap : PanelSwaps(resume, panel, explicit_swaps)) {
    if (swap.route != SlotRoute(resume.manifest.models, swap.slot).QualifiedId()) {
      swaps.push_back(std::move(swap));
    }
  }
  swaps.insert(swaps.end(), explicit_swaps.begin(), explicit_swaps.end());
  return swaps;
}

// The panel a run uses (config::ChoosePanel). A resume without @<panel> keeps the old run's
// routes and levels: its panel, when the file still has it, gives only the policy (else the
// top-level one applies).
Result<config::PanelChoice> PanelOf(const RunRequest& request, const store::ResumeSource* resume,
                                    const config::ModelsConfig& config) {
  if (!resume || !request.panel.empty()) return config::ChoosePanel(config, request.panel);
  const std::optional<std::string>& old = resume->manifest.panel;
  if (old && config.panels.contains(*old)) return config::ChoosePanel(config, *old);
  config::ModelsConfig top_level = config;
  top_level.default_panel.reset();
  return config::ChoosePanel(top_level, "");
}

// What the manifest's config records of a resume's swapped routes: [{slot, from, to}], the old
// run's route and the one this run admitted, per slot the person named.
json RouteChanges(const PreparedRun& run, const store::RunModels& now) {
  json changes = json::array();
  for (const RouteSwap& swap : run.request.route_swaps) {
    changes.push_back({{"slot", SlotId(swap.slot)},
                       {"from", SlotRoute(run.resume->manifest.models, swap.slot).QualifiedId()},
                       {"to", SlotRoute(now, swap.slot).QualifiedId()}});
  }
  return changes;
}

// `routes` admitted against the host's registry. A resumed run's are the old run's routes,
// admitted again now, with its thinking level; a refusal then names the old run.
Result<config::ResolvedModels> AdmitRoutes(const config::ModelsConfig& routes,
                                           const HostSnapshot& host,
                                           const store::ResumeSource* resume) {
  Result<config::ResolvedModels> models = config::AdmitModels(routes, host.registry);
  if (!resume) return models;
  if (!models.ok()) {
    return Status::Error(models.status().code(),
                         "the routes of run " + resume->manifest.run_id +
                             ", admitted again for its resume: " + models.status().message());
  }
  models->thinking_level = resume->manifest.models.thinking_level;
  if (const auto& old = resume->manifest.models.role_thinking) {
    models->role_thinking = {old->candidates, old->evaluator, old->merger};
  }
  return models;
}

// What the run directory records of the run before anything is written: its identity and the
// configuration it runs under (the routes as admitted, the file's revision, each stage's
// capability and the candidates' context and tool policy).
Result<store::RunSpec> RunSpecOf(const PreparedRun& run, const config::ModelsConfig& routes,
                                 const config::Revision& revision,
                                 const workflow::WorkflowSpec& workflow_row, std::string run_id) {
  store::RunSpec spec;
  spec.run_id = std::move(run_id);
  spec.source = run.request.source;
  spec.cwd = run.request.host.cwd;
  spec.session_id = run.request.host.session_id;
  spec.pid = static_cast<long>(run.request.host.pid);
  if (run.resume) spec.resumed_from = run.resume->manifest.run_id;
  if (!run.panel.empty()) spec.panel = run.panel;
  Result<std::string> models_json = config::SerializeModelsConfig(routes);
  if (!models_json.ok()) return models_json.status();
  spec.config = {{"models", json::parse(*models_json)},
                 {"revision", config::RevisionToJson(revision)},
                 {"routes", config::ResolvedModelsToJson(run.models)}};
  spec.models = RunModelsOf(run.models);
  if (run.resume && !run.request.route_swaps.empty()) {
    spec.config["route_changes"] = RouteChanges(run, spec.models);
  }
  const bool evaluator_tools =
      workflow::EvaluatorHasTools(workflow_row, run.policy.evaluator_tools);
  spec.capabilities = {
      {"candidate", process::ChildCapabilityName(workflow_row.candidate_capability)},
      {"evaluator", process::ChildCapabilityName(evaluator_tools ? workflow_row.candidate_capability
                                                                 : workflow::kJudgeCapability)},
      {"merger", process::ChildCapabilityName(workflow::kJudgeCapability)}};
  spec.context = {{"policy", workflow::ContextPolicyName(workflow_row.context)}};
  spec.tool_policy = ToolPolicy(workflow_row, evaluator_tools);
  return spec;
}

// The run's first artifacts (the canonical input, the budget plan, the context ledger, research's
// source policy), then the plan's and the cost cap's verdicts on the run. After the plan: a run
// that cannot fit its routes is refused for that, whatever it would cost. Either refusal is
// recorded like a failure, so the run list and the failure summary show it and budget-plan.json
// beside it explains the minimum.
Status WriteFirstArtifacts(PreparedRun& run, const workflow::CanonicalDocument& ledger,
                           const workflow::WorkflowSpec& workflow_row) {
  std::vector<std::pair<std::string, std::string>> artifacts = {
      {store::kCanonicalInputFile, run.canonical_input.bytes},
      {"budget-plan.json", budget::BudgetPlanBytes(run.plan)}};
  if (!ledger.bytes.empty()) artifacts.emplace_back(store::kContextLedgerFile, ledger.bytes);
  if (workflow_row.declares_sources) {
    Result<std::string> policy = SourcePolicyBytes(run.store->run_id(), run.request.request);
    if (!policy.ok()) return policy.status();
    artifacts.emplace_back(std::string(url::kSourcePolicyFile), *policy);
  }
  for (const auto& [name, bytes] : artifacts) {
    Result<store::ArtifactRef> ref = run.store->WriteArtifact(name, bytes);
    if (!ref.ok()) return ref.status();
    if (name == url::kSourcePolicyFile) run.source_policy = *ref;
  }
  if (run.plan.blocked()) return budget::CheckPlan(run.plan);
  return budget::CheckCostCapBeforeRun(run.policy.max_cost_usd, run.plan, run.cost_forecast);
}

}  // namespace

Result<PreparedRun> Preflight(RunRequest request, const RunSeams& seams,
                              PreflightFailure* failure) {
  FileSystem& fs = *seams.fs;
  const Clock& clock = *seams.clock;
  config::ConfigStore config_store(request.host.agent_dir, fs, clock);
  // Messages that send the user to /fusion-models name the file it edits.
  auto fail = [&](Status status) -> Result<PreparedRun> {
    status = config::NameConfigFile(std::move(status), config_store.path());
    failure->status = status;
    return status;
  };

  // Before anything is read or created: a bad debugging wrapper stops the run at once.
  Result<std::string> wrapper = workflow::ChildWrapperOf(request.host.environment);
  if (!wrapper.ok()) return fail(wrapper.status());

  std::shared_ptr<const store::ResumeSource> resume;
  workflow::CanonicalDocument resumed_input;
  if (!request.resume_run_dir.empty()) {
    Result<std::shared_ptr<const store::ResumeSource>> read =
        ReadResume(fs, request, &resumed_input);
    if (!read.ok()) return fail(read.status());
    resume = *std::move(read);
  }
  // After the resume's read: a resumed run's request (and so its workflow) is the old run's.
  const workflow::WorkflowSpec& workflow_row = workflow::SpecOf(request.request.workflow);

  Result<config::LoadedConfig> loaded = config_store.Load();
  if (!loaded.ok()) return fail(config::AddConfigFix(loaded.status()));
  Result<config::PanelChoice> panel = PanelOf(request, resume.get(), loaded->config);
  if (!panel.ok()) return fail(panel.status());
  if (resume && !request.panel.empty()) {
    request.route_swaps = WithPanelSwaps(*resume, panel->cast, std::move(request.route_swaps));
  }
  // A resumed run keeps the old run's routes (but those the person swapped), admitted again now;
  // the policy is today's (its panel's).
  Result<config::ModelsConfig> chosen = RoutesOf(request, resume.get(), panel->cast);
  if (!chosen.ok()) return fail(chosen.status());
  const config::ModelsConfig& routes = *chosen;
  Result<config::ResolvedModels> models = AdmitRoutes(routes, request.host, resume.get());
  if (!models.ok()) return fail(models.status());
  // A fresh run, or a resume onto a named panel: that panel's levels (a resume's inherit the old
  // run's level, as its children did).
  if (!resume || !request.panel.empty()) models->role_thinking = panel->thinking;

  workflow::CanonicalDocument ledger;
  Result<workflow::CanonicalDocument> input =
      resume ? Result<workflow::CanonicalDocument>(std::move(resumed_input))
             : CanonicalInput(request, &ledger);
  if (!input.ok()) return fail(input.status());
  if (resume && resume->context_ledger) ledger.bytes = *resume->context_ledger;

  PreparedRun run;
  run.resume = resume;
  run.request = std::move(request);
  run.seams = seams;
  run.models = std::move(models).value();
  run.policy = routes.policy;
  // A resume without @<panel> runs on the old run's routes: it names the old run's panel.
  run.panel =
      resume && run.request.panel.empty() ? resume->manifest.panel.value_or("") : panel->name;
  run.canonical_input = std::move(input).value();
  run.child_wrapper = std::move(wrapper).value();
  Result<budget::BudgetPlan> plan = PlanRun(run, workflow_row);
  if (!plan.ok()) return fail(plan.status());
  run.plan = std::move(plan).value();
  run.cost_forecast = ForecastOf(run);

  Result<std::string> run_id = store::NewRunId(workflow_row.workflow, *seams.random);
  if (!run_id.ok()) return fail(run_id.status());
  Result<store::RunSpec> spec =
      RunSpecOf(run, routes, loaded->revision, workflow_row, *std::move(run_id));
  if (!spec.ok()) return fail(spec.status());
  Result<std::unique_ptr<store::RunStore>> store = store::RunStore::Create(fs, clock, *spec);
  if (!store.ok()) return fail(store.status());
  run.store = std::move(store).value();
  failure->artifact_dir = run.store->run_dir();

  // From here on a failure is recorded in the run directory as itself (a full disk stays a full
  // disk), so no later reader mistakes the half-made run for one whose host died.
  auto fail_run = [&](Status status) -> Result<PreparedRun> {
    run.store->Fail(store::RunState::kFailed,
                    {status.code(), status.message(), std::nullopt, std::nullopt, std::nullopt});
    return fail(status);
  };
  if (Status written = WriteFirstArtifacts(run, ledger, workflow_row); !written.ok()) {
    return fail_run(written);
  }
  return run;
}

}  // namespace pi_fusion::run
