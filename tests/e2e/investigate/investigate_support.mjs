/**
 * @file Shared pieces of the fusion_investigate end-to-end suites: a fixture project, scripts in
 * which the candidates use Pi's file tools before answering, the agent's side of a tool launch,
 * and readers for the run directory and its audit logs.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fusionRules, STAGE } from "../../support/fusion_script.mjs";
import { REPO_ROOT } from "../../support/pi_harness.mjs";
import { assertConforms } from "../../support/schema_check.mjs";

export { runDirs } from "../../support/fusion_runs.mjs";

export const PLUGIN = path.join(REPO_ROOT, "extensions", "fusion.ts");
export const WRAPPER = path.join(path.dirname(new URL(import.meta.url).pathname), "fixtures", "tamper-child.sh");
export const RUN_TIMEOUT_MS = 180000;
export const INSPECT_TOOLS = ["read", "grep", "find", "ls"];

/**
 * The project the candidates inspect. It is a git repository: Pi's find passes fd
 * `--no-require-git` outside one, which Debian 12's fd 8.6 does not know (docs/tools/fusion_investigate.md).
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
 * The agent's side: ask -> fusion_investigate -> receipt -> terminal notice -> bg_result ->
 * `finalText` (or "noted" after a failure notice). Stage rules come before the launch rules
 * because candidate inputs also carry the request text.
 */
export function agentFlowRules(candidates, finalText = "FINAL: {{tool_results}}", args = INVESTIGATE_ARGS) {
  return [
    { name: "after-result", match: { last_role: "tool", tool_result: "(verified)" }, responses: [{ text: finalText }] },
    { name: "wake", match: { text: "completed. Call bg_result" }, responses: [{ tool_calls: [{ name: "bg_result", arguments: { taskId: "investigate-" } }] }] },
    { name: "failed", match: { text: "Fusion failed" }, responses: [{ text: "noted" }] },
    { name: "after-receipt", match: { last_role: "tool", tool_result: "Started fusion investigate in the background" }, responses: [{ text: "Launched; waiting." }] },
    ...stageRules(candidates),
    { name: "ask", match: { text: "please investigate" }, responses: [{ tool_calls: [{ name: "fusion_investigate", arguments: args }] }] },
  ];
}

export function readJson(file) {
  return JSON.parse(fs.readFileSync(file, "utf8"));
}

export function sha256(bytes) {
  return `sha256:${crypto.createHash("sha256").update(bytes).digest("hex")}`;
}

/** Journal records and seal of candidate `slot`, checked the way the parent checks them. */
export function auditLog(dir, slot) {
  const prefix = path.join(dir, `candidate-${slot}.attempt-1`);
  const journal = fs.readFileSync(`${prefix}.tool-calls.jsonl`, "utf8");
  const seal = readJson(`${prefix}.seal.json`);
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
