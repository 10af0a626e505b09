/**
 * @file Scripts for the scripted model that play every role of a Fusion run: the three
 * candidates, the blind evaluator (valid fusion-evaluation.v1 JSON), its repair and the merger
 * (each stage is recognized by its stdin: the candidate instruction line or the schema id of the
 * stage input); the parent agent that launches a run with a tool and retrieves it with
 * bg_result; and Fusion's model config, which puts a slot on a route a rule can match alone.
 */
export const CANDIDATE_TEXT = "Candidate answer: the sky looks blue because air scatters short wavelengths more (Rayleigh scattering).";
export const MERGED_TEXT = "# Why the sky is blue\n\nSunlight is scattered by air molecules; shorter (blue) wavelengths scatter far more, so the sky looks blue.";

export const EVALUATION = {
  schema_version: "pi-background-tasks.fusion-evaluation.v1",
  candidate_assessments: ["A", "B", "C"].map((id) => ({
    candidate_id: id,
    summary: `Candidate ${id} explains Rayleigh scattering.`,
    strengths: ["correct mechanism"],
    limitations: [],
    useful_contributions: ["the wavelength dependence"],
    risks: [],
  })),
  agreements: ["Rayleigh scattering explains the colour"],
  conflicts: [],
  synthesis_plan: {
    must_include: [{ candidate_id: "A", contribution: "the mechanism" }],
    must_resolve: [],
    must_avoid: ["overclaiming"],
  },
};

/** A valid evaluation of exactly A and B: what the evaluator of a run that answers from two candidates writes. */
export const EVALUATION_AB = {
  ...EVALUATION,
  candidate_assessments: EVALUATION.candidate_assessments.filter((a) => a.candidate_id !== "C"),
};

export const STAGE = {
  candidate: { text: "Answer the request in the following JSON input" },
  evaluator: { text: "pi-background-tasks.fusion-blind-candidates.v1" },
  repair: { text: "pi-background-tasks.fusion-evaluation-repair-input.v1" },
  merger: { text: "pi-background-tasks.fusion-merge-input.v1" },
};

/** Rules answering every stage; `overrides` replaces a stage's responses. Order matters: the
 * repair and merge inputs embed the blind input, so they are matched first. */
export function fusionRules(overrides = {}) {
  const responses = {
    repair: [{ text: JSON.stringify(EVALUATION) }],
    merger: [{ text: MERGED_TEXT }],
    evaluator: [{ text: JSON.stringify(EVALUATION) }],
    candidate: [{ text: CANDIDATE_TEXT }],
    ...overrides,
  };
  return ["repair", "merger", "evaluator", "candidate"].map((stage) => ({
    name: stage,
    match: STAGE[stage],
    responses: responses[stage],
  }));
}

/**
 * Fixed usage per stage (no cache): Pi reports exactly these. At the scripted prices (input $0.50,
 * output $1.50 per million tokens) a run of three candidates, the evaluator and the merger uses
 * 17,600 tokens and costs $0.0104.
 */
export const STAGE_USAGE = {
  candidate: { input: 2000, output: 200, cache_read: 0, cache_write: 0, reasoning: 0 },
  evaluator: { input: 4000, output: 400, cache_read: 0, cache_write: 0, reasoning: 0 },
  merger: { input: 6000, output: 600, cache_read: 0, cache_write: 0, reasoning: 0 },
};

/**
 * fusionRules() with every stage's answers reporting `usages[stage]` (STAGE_USAGE unless given)
 * and holding the step keys of `extra[stage]` too.
 */
export function pricedRules(usages = STAGE_USAGE, extra = {}) {
  return fusionRules().map((rule) => {
    const usage = usages[rule.name];
    if (!usage) return rule;
    return { ...rule, responses: rule.responses.map((step) => ({ ...step, usage, ...(extra[rule.name] ?? {}) })) };
  });
}

/** The question of a reason run, and fusion_reason's arguments that ask it. */
export const QUESTION = "Why is the sky blue?";
export const REASON_ARGS = { prompt: QUESTION };

/** A model turn that calls one tool. */
export function callStep(name, args) {
  return { tool_calls: [{ name, arguments: args }] };
}

/**
 * The parent agent launching one run: `ask` (the user's prompt) -> fusion_<workflow>(`args`) ->
 * the receipt, answered by `afterReceipt`. `stages` (the children's rules, fusionRules() unless
 * given) come before the launch because a stage's input carries the request text too. Rule names
 * (`ask`, `after-receipt`) are what a test finds in the request log.
 */
export function launchRules({
  workflow = "reason", args = REASON_ARGS, ask = "please fuse", stages = fusionRules(),
  afterReceipt = [{ text: "Launched; waiting." }],
} = {}) {
  return [
    { name: "after-receipt", match: { last_role: "tool", tool_result: `Started fusion ${workflow} in the background` }, responses: afterReceipt },
    ...stages,
    { name: "ask", match: { text: ask }, responses: [callStep(`fusion_${workflow}`, args)] },
  ];
}

/**
 * The parent agent stopping a run it launched: its candidates stall, it calls bg_kill 1.5 s after
 * the receipt and answers `reply` (`{{tool_results}}` quotes bg_kill's answer) once bg_kill
 * returned; the cancellation notice gets "noted". Rules `after-kill`, `wake` and launchRules()'.
 */
export function killRules(reply = "KILLED") {
  return [
    { name: "after-kill", match: { last_role: "tool", tool_result: "killed" }, responses: [{ text: reply }] },
    { name: "wake", match: { text: "cancelled" }, responses: [{ text: "noted" }] },
    ...launchRules({
      stages: fusionRules({ candidate: [{ stall: true }] }),
      afterReceipt: [{ delay_ms: 1500, ...callStep("bg_kill", { taskId: "reason-" }) }],
    }),
  ];
}

/** The agent's answer once bg_result returned a verified result (`{{tool_results}}` quotes it). */
export function resultRule(final = "FINAL: {{tool_results}}") {
  return { name: "after-result", match: { last_role: "tool", tool_result: "(verified)" }, responses: [{ text: final }] };
}

/** The terminal notice (its text holds `notice`) wakes the agent, which calls bg_result for the run. */
export function wakeRule(workflow = "reason", notice = "completed. Call bg_result") {
  return { name: "wake", match: { text: notice }, responses: [callStep("bg_result", { taskId: `${workflow}-` })] };
}

/**
 * The whole cycle of a tool launch: launchRules(), then the terminal notice wakes the agent, it
 * calls bg_result and answers `final`; with `failedReply`, a failure notice is answered with it.
 * Order matters: the wake notice stays the last user text while the agent handles bg_result's
 * result, so the after-result rule comes first.
 */
export function agentRules({ final, failedReply, ...launch } = {}) {
  return [
    resultRule(final),
    wakeRule(launch.workflow),
    ...(failedReply === undefined ? [] : [{ name: "failed", match: { text: "Fusion failed" }, responses: [{ text: failedReply }] }]),
    ...launchRules(launch),
  ];
}

/**
 * A later Pi's agent asking about run `taskId`: the prompt `ask` -> one call of each of `tools`
 * -> `reply` (`{{tool_results}}` quotes what they said).
 */
export function lookupRules(taskId, { tools = ["bg_result"], ask = "get it", reply = "SEEN: {{tool_results}}" } = {}) {
  return [
    { match: { last_role: "tool" }, responses: [{ text: reply }] },
    { match: { text: ask }, responses: [{ tool_calls: tools.map((name) => ({ name, arguments: { taskId } })) }] },
  ];
}

/** The schema id of Fusion's model config. */
export const FUSION_MODELS_V1 = "pi-background-tasks.fusion-models.v1";
/** The schema id of Fusion's model config with a run policy (quorum, grace, cost cap). */
export const FUSION_MODELS_V2 = "pi-background-tasks.fusion-models.v2";

/** Candidate 2 on scripted-b, every other slot on scripted-a: a rule matching scripted-b scripts candidate 2 alone. */
export const SECOND_CANDIDATE_ON_B = {
  candidates: ["scripted/scripted-a", "scripted/scripted-b", "scripted/scripted-a"],
  evaluator: "scripted/scripted-a",
  merger: "scripted/scripted-a",
};

/** Writes Fusion's model config (`fusion-models.json` in `env`'s agent dir); returns its path. */
export function writeFusionModels(env, models) {
  return env.writeAgentFile("fusion-models.json", JSON.stringify({ schema_version: FUSION_MODELS_V1, ...models }));
}

/**
 * Writes Fusion's model config with a run policy (fusion-models.v2): `policy` holds any of
 * quorum, grace_seconds and max_cost_usd (defaults 3, null, null). Returns its path.
 */
export function writeFusionModelsV2(env, models, policy) {
  const full = { quorum: 3, grace_seconds: null, max_cost_usd: null, ...policy };
  return env.writeAgentFile("fusion-models.json", JSON.stringify({ schema_version: FUSION_MODELS_V2, ...models, policy: full }));
}

/** Candidate 3 on scripted-b, every other slot on scripted-a: a rule matching scripted-b scripts candidate 3 alone. */
export const THIRD_CANDIDATE_ON_B = {
  candidates: ["scripted/scripted-a", "scripted/scripted-a", "scripted/scripted-b"],
  evaluator: "scripted/scripted-a",
  merger: "scripted/scripted-a",
};

/** fusionRules() with candidate 3 (on scripted-b, THIRD_CANDIDATE_ON_B) answering only after `delayMs`. */
export function slowThirdCandidateRules(delayMs) {
  return [
    { name: "slow-third", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ text: CANDIDATE_TEXT, delay_ms: delayMs }] },
    ...fusionRules(),
  ];
}
