#!/usr/bin/env node
/**
 * @file Run-level benchmark: what a Fusion reason run costs on top of the Pi processes it has to
 * start anyway. Writes bench/results/run.md with RATIOS against baselines measured in the same
 * process (never a pass/fail on wall time).
 *
 *   <pinned node> bench/run/run_bench.mjs [--runs N] [--out FILE] [--only straggler|five]
 *     --runs N   repetitions of every measurement (default 5)
 *     --out FILE report path (default bench/results/run.md)
 *     --only straggler  run (d) alone and print its summary row (no report is written)
 *     --only five       run (e) alone and print its rows (no report is written)
 *   Build dir: $PI_FUSION_BUILD_DIR (default build/dev); its lib/pi_fusion.node and
 *   lib/pi_fusion_child.node are the libraries measured.
 *
 * Measurements (all against the scripted model of tests/support on 127.0.0.1, in the isolated Pi
 * environment of tests/support/pi_harness.mjs):
 *   (a) `pi -p "/fusion <q>"` with the plugin, the model answering after L ms (0 and 1500): the
 *       run's own wall time (manifest created_at -> updated_at) vs its floor, three bare cold
 *       `pi --mode text -p` children started together plus 2 x L; and the peak summed RSS of the
 *       run's processes.
 *   (b) one child with the child library (`-e extensions/fusion-child.ts`, role evaluator) vs the
 *       same child without it: wall time and peak RSS (`/usr/bin/time -f %M`, else polled VmHWM).
 *   (c) tool call -> receipt latency of fusion_reason vs a built-in `ls` call, from the
 *       `--mode json` events (tool_execution_start -> tool_execution_end, stamped on arrival, plus
 *       Pi's own durationMs) and from the model server's request log.
 *   (d) a straggler: the candidates answer after L, L and 4L (L = 1000 ms); a reason run with
 *       policy quorum 2 and grace_seconds 1 (it cuts the third) vs the same run with quorum 3
 *       (it waits for it): the run's own wall time as a ratio, beside the grace the run used.
 *   (e) five bare cold children started together vs three, at L = 0: a lower bound on this machine
 *       for any run of five Pi processes, and the L = 0 reason run of (a) against it; three children
 *       with an empty extension (Pi's extension loader) and with the child library; and a warm
 *       bare child (input written after its start-up): Pi's own time from input to answer, against
 *       the same child with the child library as a warm evaluator (its provider module loaded and
 *       its HTTP client warmed up while it waits); and a child's exit after a 40 KB streamed
 *       answer, bare and with the child library (which keeps WebAssembly on the baseline tier).
 * Plain Node ESM, built-ins only. Every Pi process runs in a harness process group; Fusion
 * children (own process groups) are swept by pid via their private environment before cleanup.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  BUILD_DIR, CHILD_EXTENSION, createPiEnv, PI_CLI, PINNED_NODE, PLUGIN, REPO_ROOT,
} from "../../tests/support/pi_harness.mjs";
import {
  CANDIDATE_TEXT, EVALUATION_AB, fusionRules, MERGED_TEXT, STAGE, THIRD_CANDIDATE_ON_B, writeFusionModels, writeFusionModelsV2,
} from "../../tests/support/fusion_script.mjs";
import { manifestOf, runDirs } from "../../tests/support/fusion_runs.mjs";
import { envProcesses } from "../../tests/support/processes.mjs";
const RUN_TIMEOUT_MS = 180000;
const CHILD_TIMEOUT_MS = 60000;
const QUESTION = "Why is the sky blue?";
// How long a warm bare child waits for its input: well past a Pi start-up on this machine.
const WARM_START_MS = 2500;
const TIME_BIN = "/usr/bin/time";

function parseArgs(argv) {
  const opts = { runs: 5, out: path.join(REPO_ROOT, "bench", "results", "run.md"), only: null };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") opts.runs = Number(argv[++i]);
    else if (argv[i] === "--out") opts.out = path.resolve(argv[++i]);
    else if (argv[i] === "--only" && ["straggler", "five"].includes(argv[i + 1])) opts.only = argv[++i];
    else throw new Error(`unknown argument ${argv[i]} (usage: run_bench.mjs [--runs N] [--out FILE] [--only straggler|five])`);
  }
  if (!Number.isInteger(opts.runs) || opts.runs < 1 || opts.runs > 100) throw new Error("--runs must be 1..100");
  return opts;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "n/a");
const signed = (x, d = 0) => (x >= 0 ? `+${fmt(x, d)}` : fmt(x, d));
const ratio = (a, b) => (b > 0 ? (a / b).toFixed(2) : "n/a");
const log = (...a) => console.error("[run_bench]", ...a);

/**
 * Spawns `command args` in the env (own process group, tracked for cleanup). Streams stdout
 * lines to onLine(line, tMs). Resolves {code, stdout, stderr, ms}; kills the group on timeout.
 */
function spawnIn(env, command, args, { stdin = "", extraEnv = {}, onLine, onSpawn, timeoutMs = CHILD_TIMEOUT_MS, pollPid } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { cwd: env.cwd, env: env.env(extraEnv), detached: true, stdio: ["pipe", "pipe", "pipe"] });
    env.track(child);
    const out = [];
    const err = [];
    let pending = "";
    child.stdout.on("data", (c) => {
      const t = performance.now();
      out.push(c);
      if (!onLine) return;
      pending += c.toString("utf8");
      let nl;
      while ((nl = pending.indexOf("\n")) >= 0) {
        onLine(pending.slice(0, nl), t);
        pending = pending.slice(nl + 1);
      }
    });
    child.stderr.on("data", (c) => err.push(c));
    child.stdin.on("error", () => {});
    if (stdin !== null) child.stdin.end(stdin);  // null: the caller writes it (onSpawn)
    onSpawn?.(child);
    const poller = pollPid ? pollPid(child.pid) : null;
    const timer = setTimeout(() => {
      try { process.kill(-child.pid, "SIGKILL"); } catch { /* gone */ }
    }, timeoutMs);
    child.on("error", (e) => { clearTimeout(timer); poller?.stop(); reject(e); });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      poller?.stop();
      resolve({ code, signal, ms: performance.now() - t0, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8"), peakKb: poller?.peakKb });
    });
  });
}

function must(r, what) {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code ?? r.signal}\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr.slice(0, 2000)}`);
  return r;
}

const INVESTIGATE_OBJECTIVE = "List what the project holds";

const BARE_ARGS = ["--mode", "text", "-p", "--no-session", "-ne", "-nc", "--model", "scripted/scripted-a"];

// ---- (a) a reason run's own wall time vs its floor, at model latency L -------------------

const LATENCIES_MS = [0, 1500];

/** The script with every scripted answer (and the default) delayed by `latencyMs`. */
function delayed(script, latencyMs) {
  const slow = (step) => ({ ...step, delay_ms: latencyMs });
  return {
    rules: script.rules.map((r) => ({ ...r, responses: r.responses.map(slow) })),
    default: slow(script.default),
  };
}

/** The newest run directory under the env's project. */
function newestRunDir(env) {
  return runDirs(env).map((d) => ({ d, t: fs.statSync(d).mtimeMs })).sort((x, y) => y.t - x.t)[0].d;
}

/**
 * Sums VmRSS over every live process of the env's Pi environment (the parent Pi and all its
 * Fusion children) every 20 ms; keeps the largest sum.
 */
function summedRssPoller(env) {
  const state = { peakKb: 0 };
  const read = () => {
    let sum = 0;
    for (const pid of envProcesses(env).keys()) {
      try {
        const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
        if (m) sum += Number(m[1]);
      } catch { /* gone */ }
    }
    state.peakKb = Math.max(state.peakKb, sum);
  };
  const timer = setInterval(read, 20);
  return { get peakKb() { return state.peakKb; }, stop() { clearInterval(timer); } };
}

/** The 1-minute load average now. */
const load1 = () => Number(fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]);

/**
 * One run of `workflow`: its own wall time from the manifest (created_at -> updated_at), peak
 * summed RSS, the load average at its start, and whether its evaluator and merger started warm
 * (no `warm_children` entry and warming on). reason runs through `/fusion`; investigate through
 * the agent calling fusion_investigate (one tool call per candidate, see INVESTIGATE_RULES).
 */
async function oneRun(env, workflow, { warm = true } = {}) {
  const before = env.requests().length;
  const load = load1();
  const rss = summedRssPoller(env);
  const opts = { extensions: [PLUGIN], timeoutMs: RUN_TIMEOUT_MS, env: warm ? {} : { PI_FUSION_WARM: "0" } };
  const run = workflow === "reason" ? await env.print(`/fusion ${QUESTION}`, opts) : await env.print("bench-investigate", opts);
  rss.stop();
  must(run, `${workflow} run`);
  if (workflow === "reason" && run.stdout !== `${MERGED_TEXT}\n`) throw new Error(`/fusion printed an unexpected answer:\n${run.stdout}`);
  if (workflow === "investigate" && !run.stdout.includes("FINAL: done")) throw new Error(`investigate run did not finish:\n${run.stdout}`);
  const manifest = manifestOf(newestRunDir(env));
  if (manifest.state !== "completed") throw new Error(`run ended ${manifest.state}`);
  if (manifest.attempts.length !== 5) throw new Error(`run had ${manifest.attempts.length} attempts`);
  const own = Date.parse(manifest.updated_at) - Date.parse(manifest.created_at);
  return { own, whole: run.durationMs, requests: env.requests().length - before, peakKb: rss.peakKb, load, warmChildren: manifest.warm_children?.length ?? 0, degraded: manifest.degraded ?? null, ...stageTimes(manifest) };
}

/**
 * Where a run's own time went, from its manifest: each stage from its first attempt's start to its
 * last attempt's end, and the parent's own time between them (preflight to the first candidate,
 * the gaps between stages, the commit).
 */
function stageTimes(manifest) {
  const span = (stage) => {
    const rows = manifest.attempts.filter((a) => a.stage === stage);
    return Math.max(...rows.map((a) => Date.parse(a.ended_at))) - Math.min(...rows.map((a) => Date.parse(a.started_at)));
  };
  const candidates = span("candidate");
  const evaluation = span("evaluation");
  const merge = span("merge");
  const own = Date.parse(manifest.updated_at) - Date.parse(manifest.created_at);
  // The first candidate the person can read: its attempt ends at its verified answer, which the
  // live view, print mode's stderr and json mode's events show at once.
  const firstCandidate = Math.min(...manifest.attempts.filter((a) => a.stage === "candidate")
    .map((a) => Date.parse(a.ended_at))) - Date.parse(manifest.created_at);
  return { candidates, evaluation, merge, firstCandidate, parent: own - candidates - evaluation - merge };
}

/** One bare cold child: the time from its spawn to its answer's first line on stdout. */
async function singleBare(env) {
  const t0 = performance.now();
  let answered = null;
  const r = await spawnIn(env, PINNED_NODE, [PI_CLI, ...BARE_ARGS], {
    stdin: `single child: ${QUESTION}`,
    onLine: (_line, t) => { answered ??= t - t0; },
  });
  must(r, "single bare child");
  return answered ?? r.ms;
}

/** `n` (three unless said) bare cold children started together; their wall time. */
async function parallelBare(env, n = 3, { extraArgs = [], extraEnv = {} } = {}) {
  const load = load1();
  const t0 = performance.now();
  const kids = Array.from({ length: n }, (_, k) => spawnIn(env, PINNED_NODE, [PI_CLI, ...BARE_ARGS, ...extraArgs], { stdin: `floor child ${k}: ${QUESTION}`, extraEnv }));
  for (const r of await Promise.all(kids)) must(r, "bare child");
  return { ms: performance.now() - t0, load };
}

// The cases of (a): workflow, whether the evaluator and merger start warm, and the model round
// trips beyond the floor's three parallel children: the evaluator's and the merger's, plus for
// investigate the candidates' tool round trip (each candidate asks for one tool, then answers).
const RUN_CASES = [
  { workflow: "reason", warm: true, extraTrips: 2 },
  { workflow: "reason", warm: false, extraTrips: 2 },
  { workflow: "investigate", warm: true, extraTrips: 3 },
];

async function benchRun(env, runs, script) {
  const results = [];
  for (const latency of LATENCIES_MS) {
    env.server.setScript(delayed(script, latency));
    for (const c of RUN_CASES) {
      const rows = [];
      for (let i = 0; i < runs; i++) {
        // Alternate which side goes first against drift in the machine's load.
        let run;
        let bare;
        if (i % 2) {
          bare = await parallelBare(env);
          run = await oneRun(env, c.workflow, c);
        } else {
          run = await oneRun(env, c.workflow, c);
          bare = await parallelBare(env);
        }
        const floor = bare.ms + c.extraTrips * latency;
        // The person's first readable answer is compared with one model asked alone.
        const single = c.workflow === "reason" && c.warm ? await singleBare(env) : null;
        rows.push({ ...run, bare: bare.ms, bareLoad: bare.load, floor, single });
        log(`(a) ${c.workflow}${c.warm ? "" : " cold"} L=${latency} ${i + 1}/${runs}: run ${run.own} ms own (${run.whole} ms with Pi start, ${run.requests} requests, load ${run.load}), floor ${fmt(floor)} ms`);
      }
      results.push({ ...c, latency, rows });
    }
  }
  env.server.setScript(script);
  return results;
}

// ---- (e) five Pi processes on this machine, at L = 0 -----------------------------------------

/**
 * Five bare cold children started together against three, alternating which goes first: at L = 0
 * a run's five Pi processes (three candidates, the evaluator, the merger) can at best all start
 * at once, so five bare children together bound any such run from below, whatever it overlaps.
 */
async function benchFive(env, runs, script) {
  env.server.setScript(script);
  const emptyExtension = path.join(env.root, "empty-extension.ts");
  fs.writeFileSync(emptyExtension, "export default function empty(): void {}\n");
  // The child library as a candidate's (no answer here comes near the oversize path's use).
  const candidateEnv = { PI_FUSION_CHILD_ROLE: "candidate", PI_FUSION_PROVIDER_API: "openai-completions", PI_FUSION_OVERSIZE_PATH: path.join(env.tmp, "oversized.md") };
  const rows = [];
  for (let i = 0; i < runs; i++) {
    const first = i % 2 ? 5 : 3;
    const x = await parallelBare(env, first);
    const y = await parallelBare(env, 8 - first);
    const [three, five] = first === 3 ? [x, y] : [y, x];
    const [threeEmpty, threeLibrary] = await alternating(i,
      () => parallelBare(env, 3, { extraArgs: ["-e", emptyExtension] }),
      () => parallelBare(env, 3, { extraArgs: ["-e", CHILD_EXTENSION], extraEnv: candidateEnv }));
    const [warm, warmLibrary] = await alternating(i,
      () => warmChild(env, BARE_ARGS, {}),
      () => warmChild(env, WARM_LIBRARY_ARGS, WARM_LIBRARY_ENV));
    env.server.setScript(LONG_ANSWER_SCRIPT);
    const [exitBare, exitLibrary] = await alternating(i,
      () => exitAfterAnswer(env, BARE_ARGS, {}),
      () => exitAfterAnswer(env, WARM_LIBRARY_ARGS, WARM_LIBRARY_ENV));
    env.server.setScript(script);
    rows.push({ three: three.ms, five: five.ms, threeEmpty: threeEmpty.ms, threeLibrary: threeLibrary.ms, warm, warmLibrary, exitBare, exitLibrary, load: three.load });
    log(`(e) ${i + 1}/${runs}: five bare children ${fmt(five.ms)} ms, three ${fmt(three.ms)} ms (${fmt(threeEmpty.ms)} with an empty extension, ${fmt(threeLibrary.ms)} with the child library), warm child stdin → answer ${fmt(warm)} ms bare, ${fmt(warmLibrary)} ms with the child library; answer → exit ${fmt(exitBare)} / ${fmt(exitLibrary)} ms`);
  }
  return rows;
}

/** Runs a() and b() one after the other, b first in odd rounds; resolves [a's, b's]. */
async function alternating(round, a, b) {
  if (round % 2) {
    const second = await b();
    return [await a(), second];
  }
  const first = await a();
  return [first, await b()];
}

// A 40 KB answer streamed in 100-byte chunks: enough for V8 to tier a bare Pi's HTTP parser up.
const LONG_ANSWER_SCRIPT = { rules: [], default: { text: "word ".repeat(8000), chunk_bytes: 100 } };

/**
 * One cold child given its input at once, answering LONG_ANSWER_SCRIPT: the time from its
 * answer's first line on stdout to its exit. A stage ends at its answer, but the run commits only
 * once every child has exited, the merger's last.
 */
async function exitAfterAnswer(env, args, extraEnv) {
  let answered = null;
  const r = await spawnIn(env, PINNED_NODE, [PI_CLI, ...args], {
    stdin: `long answer: ${QUESTION}`,
    extraEnv,
    onLine: (_line, t) => { answered ??= t; },
  });
  const closed = performance.now();
  must(r, "long-answer child");
  return closed - answered;
}

// The warm child with the child library: a warm evaluator's library, provider API and role.
const WARM_LIBRARY_ARGS = [...BARE_ARGS, "-e", CHILD_EXTENSION];
const WARM_LIBRARY_ENV = { PI_FUSION_CHILD_ROLE: "evaluator", PI_FUSION_PROVIDER_API: "openai-completions" };

/**
 * One child started with its stdin held open and given its input once it has started (as a
 * warm stage child is): the time from writing the input to its answer's first line on stdout at
 * L = 0. Bare, that is Pi's own work between reading a prompt and printing its answer.
 */
async function warmChild(env, args, extraEnv) {
  let written = 0;
  let answered = null;
  let child;
  const r = spawnIn(env, PINNED_NODE, [PI_CLI, ...args], {
    stdin: null,
    extraEnv,
    onLine: (_line, t) => { answered ??= t - written; },
    onSpawn: (c) => { child = c; },
  });
  await new Promise((resolve) => setTimeout(resolve, WARM_START_MS));
  written = performance.now();
  child.stdin.end(`warm child: ${QUESTION}`);
  must(await r, "warm child");
  return answered;
}

// ---- (d) a straggler under quorum 2 vs quorum 3 ---------------------------------------------

const STRAGGLER_L_MS = 1000;
const STRAGGLER_GRACE_S = 1;

/**
 * `script` with candidates 1 and 2 answering after L and candidate 3 (on scripted-b) after 4L; with
 * `twoCandidates` the evaluator assesses only A and B, as it must once the third is cut.
 */
function stragglerScript(script, twoCandidates) {
  const ab = [{ text: JSON.stringify(EVALUATION_AB) }];
  const rules = script.rules.map((r) => (r.name === "candidate" ? { ...r, responses: [{ text: CANDIDATE_TEXT, delay_ms: STRAGGLER_L_MS }] }
    : twoCandidates && (r.name === "evaluator" || r.name === "repair") ? { ...r, responses: ab } : r));
  const third = { name: "straggler", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ text: CANDIDATE_TEXT, delay_ms: 4 * STRAGGLER_L_MS }] };
  return { ...script, rules: [third, ...rules] };
}

/**
 * Pairs of reason runs, alternating which goes first: quorum 3 waits for the straggler, quorum 2
 * with a grace of STRAGGLER_GRACE_S cuts it. Each quorum-2 run must be degraded (cut after grace).
 */
async function benchStraggler(env, runs, script) {
  const rows = [];
  const quorum = async (q) => {
    env.server.setScript(stragglerScript(script, q === 2));
    if (q === 2) writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2, grace_seconds: STRAGGLER_GRACE_S });
    else writeFusionModels(env, THIRD_CANDIDATE_ON_B);
    const run = await oneRun(env, "reason");
    if (q === 2 && run.degraded?.reason !== "cut_after_grace") throw new Error(`the quorum-2 run was not cut: ${JSON.stringify(run.degraded)}`);
    if (q === 3 && run.degraded !== null) throw new Error("the quorum-3 run is degraded");
    return run;
  };
  try {
    for (let i = 0; i < runs; i++) {
      const [first, second] = i % 2 ? [2, 3] : [3, 2];
      const a = await quorum(first);
      const b = await quorum(second);
      const [q2, q3] = first === 2 ? [a, b] : [b, a];
      rows.push({ q2: q2.own, q3: q3.own, grace: q2.degraded.grace_seconds, load: q2.load });
      log(`(d) straggler ${i + 1}/${runs}: quorum 2 ${q2.own} ms (grace ${q2.degraded.grace_seconds} s), quorum 3 ${q3.own} ms`);
    }
  } finally {
    fs.rmSync(path.join(env.agentDir, "fusion-models.json"), { force: true });
    env.server.setScript(script);
  }
  return rows;
}

/** The summary row of (d). */
function stragglerRow(d) {
  const q2 = median(d.map((r) => r.q2));
  const q3 = median(d.map((r) => r.q3));
  return `| (d) straggler (candidates after L, L, 4L; L = ${STRAGGLER_L_MS} ms): run's own wall time, quorum 2 (grace ${fmt(median(d.map((r) => r.grace)), 1)} s, third cut) vs quorum 3 | ${fmt(q2)} ms | ${fmt(q3)} ms | **${ratio(q2, q3)}** | ${fmt(median(d.map((r) => r.load)), 2)} |`;
}

// ---- (b) one child with vs without the child library --------------------------------------

/** Polls /proc/<pid>/status VmHWM (monotonic peak) every 10 ms; the last sample is a lower bound. */
function vmHwmPoller(pid) {
  const state = { peakKb: 0 };
  const read = () => {
    try {
      const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) state.peakKb = Math.max(state.peakKb, Number(m[1]));
    } catch { /* exited */ }
  };
  const timer = setInterval(read, 10);
  return { get peakKb() { return state.peakKb; }, stop() { clearInterval(timer); } };
}

async function benchChild(env, runs, build, useTime) {
  const childEnv = { PI_FUSION_CHILD_ROLE: "evaluator", PI_FUSION_CHILD_ADDON: path.join(build, "lib", "pi_fusion_child.node") };
  const variants = [
    { name: "without", args: BARE_ARGS, extraEnv: {} },
    { name: "with", args: [...BARE_ARGS, "-e", CHILD_EXTENSION], extraEnv: childEnv },
  ];
  const rows = { without: [], with: [] };
  const rssFile = path.join(env.tmp, "maxrss.txt");
  for (let i = 0; i < runs; i++) {
    const load = load1();
    for (const v of i % 2 ? [...variants].reverse() : variants) {  // alternate order against drift
      let r;
      if (useTime) {
        r = await spawnIn(env, TIME_BIN, ["-f", "%M", "-o", rssFile, PINNED_NODE, PI_CLI, ...v.args], { stdin: `child cost: ${QUESTION}`, extraEnv: v.extraEnv });
        r.peakKb = Number(fs.readFileSync(rssFile, "utf8").trim().split("\n").pop());
      } else {
        r = await spawnIn(env, PINNED_NODE, [PI_CLI, ...v.args], { stdin: `child cost: ${QUESTION}`, extraEnv: v.extraEnv, pollPid: vmHwmPoller });
      }
      must(r, `child ${v.name} library`);
      if (v.name === "with" && !r.stderr.includes("@pi-fusion-frame")) throw new Error(`the child library did not run:\n${r.stderr.slice(0, 2000)}`);
      rows[v.name].push({ ms: r.ms, peakKb: r.peakKb, load });
    }
    log(`(b) ${i + 1}/${runs}: without ${fmt(rows.without[i].ms)} ms ${rows.without[i].peakKb} KB, with ${fmt(rows.with[i].ms)} ms ${rows.with[i].peakKb} KB`);
  }
  return rows;
}

// ---- (c) tool call -> receipt latency ------------------------------------------------------

const TOOLS = ["--tools", "read,ls,fusion_reason,bg_result"];

async function measureTool(env, prompt, toolName, callRule) {
  const before = env.requests().length;
  const load = load1();
  const seen = {};
  const r = await spawnIn(env, PINNED_NODE, [PI_CLI, ...env.argv(["--mode", "json"], { extensions: [PLUGIN], args: TOOLS }), prompt], {
    timeoutMs: RUN_TIMEOUT_MS,
    onLine(line, t) {
      let e;
      try { e = JSON.parse(line); } catch { return; }
      if (e.toolName !== toolName) return;
      if (e.type === "tool_execution_start" && seen.start === undefined) seen.start = t;
      if (e.type === "tool_execution_end" && seen.end === undefined) { seen.end = t; seen.piMs = e.durationMs; seen.isError = e.isError; }
    },
  });
  must(r, `json run calling ${toolName}`);
  if (seen.start === undefined || seen.end === undefined || seen.isError) throw new Error(`no successful ${toolName} execution events:\n${r.stdout.slice(0, 3000)}`);
  const reqs = env.requests().slice(before);
  const call = reqs.find((q) => q.rule_name === callRule);
  const next = reqs.find((q) => q.seq > call.seq && q.last_role === "tool" && q.tool_results?.some((t) => t.name === toolName));
  return { events: seen.end - seen.start, piMs: seen.piMs, log: Date.parse(next.time) - Date.parse(call.time), total: r.ms, load };
}

async function benchTool(env, runs) {
  const rows = { ls: [], fusion: [] };
  for (let i = 0; i < runs; i++) {
    // Alternate the sides against drift in the machine's load.
    const ls = () => measureTool(env, "bench-ls: list the files", "ls", "ls-call");
    const fuse = () => measureTool(env, "bench-fuse: please fuse", "fusion_reason", "fuse-call");
    if (i % 2) {
      rows.fusion.push(await fuse());
      rows.ls.push(await ls());
    } else {
      rows.ls.push(await ls());
      rows.fusion.push(await fuse());
    }
    const [a, b] = [rows.ls[i], rows.fusion[i]];
    log(`(c) ${i + 1}/${runs}: ls ${fmt(a.events, 1)} ms (log ${a.log}), fusion_reason ${fmt(b.events, 1)} ms (log ${b.log}, whole run ${fmt(b.total)} ms)`);
  }
  return rows;
}

// ---- report ---------------------------------------------------------------------------------

function machine(build) {
  const cpuinfo = fs.readFileSync("/proc/cpuinfo", "utf8");
  const piPkg = JSON.parse(fs.readFileSync(path.join(path.dirname(PI_CLI), "..", "..", "package.json"), "utf8"));
  let buildType = "?";
  try { buildType = /^CMAKE_BUILD_TYPE:\w+=(.*)$/m.exec(fs.readFileSync(path.join(build, "CMakeCache.txt"), "utf8"))?.[1] || "(empty)"; } catch { /* no cache */ }
  return {
    cpu: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? "?",
    cores: os.availableParallelism(),
    load: fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
    node: fs.existsSync(PINNED_NODE) ? process.version : "?",
    pi: piPkg.version,
    build: path.relative(REPO_ROOT, build) || build,
    buildType,
  };
}

function caseName(c) {
  return `${c.workflow}${c.warm ? "" : " (PI_FUSION_WARM=0)"}, L = ${c.latency} ms`;
}

/** The summary rows of (e): five bare children vs three, and the L = 0 reason run vs five. */
function fiveRows(e, a) {
  const five = median(e.map((r) => r.five));
  const three = median(e.map((r) => r.three));
  const load = median(e.map((r) => r.load));
  const run = a.find((x) => x.workflow === "reason" && x.warm && x.latency === 0);
  const own = run ? median(run.rows.map((r) => r.own)) : 0;
  return [
    `| (e) L = 0 ms: five bare children started together vs three (the floor's) | ${fmt(five)} ms | ${fmt(three)} ms | **${ratio(five, three)}** | ${fmt(load, 2)} |`,
    ...(run ? [`| (e) reason, L = 0 ms: run's own wall time vs five bare children started together | ${fmt(own)} ms | ${fmt(five)} ms | **${ratio(own, five)}** | ${fmt(load, 2)} |`] : []),
    `| (e) L = 0 ms: three children started together, each with an empty extension vs none (Pi's extension loader) | ${fmt(median(e.map((r) => r.threeEmpty)))} ms | ${fmt(three)} ms | **${ratio(median(e.map((r) => r.threeEmpty)), three)}** | ${fmt(load, 2)} |`,
    `| (e) L = 0 ms: three children started together, with the child library vs an empty extension | ${fmt(median(e.map((r) => r.threeLibrary)))} ms | ${fmt(median(e.map((r) => r.threeEmpty)))} ms | **${ratio(median(e.map((r) => r.threeLibrary)), median(e.map((r) => r.threeEmpty)))}** | ${fmt(load, 2)} |`,
    `| (e) L = 0 ms: a warm bare child, input → answer on stdout (Pi's own share of a warm stage's "beyond L") | ${fmt(median(e.map((r) => r.warm)))} ms | | | ${fmt(load, 2)} |`,
    `| (e) L = 0 ms: a warm child, input → answer on stdout, with the child library (warm evaluator) vs bare | ${fmt(median(e.map((r) => r.warmLibrary)))} ms | ${fmt(median(e.map((r) => r.warm)))} ms | **${ratio(median(e.map((r) => r.warmLibrary)), median(e.map((r) => r.warm)))}** | ${fmt(load, 2)} |`,
    `| (e) a child's exit after a 40 KB streamed answer (answer on stdout → exit), with the child library vs bare | ${fmt(median(e.map((r) => r.exitLibrary)))} ms | ${fmt(median(e.map((r) => r.exitBare)))} ms | **${ratio(median(e.map((r) => r.exitLibrary)), median(e.map((r) => r.exitBare)))}** | ${fmt(load, 2)} |`,
  ].join("\n");
}

function report({ runs, m, a, b, c, d, e, useTime, started, wallS }) {
  const list = (xs, d = 0) => xs.map((x) => fmt(x, d)).join(", ");
  const med = (rows, f) => median(rows.map(f));
  const aSummary = a.map((x) => {
    const run = med(x.rows, (r) => r.own);
    const floor = med(x.rows, (r) => r.floor);
    const load = med(x.rows, (r) => r.load);
    const rows = [
      `| (a) ${caseName(x)}: run's own wall time vs floor | ${fmt(run)} ms | ${fmt(floor)} ms | **${ratio(run, floor)}** | ${fmt(load, 2)} |`,
      `| (a) ${caseName(x)}: peak summed RSS of the run's processes | ${fmt(med(x.rows, (r) => r.peakKb) / 1024, 1)} MiB | | | ${fmt(load, 2)} |`,
    ];
    if (x.warm) {
      // A warm stage's attempt starts when its input is written and ends at its verified answer.
      for (const stage of ["evaluation", "merge"]) {
        const over = med(x.rows, (r) => r[stage] - x.latency);
        rows.push(`| (a) ${caseName(x)}: warm ${stage}, input → verified answer, beyond L | ${fmt(over)} ms | | | ${fmt(load, 2)} |`);
      }
    }
    if (x.rows[0].single !== null) {
      const first = med(x.rows, (r) => r.firstCandidate);
      const single = med(x.rows, (r) => r.single);
      rows.push(`| (a) ${caseName(x)}: first readable candidate vs one bare child's answer | ${fmt(first)} ms | ${fmt(single)} ms | **${ratio(first, single)}** | ${fmt(load, 2)} |`);
    }
    return rows.join("\n");
  }).join("\n");
  const aTables = a.map((x) => `### ${caseName(x)}

Floor = three bare children started together + ${x.extraTrips} × L.

| | samples | median |
| --- | --- | --- |
| run's own wall time (manifest created_at → updated_at, ms) | ${list(x.rows.map((r) => r.own))} | ${fmt(med(x.rows, (r) => r.own))} |
| whole \`pi -p\` process (ms) | ${list(x.rows.map((r) => r.whole))} | ${fmt(med(x.rows, (r) => r.whole))} |
| three bare children started together (ms) | ${list(x.rows.map((r) => r.bare))} | ${fmt(med(x.rows, (r) => r.bare))} |
| floor (ms) | ${list(x.rows.map((r) => r.floor))} | ${fmt(med(x.rows, (r) => r.floor))} |
| ratio run/floor per pair | ${x.rows.map((r) => ratio(r.own, r.floor)).join(", ")} | **${ratio(med(x.rows, (r) => r.own), med(x.rows, (r) => r.floor))}** |
| candidate stage (first start → last end, ms) | ${list(x.rows.map((r) => r.candidates))} | ${fmt(med(x.rows, (r) => r.candidates))} |
| evaluation stage (attempt start → end, ms) | ${list(x.rows.map((r) => r.evaluation))} | ${fmt(med(x.rows, (r) => r.evaluation))} |
| merge stage (attempt start → end, ms) | ${list(x.rows.map((r) => r.merge))} | ${fmt(med(x.rows, (r) => r.merge))} |
| first readable candidate (manifest created_at → first candidate's verified answer, ms) | ${list(x.rows.map((r) => r.firstCandidate))} | ${fmt(med(x.rows, (r) => r.firstCandidate))} |
${x.rows[0].single === null ? "" : `| one bare child alone, spawn → its answer on stdout (ms) | ${list(x.rows.map((r) => r.single))} | ${fmt(med(x.rows, (r) => r.single))} |\n`}| the parent's own time outside the stages (preflight, gaps, commit; ms) | ${list(x.rows.map((r) => r.parent))} | ${fmt(med(x.rows, (r) => r.parent))} |
| peak summed RSS (MiB) | ${list(x.rows.map((r) => r.peakKb / 1024), 1)} | ${fmt(med(x.rows, (r) => r.peakKb) / 1024, 1)} |
| warm children unused or replaced (manifest \`warm_children\`) | ${list(x.rows.map((r) => r.warmChildren))} | |
| load average (1 min) at the run's start | ${list(x.rows.map((r) => r.load), 2)} | ${fmt(med(x.rows, (r) => r.load), 2)} |
| load average (1 min) at the floor's start | ${list(x.rows.map((r) => r.bareLoad), 2)} | ${fmt(med(x.rows, (r) => r.bareLoad), 2)} |
`).join("\n");
  const bw = { ms: median(b.with.map((x) => x.ms)), kb: median(b.with.map((x) => x.peakKb)) };
  const bo = { ms: median(b.without.map((x) => x.ms)), kb: median(b.without.map((x) => x.peakKb)) };
  const cl = { ev: median(c.ls.map((x) => x.events)), pi: median(c.ls.map((x) => x.piMs)), log: median(c.ls.map((x) => x.log)) };
  const cf = { ev: median(c.fusion.map((x) => x.events)), pi: median(c.fusion.map((x) => x.piMs)), log: median(c.fusion.map((x) => x.log)) };
  const bLoad = median([...b.with, ...b.without].map((x) => x.load));
  const cLoad = median([...c.ls, ...c.fusion].map((x) => x.load));
  const rssHow = useTime
    ? "`/usr/bin/time -f %M` around the child's `node` (GNU time reports the waited child's `ru_maxrss`; Pi starts no subprocess here, so it is the child Pi's own peak RSS). The wall time therefore includes the `time` wrapper's exec, equally on both sides."
    : "`/usr/bin/time` is absent: `/proc/<pid>/status` VmHWM polled every 10 ms while the child runs. VmHWM is the kernel's monotonic peak, so the last sample before exit is a (tight) lower bound; the final ≤10 ms are not seen.";
  return `# Run benchmark: pi-fusion run overhead vs bare Pi children

Generated by \`bench/run/run_bench.mjs\` (\`scripts/bench\`) on ${started}, ${runs} runs per measurement, medians
(all samples listed). **Only the ratios are meaningful**: every baseline is measured in the same process,
interleaved with what it is compared to; absolute times depend on the machine and its load (given
below). The model is the scripted server of \`tests/support\` on 127.0.0.1; in (a) it answers after L ms,
elsewhere at once, so every other millisecond is process start-up, Pi, the plugin or the child library.

| machine | |
| --- | --- |
| CPU | ${m.cpu} |
| cores (nproc) | ${m.cores} |
| load at start / end | ${m.load} / ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} |
| Node (pinned) | ${m.node} |
| Pi | ${m.pi} |
| build | \`${m.build}\` (${m.buildType}) |
| benchmark wall time | ${fmt(wallS)} s |

## Summary

| measurement | ours (median) | baseline (median) | ratio ours/baseline | load (1 min, median) |
| --- | --- | --- | --- | --- |
${aSummary}
| (b) child wall time, with vs without the child library | ${fmt(bw.ms)} ms | ${fmt(bo.ms)} ms | **${ratio(bw.ms, bo.ms)}** (${signed(bw.ms - bo.ms)} ms) | ${fmt(bLoad, 2)} |
| (b) child peak RSS, with vs without the child library | ${fmt(bw.kb / 1024, 1)} MiB | ${fmt(bo.kb / 1024, 1)} MiB | **${ratio(bw.kb, bo.kb)}** (${signed((bw.kb - bo.kb) / 1024, 1)} MiB) | ${fmt(bLoad, 2)} |
| (c) tool call → result, \`fusion_reason\` (receipt) vs \`ls\` (json events) | ${fmt(cf.ev, 1)} ms | ${fmt(cl.ev, 1)} ms | **${ratio(cf.ev, cl.ev)}** | ${fmt(cLoad, 2)} |
| (c) same, Pi's own \`durationMs\` | ${fmt(cf.pi)} ms | ${fmt(cl.pi)} ms | ${ratio(cf.pi, cl.pi)} | ${fmt(cLoad, 2)} |
| (c) same, model request log (tool-call request → result request) | ${fmt(cf.log)} ms | ${fmt(cl.log)} ms | ${ratio(cf.log, cl.log)} | ${fmt(cLoad, 2)} |
${stragglerRow(d)}
${fiveRows(e, a)}

## (a) Whole runs vs their floor

reason: \`pi -p "/fusion ${QUESTION}"\`; investigate: \`pi -p\` where the agent calls \`fusion_investigate\`
(each candidate asks for one \`ls\`, then answers: two model round trips) and later \`bg_result\`. Both with
\`-e extensions/fusion.ts\` (harness flags \`-nc -ne --no-session\`), the scripted model answering all five
children (three candidates, evaluator, merger; \`fusionRules()\` of \`tests/support/fusion_script.mjs\`),
every answer delayed by L ms. The evaluator and the merger start warm (docs/workflow.md) unless the row
says \`PI_FUSION_WARM=0\`. Checked: exit 0, the merged answer arrived, state \`completed\`, five attempts,
model requests per run: ${[...new Set(a.flatMap(({ rows }) => rows.map((x) => x.requests)))].join("/")}.

Measured: the run's own wall time, from the manifest's \`created_at\` (preflight) to its \`updated_at\` (the
commit), so the parent Pi's own start-up is not in it. Floor, measured in the same script and alternating
with the runs: three bare cold \`pi --mode text -p --no-session -ne -nc --model scripted/scripted-a\`
children started together (they answer after L too), plus one L per further model round trip: the
evaluator's and the merger's, and for investigate the candidates' second request. A run can reach the
floor only if the evaluator's and the merger's Pi start-up is hidden behind earlier work. Peak summed RSS: VmRSS summed over every process of the test's Pi environment
(parent and children), polled every 20 ms, the largest sum.

${aTables}
## (b) Cost of the child library per child

The same bare child as in (a), once plain and once with \`-e extensions/fusion-child.ts\`,
\`PI_FUSION_CHILD_ROLE=evaluator\`, \`PI_FUSION_CHILD_ADDON=${path.join(m.build, "lib", "pi_fusion_child.node")}\` (checked: its
\`@pi-fusion-frame\` lines appear on stderr). Pairs alternate order. Peak RSS: ${rssHow}

| | wall samples (ms) | wall median | peak RSS samples (KiB) | peak RSS median |
| --- | --- | --- | --- | --- |
| without library | ${list(b.without.map((x) => x.ms))} | ${fmt(bo.ms)} ms | ${list(b.without.map((x) => x.peakKb))} | ${fmt(bo.kb / 1024, 1)} MiB |
| with library | ${list(b.with.map((x) => x.ms))} | ${fmt(bw.ms)} ms | ${list(b.with.map((x) => x.peakKb))} | ${fmt(bw.kb / 1024, 1)} MiB |
| ratio with/without | | **${ratio(bw.ms, bo.ms)}** | | **${ratio(bw.kb, bo.kb)}** |
| load average (1 min) per pair | ${list(b.with.map((x) => x.load), 2)} | | | |

## (c) Tool call → receipt latency

\`pi --mode json -e extensions/fusion.ts --tools read,ls,fusion_reason,bg_result "<prompt>"\`; the scripted
model's first answer is one tool call, \`fusion_reason({prompt: "${QUESTION}"})\` or the baseline \`ls({})\`
(a trivial built-in over a one-file project). Both runs load the plugin, so only the tool differs.
\`fusion_reason\` returns its receipt ("Started fusion reason in the background …") before any child runs;
the run then completes in the background (wake → \`bg_result\`) and is not part of this number.

Three views of the same interval:
- **json events**: arrival time (in this process, \`performance.now()\` when the stdout line is read) of
  \`tool_execution_start\` → \`tool_execution_end\` for that tool. Pi's json events carry no timestamps.
- **Pi durationMs**: the \`durationMs\` field Pi itself puts on \`tool_execution_end\`.
- **request log**: model server log time (ms resolution) of the request answered with the tool call →
  the next request carrying that tool's result; adds streaming the call and building the next request.

| | json events (ms) | Pi durationMs | request log (ms) |
| --- | --- | --- | --- |
| \`ls\` samples | ${list(c.ls.map((x) => x.events), 1)} | ${list(c.ls.map((x) => x.piMs))} | ${list(c.ls.map((x) => x.log))} |
| \`fusion_reason\` samples | ${list(c.fusion.map((x) => x.events), 1)} | ${list(c.fusion.map((x) => x.piMs))} | ${list(c.fusion.map((x) => x.log))} |
| load average (1 min) per \`ls\` / \`fusion_reason\` sample | ${list(c.ls.map((x) => x.load), 2)} / ${list(c.fusion.map((x) => x.load), 2)} | | |
| median \`ls\` | ${fmt(cl.ev, 1)} | ${fmt(cl.pi)} | ${fmt(cl.log)} |
| median \`fusion_reason\` | ${fmt(cf.ev, 1)} | ${fmt(cf.pi)} | ${fmt(cf.log)} |
| ratio fusion_reason/ls | **${ratio(cf.ev, cl.ev)}** | ${ratio(cf.pi, cl.pi)} | ${ratio(cf.log, cl.log)} |

The absolute difference (${fmt(cf.ev - cl.ev, 1)} ms by the json events) is what \`fusion_reason\` adds, over a
trivial tool, before the agent can continue; the ratio depends on how cheap the baseline is on this machine.

## (d) A straggler: quorum 2 with a grace window vs quorum 3

\`pi -p "/fusion ${QUESTION}"\` with candidate 3 on \`scripted/scripted-b\` (\`fusion-models.json\`), the candidates
answering after ${STRAGGLER_L_MS}, ${STRAGGLER_L_MS} and ${4 * STRAGGLER_L_MS} ms, the evaluator and merger at once. Quorum 3 (v1 file, the
default) waits for the third; quorum 2 (v2 file, \`grace_seconds\` ${STRAGGLER_GRACE_S}) cuts it once the grace after the second
verified answer ends and answers from two (checked: every quorum-2 run is degraded, \`cut_after_grace\`). Pairs alternate order.

| | samples | median |
| --- | --- | --- |
| quorum 2, run's own wall time (ms) | ${list(d.map((r) => r.q2))} | ${fmt(median(d.map((r) => r.q2)))} |
| quorum 3, run's own wall time (ms) | ${list(d.map((r) => r.q3))} | ${fmt(median(d.map((r) => r.q3)))} |
| grace used (s) | ${list(d.map((r) => r.grace), 1)} | |
| ratio quorum 2 / quorum 3 | ${d.map((r) => ratio(r.q2, r.q3)).join(", ")} | **${ratio(median(d.map((r) => r.q2)), median(d.map((r) => r.q3)))}** |

## (e) Five Pi processes at L = 0

A run starts five Pi processes: three candidates, the evaluator and the merger (warm, once the
candidates sent their requests). At L = 0 the model hides no start-up, so on this machine no run
with five Pi processes can end before five bare cold children started together do; (a)'s floor has
three. Five and three bare children alternate which goes first.

| | samples | median |
| --- | --- | --- |
| five bare children started together (ms) | ${list(e.map((r) => r.five))} | ${fmt(median(e.map((r) => r.five)))} |
| three bare children started together (ms) | ${list(e.map((r) => r.three))} | ${fmt(median(e.map((r) => r.three)))} |
| three children started together, each with an empty extension (ms) | ${list(e.map((r) => r.threeEmpty))} | ${fmt(median(e.map((r) => r.threeEmpty)))} |
| three children started together with the child library, role candidate (ms) | ${list(e.map((r) => r.threeLibrary))} | ${fmt(median(e.map((r) => r.threeLibrary)))} |
| ratio five / three | ${e.map((r) => ratio(r.five, r.three)).join(", ")} | **${ratio(median(e.map((r) => r.five)), median(e.map((r) => r.three)))}** |
| warm bare child: input written → answer's first line on stdout, L = 0 (ms) | ${list(e.map((r) => r.warm))} | ${fmt(median(e.map((r) => r.warm)))} |
| the same child with the child library as a warm evaluator (ms) | ${list(e.map((r) => r.warmLibrary))} | ${fmt(median(e.map((r) => r.warmLibrary)))} |
| bare child, 40 KB answer streamed in 100-byte chunks: answer's first line on stdout → exit (ms) | ${list(e.map((r) => r.exitBare))} | ${fmt(median(e.map((r) => r.exitBare)))} |
| the same with the child library (ms) | ${list(e.map((r) => r.exitLibrary))} | ${fmt(median(e.map((r) => r.exitLibrary)))} |

Every Fusion child is a Pi with one extension, the child library, and Pi loads any extension through
its extension loader (jiti and the virtual modules it builds for extensions): the children with an
empty extension show that loader's cost, the ones with the child library what the library adds.

A warm stage child reads its input only once it has started, and Pi does part of its work only
after reading its prompt (binding extensions, building the request). The warm bare child is given
its input ${WARM_START_MS} ms after its spawn, like a warm stage child, and answers at once: its time is Pi's
own share of (a)'s "warm stage beyond L" rows, which no parent can take away. With the child library
as a warm evaluator (\`-e extensions/fusion-child.ts\`, role \`evaluator\`), the child loads its provider's
module and warms Pi's HTTP client up while it waits (extensions/lib/provider_preload.ts,
http_prewarm.ts), so less of that work is left between its input and its answer.

After a long streamed answer a bare Pi compiles its HTTP parser's main WebAssembly function with V8's
optimizing compiler in the background, and cannot exit before that compile ends; the child library
keeps WebAssembly on the baseline compiler (extensions/lib/wasm_tiering.ts). A run commits only once
every child has exited, so the merger's exit is on every run's path.
`;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const build = path.resolve(BUILD_DIR);
  for (const f of ["lib/pi_fusion.node", "lib/pi_fusion_child.node", "bin/pi-fusion"]) {
    if (!fs.existsSync(path.join(build, f))) throw new Error(`missing ${path.join(build, f)}: build first`);
  }
  // The harness passes these through to every Pi it starts (and Pi to the Fusion children).
  process.env.PI_FUSION_ADDON = path.join(build, "lib", "pi_fusion.node");
  process.env.PI_FUSION_CHILD_ADDON = path.join(build, "lib", "pi_fusion_child.node");
  process.env.PI_FUSION_CLI = path.join(build, "bin", "pi-fusion");
  const useTime = fs.existsSync(TIME_BIN);
  const started = new Date().toISOString();
  const m = machine(build);
  const t0 = performance.now();

  const rules = [
    { name: "ls-result", match: { text: "bench-ls", last_role: "tool" }, responses: [{ text: "ls done" }] },
    { name: "ls-call", match: { text: "bench-ls" }, responses: [{ tool_calls: [{ name: "ls", arguments: {} }] }] },
    { name: "after-result", match: { last_role: "tool", tool_result: "(verified)" }, responses: [{ text: "FINAL: done" }] },
    { name: "wake-investigate", match: { regex: "investigate-[0-9a-f]{32} completed\\. Call bg_result" }, responses: [{ tool_calls: [{ name: "bg_result", arguments: { taskId: "investigate-" } }] }] },
    { name: "wake", match: { text: "completed. Call bg_result" }, responses: [{ tool_calls: [{ name: "bg_result", arguments: { taskId: "reason-" } }] }] },
    { name: "after-receipt", match: { last_role: "tool", tool_result: "in the background" }, responses: [{ text: "Launched; waiting." }] },
    ...fusionRules().filter((r) => r.name !== "candidate"),
    // investigate candidates: one tool call each, then the answer (a second model round trip).
    { name: "investigate-answer", match: { regex: `^Answer the request[\\s\\S]*${INVESTIGATE_OBJECTIVE}`, last_role: "tool" }, responses: [{ text: "Candidate answer: the project holds notes.txt." }] },
    { name: "investigate-tool", match: { regex: `^Answer the request[\\s\\S]*${INVESTIGATE_OBJECTIVE}` }, responses: [{ tool_calls: [{ name: "ls", arguments: {} }] }] },
    ...fusionRules().filter((r) => r.name === "candidate"),
    { name: "investigate-call", match: { text: "bench-investigate" }, responses: [{ tool_calls: [{ name: "fusion_investigate", arguments: { objective: INVESTIGATE_OBJECTIVE, background: [], deliverable: "One sentence" } }] }] },
    { name: "fuse-call", match: { text: "bench-fuse" }, responses: [{ tool_calls: [{ name: "fusion_reason", arguments: { prompt: QUESTION } }] }] },
  ];
  const script = { rules, default: { text: "ok" } };
  const env = await createPiEnv({
    script,
    files: { "notes.txt": "one file for ls\n" },
    timeoutMs: RUN_TIMEOUT_MS,
  });
  let result;
  try {
    log(`build ${build}, ${opts.runs} runs, peak RSS via ${useTime ? TIME_BIN : "VmHWM polling"}`);
    // One untimed warm-up of each kind (file cache, V8 compile cache).
    must(await spawnIn(env, PINNED_NODE, [PI_CLI, ...BARE_ARGS], { stdin: "warm-up" }), "warm-up child");
    if (opts.only === "five") {
      console.log(fiveRows(await benchFive(env, opts.runs, script), []));
      return;
    }
    if (opts.only === "straggler") {
      const d = await benchStraggler(env, opts.runs, script);
      console.log(stragglerRow(d));
      return;
    }
    const a = await benchRun(env, opts.runs, script);
    const b = await benchChild(env, opts.runs, build, useTime);
    const c = await benchTool(env, opts.runs);
    const d = await benchStraggler(env, opts.runs, script);
    const e = await benchFive(env, opts.runs, script);
    result = { runs: opts.runs, m, a, b, c, d, e, useTime, started, wallS: (performance.now() - t0) / 1000 };
  } finally {
    await env.cleanup();  // stops every process of the env's Pi environment, Fusion children too
  }
  fs.mkdirSync(path.dirname(opts.out), { recursive: true });
  fs.writeFileSync(opts.out, report(result));
  log(`wrote ${path.relative(process.cwd(), opts.out) || opts.out}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
