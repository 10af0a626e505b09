#!/usr/bin/env node
/**
 * @file Adaptive panel benchmark: what `policy.panel: "adaptive"` saves and costs against a full
 * panel on the same questions. Writes bench/results/adaptive.md with RATIOS against the full runs
 * measured in the same process (never a pass/fail on wall time).
 *
 *   <pinned node> bench/adaptive/adaptive_bench.mjs [--runs N] [--latency MS] [--out FILE]
 *     --runs N       pairs of runs per question kind (default 3)
 *     --latency MS   every scripted model answer waits this long (default 1500)
 *     --out FILE     report path (default bench/results/adaptive.md)
 *   Build dir: $PI_FUSION_BUILD_DIR (default build/dev).
 *
 * The mix, each kind run full and adaptive in alternating order (`pi -p "/fusion <q>"` against the
 * scripted model of tests/support, the isolated Pi environment of tests/support/pi_harness.mjs):
 *   agree      candidates 1 and 2 answer in different words; the agreement check says they agree
 *   identical  candidates 1 and 2 answer the same text (no check is asked)
 *   disagree   the check says they differ, so candidate 3 is asked after it
 * Every answer reports fixed usage (USAGE below: a candidate's 1,500-token answer; the check reads
 * the question and both answers and writes a short verdict), so spend is the scripted prices times
 * those tokens: candidate spend, the run's whole spend, model requests and the run's own wall time
 * (manifest created_at -> updated_at) are compared as adaptive / full.
 * Goal (issue: adaptive panel): >= 25 % less candidate spend where candidates agree, and no more
 * than one extra cheap call where they do not.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../../tests/support/pi_harness.mjs";
import { median, ratio } from "../lib/stats.mjs";
import {
  CANDIDATE_TEXT, EVALUATION_AB, fusionRules, MERGED_TEXT, SECOND_CANDIDATE_ON_B, STAGE,
} from "../../tests/support/fusion_script.mjs";
import { manifestOf, runDirs, withFusionEnv } from "../../tests/support/fusion_runs.mjs";

const RUN_TIMEOUT_MS = 180000;
const FUSION_MODELS_V3 = "pi-background-tasks.fusion-models.v3";
const AGREEMENT_INPUT = "pi-background-tasks.fusion-agreement-input.v1";
const AGREEMENT = "pi-background-tasks.fusion-agreement.v1";
const REWORDED = "Candidate answer: Rayleigh scattering; air molecules scatter blue light more than red.";
// Tokens per answer, sized like a real run's: a candidate writes 1,500 tokens; the evaluator reads
// the question and three answers, the merger those and the evaluation; the check reads the
// question and two answers and writes a verdict of a few dozen tokens.
const usage = (input, output) => ({ input, output, cache_read: 0, cache_write: 0, reasoning: 0 });
const USAGE = {
  candidate: usage(2000, 1500),
  evaluator: usage(6500, 800),
  merger: usage(7300, 1500),
  check: usage(3500, 60),
};
const KINDS = ["agree", "identical", "disagree"];

function parseArgs(argv) {
  const opts = { runs: 3, latency: 1500, out: path.join(REPO_ROOT, "bench", "results", "adaptive.md") };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") opts.runs = Number(argv[++i]);
    else if (argv[i] === "--latency") opts.latency = Number(argv[++i]);
    else if (argv[i] === "--out") opts.out = path.resolve(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]} (usage: adaptive_bench.mjs [--runs N] [--latency MS] [--out FILE])`);
  }
  if (!Number.isInteger(opts.runs) || opts.runs < 1 || opts.runs > 50) throw new Error("--runs must be 1..50");
  if (!Number.isInteger(opts.latency) || opts.latency < 0 || opts.latency > 10000) throw new Error("--latency must be 0..10000");
  return opts;
}

const usd = (x) => `$${x.toFixed(4)}`;
const log = (...a) => console.error("[adaptive_bench]", ...a);

/**
 * The rules of one question `kind` for a panel (`adaptive` or not): every answer after `latency`
 * ms with its stage's fixed usage. Candidate 2 runs on scripted-b so it can answer differently.
 */
function rulesOf(kind, adaptive, latency) {
  const step = (text, usage) => ({ text, usage, delay_ms: latency });
  const agree = kind !== "disagree";
  const verdict = { schema_version: AGREEMENT, agree, differences: agree ? [] : ["A and B name different causes"] };
  // An adaptive run that agreed answers from A and B; every other run from three.
  const evaluation = adaptive && agree ? JSON.stringify(EVALUATION_AB) : null;
  const base = fusionRules().map((r) => {
    if (!USAGE[r.name]) return r;
    const text = r.name === "evaluator" && evaluation ? evaluation : r.responses[0].text;
    return { ...r, responses: [step(text, USAGE[r.name])] };
  });
  const second = kind === "identical" ? CANDIDATE_TEXT : REWORDED;
  return [
    { name: "agreement", match: { text: AGREEMENT_INPUT }, responses: [step(JSON.stringify(verdict), USAGE.check)] },
    { name: "second", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [step(second, USAGE.candidate)] },
    ...base,
  ];
}

function writePanel(env, adaptive) {
  env.writeAgentFile("fusion-models.json", JSON.stringify({
    schema_version: FUSION_MODELS_V3, ...SECOND_CANDIDATE_ON_B,
    policy: { quorum: 3, grace_seconds: null, max_cost_usd: null, panel: adaptive ? "adaptive" : "full" },
  }));
}

/** One `/fusion` run in print mode; what its manifest says it cost and took. */
async function oneRun(env, kind, adaptive, latency) {
  env.server.setScript({ rules: rulesOf(kind, adaptive, latency), default: { text: "ok" } });
  writePanel(env, adaptive);
  const before = new Set(runDirs(env));
  const requestsBefore = env.requests().length;
  const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
  if (r.code !== 0 || r.stdout !== `${MERGED_TEXT}\n`) throw new Error(`${kind} run failed (${r.code}):\n${r.stderr.slice(-2000)}`);
  const dir = runDirs(env).find((d) => !before.has(d));
  const m = manifestOf(dir);
  const spend = (stage) => m.attempts.filter((a) => a.stage === stage).reduce((s, a) => s + (a.usage?.cost?.total ?? 0), 0);
  const asked = m.attempts.filter((a) => a.stage === "candidate").length;
  if (adaptive && asked !== (kind === "disagree" ? 3 : 2)) throw new Error(`adaptive ${kind}: ${asked} candidates asked`);
  return {
    candidates: spend("candidate"),
    check: spend("agreement"),
    total: m.usage.cost.total,
    // The run's model requests, less the parent agent's own turn.
    requests: env.requests().slice(requestsBefore).filter((q) => q.rule_name !== null && q.rule_name !== undefined).length,
    ms: Date.parse(m.updated_at) - Date.parse(m.created_at),
    asked,
  };
}

async function bench(env, opts) {
  const rows = Object.fromEntries(KINDS.map((k) => [k, { full: [], adaptive: [] }]));
  for (let i = 0; i < opts.runs; i++) {
    for (const kind of KINDS) {
      const order = i % 2 ? [true, false] : [false, true];  // alternate against drift
      for (const adaptive of order) {
        const run = await oneRun(env, kind, adaptive, opts.latency);
        rows[kind][adaptive ? "adaptive" : "full"].push(run);
        log(`${kind} ${adaptive ? "adaptive" : "full"} ${i + 1}/${opts.runs}: ${run.asked} candidates, ${usd(run.candidates)} candidates + ${usd(run.check)} check = ${usd(run.total)}, ${run.requests} requests, ${run.ms} ms`);
      }
    }
  }
  return rows;
}

function report(rows, opts) {
  const med = (xs, f) => median(xs.map(f));
  const lines = KINDS.map((kind) => {
    const { full, adaptive } = rows[kind];
    const c = [med(adaptive, (r) => r.candidates), med(full, (r) => r.candidates)];
    const t = [med(adaptive, (r) => r.total), med(full, (r) => r.total)];
    const q = [med(adaptive, (r) => r.requests), med(full, (r) => r.requests)];
    const w = [med(adaptive, (r) => r.ms), med(full, (r) => r.ms)];
    const check = med(adaptive, (r) => r.check);
    return `| ${kind} | ${med(adaptive, (r) => r.asked)} of 3 | **${ratio(...c)}** (${usd(c[0])} / ${usd(c[1])}) | ${usd(check)} | ${ratio(...t)} (${usd(t[0])} / ${usd(t[1])}) | ${q[0] - q[1] >= 0 ? "+" : ""}${q[0] - q[1]} | ${ratio(...w)} (${w[0]} / ${w[1]} ms) |`;
  });
  return `# Adaptive panel vs full panel

Generated by \`bench/adaptive/adaptive_bench.mjs\` (scripts/bench) on ${new Date().toISOString().slice(0, 10)}:
${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)} at the end, ${opts.runs} pairs per kind,
every scripted answer after L = ${opts.latency} ms. Medians; ratios are adaptive / full, measured in the
same process.

Usage per answer is fixed, sized like a real run's (candidate 2,000 in / 1,500 out tokens,
evaluator 6,500 / 800, merger 7,300 / 1,500, the agreement check 3,500 / 60: the question and
two answers in, a verdict out) at the scripted prices ($0.50 in, $1.50 out per million tokens),
so the dollar ratios are the share of model work at a 1:3 input:output price, not a provider's
bill. The check runs on the evaluator's route; a cheaper evaluator route makes it cheaper still.

| Kind | Asked | Candidate spend | Check | Run spend | Requests | Run wall time |
|------|------:|----------------:|------:|----------:|---------:|--------------:|
${lines.join("\n")}

Reading it:
- **agree**: the third candidate is not asked, so candidate spend is two thirds of full (the goal
  is at least 25 % less: a ratio at or below 0.75); the check costs a fraction of a candidate. The
  run adds the check's model wait after candidates 1 and 2 but starts two candidate processes
  instead of three: on a 2-core machine the smaller start-up can pay for the wait (the wall-time
  column says which won here).
- **identical**: no check at all (byte-equal after line-ending and trailing-blank normalisation),
  one request fewer than full.
- **disagree**: the same three candidates plus exactly one extra request, the check; the third
  candidate starts only after it, so the run takes longer by about two model waits and a cold start.
`;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const rows = await withFusionEnv({ script: { rules: [] }, timeoutMs: RUN_TIMEOUT_MS }, (env) => bench(env, opts));
  fs.mkdirSync(path.dirname(opts.out), { recursive: true });
  fs.writeFileSync(opts.out, report(rows, opts));
  log(`wrote ${opts.out}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
