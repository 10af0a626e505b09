/**
 * @file Shared pieces of the fusion_investigate end-to-end suites (and of research's, whose
 * candidates inspect the same project): a fixture project, scripts in which the candidates use
 * Pi's file tools before answering, the agent's side of a tool launch, and readers for a
 * candidate's audit log.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { agentRules, fusionRules, MERGED_TEXT, STAGE } from "../../support/fusion_script.mjs";
import { artifactJson, artifactText, withFusionEnv } from "../../support/fusion_runs.mjs";
import { offeredTools } from "../../support/pi_harness.mjs";
import { assertConforms } from "../../support/schema_check.mjs";

export const WRAPPER = path.join(path.dirname(new URL(import.meta.url).pathname), "fixtures", "tamper-child.sh");
/** Candidates that walk the project take longer than a reason run's. */
export const RUN_TIMEOUT_MS = 180000;
export const INSPECT_TOOLS = ["read", "grep", "find", "ls"];

/**
 * The project the candidates inspect: a git repository (`.git/HEAD`), so that fd and ripgrep
 * honour ignore files there; investigate_run.test.mjs also runs the tools without it.
 */
export const FIXTURE_FILES = {
  ".git/HEAD": "ref: refs/heads/main\n",
  "src/app.txt": "The answer is FORTY-TWO.\n",
  "docs/notes.md": "# Notes\nNothing secret here.\n",
};

export const INVESTIGATE_ARGS = {
  objective: "Find what answer the app gives",
  background: ["The project has a src folder"],
  deliverable: "One sentence naming the answer",
};

/** Rules for a candidate: `first` answers its first request (tool calls), then it quotes results. */
export function candidateRules(first, answer = "Candidate found: {{tool_results}}") {
  return [
    { name: "candidate-answer", match: { ...STAGE.candidate, last_role: "tool" }, responses: [{ text: answer }] },
    { name: "candidate-tools", match: { ...STAGE.candidate, last_role: "user" }, responses: first },
  ];
}

/** The evaluator, repair and merger of fusion_script, with the candidate rules given. */
export function stageRules(candidates) {
  return [...fusionRules().filter((r) => r.name !== "candidate"), ...candidates];
}

/** The four file tools, each used once on the fixture. */
export const FILE_TOOL_CALLS = [
  { name: "read", arguments: { path: "src/app.txt" } },
  { name: "grep", arguments: { pattern: "FORTY", path: "." } },
  { name: "find", arguments: { pattern: "*.md" } },
  { name: "ls", arguments: { path: "src" } },
];

/**
 * The agent's side of a clean-task launch (agentRules()): ask ("please <workflow>") ->
 * fusion_<workflow>(`args`) -> receipt -> terminal notice -> bg_result -> `final` (or "noted"
 * after a failure notice), with the evaluator, repair and merger of fusion_script and the
 * candidate rules given.
 */
export function cleanTaskAgentRules(workflow, args, candidates, final) {
  return agentRules({ workflow, args, ask: `please ${workflow}`, final, failedReply: "noted", stages: stageRules(candidates) });
}

/** cleanTaskAgentRules() of fusion_investigate, by default with INVESTIGATE_ARGS. */
export function agentFlowRules(candidates, final, args = INVESTIGATE_ARGS) {
  return cleanTaskAgentRules("investigate", args, candidates, final);
}

/** withFusionEnv() over the fixture project, with the time an investigate run may take. */
export function withFixtureEnv(options, body) {
  return withFusionEnv({ files: FIXTURE_FILES, timeoutMs: RUN_TIMEOUT_MS, ...options }, body);
}

/** Journal records and seal of candidate `slot`, checked the way the parent checks them. */
export function auditLog(dir, slot) {
  const prefix = `candidate-${slot}.attempt-1`;
  const journal = artifactText(dir, `${prefix}.tool-calls.jsonl`);
  const seal = artifactJson(dir, `${prefix}.seal.json`);
  const records = journal.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  return { journal, seal, records };
}

/**
 * Holds a candidate's real journal (every line) and seal to their published schemas
 * (schemas/artifacts/fusion-tool-call.v1.json, fusion-tool-call-seal.v1.json).
 */
export function assertAuditLogSchemas(dir, slot) {
  const prefix = path.join(dir, `candidate-${slot}.attempt-1`);
  assertConforms("fusion-tool-call.v1.json", `${prefix}.tool-calls.jsonl`, { jsonl: true });
  assertConforms("fusion-tool-call-seal.v1.json", `${prefix}.seal.json`);
}

/** Requests the candidates sent (their stdin line is the last user text). */
export function candidateRequests(env) {
  return env.requests().filter((q) => q.last_user_text.includes(STAGE.candidate.text));
}

/** The tool results each candidate received after its tool batch: [{name, text, is_error}] per candidate. */
export function candidateBatches(env) {
  return candidateRequests(env).filter((q) => q.last_role === "tool").map((q) => q.tool_results);
}

/** Asserts that every candidate request offered the model exactly `tools`. */
export function assertCandidatesOffered(env, tools) {
  for (const q of candidateRequests(env)) assert.deepEqual(offeredTools(q).sort(), [...tools].sort());
}

/** Runs "please investigate" in print mode, checks that the merged answer came back, and returns the three candidates' tool batches. */
export async function investigateBatches(env) {
  const r = await env.print("please investigate");
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(MERGED_TEXT), r.stdout);
  const batches = candidateBatches(env);
  assert.equal(batches.length, 3);
  return batches;
}
