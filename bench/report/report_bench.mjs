#!/usr/bin/env node
/**
 * @file `pi-fusion report` on a large run against the same command on a small one. Writes
 * bench/results/report.md with the RATIO of the two and each report's size (never a pass/fail on
 * wall time).
 *
 *   <pinned node> bench/report/report_bench.mjs [--runs N] [--out FILE]
 *     --runs N   timed reports of each run (default 15; the median is reported)
 *     --out FILE report path (default bench/results/report.md)
 *   Build dir: $PI_FUSION_BUILD_DIR (default build/dev).
 *
 * The small run is a real reason run of the pinned Pi against the scripted model (tests/support).
 * The large run is that run enlarged the way a long investigate run is: each candidate's answer
 * replaced by 48 KiB of Markdown (headings, tables, code, links and every character HTML escapes)
 * and a sealed-journal-shaped tool-call log of 200 calls (600 in all; every fifth refused, every
 * tenth a fetched page; their starts spread over the attempt, so the timeline draws every tick), every new byte bound in the manifest so the whole run still verifies.
 * Both are timed as a person runs them: one `pi-fusion report` process each, best and median.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fusionRules } from "../../tests/support/fusion_script.mjs";
import { PI_FUSION_BIN } from "../../tests/support/pi_harness.mjs";
import { runDirs, withFusionEnv } from "../../tests/support/fusion_runs.mjs";

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const RUNS = Number(option("--runs", 15));
const OUT = option("--out", path.resolve(import.meta.dirname, "../results/report.md"));
const ANSWER_BYTES = 48 * 1024;
const CALLS_PER_CANDIDATE = 200;

const sha = (bytes) => "sha256:" + crypto.createHash("sha256").update(bytes).digest("hex");

function answer(slot) {
  const block = [
    `## Part ${slot}`, "", "Text with <angle> & \"quotes\" and 'apostrophes', **bold**, `code`, [a link](https://example.com/x?a=1&b=2).", "",
    "| file | line | note |", "|---|---|---|", "| src/a.cc | 12 | <b>escaped</b> |", "| src/b.cc | 34 | a & b |", "",
    "```cpp", "int main() { return a < b && c > d; }", "```", "", "- item one", "- item two", "",
  ].join("\n");
  let text = "";
  while (text.length + block.length < ANSWER_BYTES) text += block;
  return text.padEnd(ANSWER_BYTES, ".");
}

/** The journal of an attempt: its calls' starts spread evenly over the attempt's time. */
function journal(attempt) {
  const start = Date.parse(attempt.started_at);
  const span = Math.max(Date.parse(attempt.ended_at ?? attempt.started_at) - start, CALLS_PER_CANDIDATE);
  const lines = [];
  for (let i = 1; i <= CALLS_PER_CANDIDATE; i++) {
    const record = {
      schema_version: "pi-background-tasks.fusion-tool-call.v1", ordinal: i, tool_name: i % 10 === 0 ? "fusion_web_fetch" : "read",
      arguments_sha256: sha(`args ${i}`), arguments_bytes: 40, result_sha256: sha(`result ${i}`), result_bytes: 1000 + i,
      status: i % 5 === 0 ? "error" : "ok", duration_ms: 5 + (i % 17),
      started_at: new Date(start + Math.floor(((i - 1) * span) / CALLS_PER_CANDIDATE)).toISOString(),
    };
    if (i % 10 === 0) Object.assign(record, { url: `https://example.com/page/${i}`, http_status: 200, response_bytes: 4096 });
    if (i % 5 === 0) record.error_code = "path_outside_project";
    lines.push(JSON.stringify(record));
  }
  return lines.join("\n") + "\n";
}

/** Binds `bytes` as `name` in the manifest (and in the attempt's artifact list). */
function bind(dir, manifest, attempt, name, bytes) {
  fs.writeFileSync(path.join(dir, name), bytes, { mode: 0o600 });
  manifest.artifacts[name] = { path: name, byte_length: Buffer.byteLength(bytes), sha256: sha(bytes) };
  if (!attempt.artifacts.includes(name)) attempt.artifacts.push(name);
}

function enlarge(dir) {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
  for (const attempt of manifest.attempts.filter((a) => a.stage === "candidate")) {
    const prefix = `candidate-${attempt.slot}.attempt-${attempt.attempt}`;
    bind(dir, manifest, attempt, `${prefix}.response.md`, answer(attempt.slot));
    bind(dir, manifest, attempt, `${prefix}.tool-calls.jsonl`, journal(attempt));
  }
  fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 2));
}

function time(dir, out) {
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const start = process.hrtime.bigint();
    const r = spawnSync(PI_FUSION_BIN, ["report", dir, "--out", out], { encoding: "utf8" });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (r.status !== 0) throw new Error(`pi-fusion report ${dir}: exit ${r.status}: ${r.stderr}`);
  }
  times.sort((a, b) => a - b);
  return { best: times[0], median: times[Math.floor(times.length / 2)], bytes: fs.statSync(out).size };
}

await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
  const r = await env.print("/fusion Why is the sky blue?");
  if (r.code !== 0) throw new Error(r.stderr);
  const [base] = runDirs(env);
  const small = path.join(env.cwd, "small", path.basename(base));
  const large = path.join(env.cwd, "large", path.basename(base));
  fs.cpSync(base, small, { recursive: true });
  fs.cpSync(base, large, { recursive: true });
  enlarge(large);
  const s = time(small, path.join(env.cwd, "small.html"));
  const l = time(large, path.join(env.cwd, "large.html"));
  // What was timed is what the bench says: every call counted, the answers rendered.
  const page = fs.readFileSync(path.join(env.cwd, "large.html"), "utf8");
  const ticks = page.split('class="call-ticks ok" data-calls="160"').length - 1 + page.split('class="call-ticks refused" data-calls="40"').length - 1;
  if (page.split("200 tool calls, 40 refused or failed").length !== 4 || page.split("<h2>Part ").length < 30 || ticks !== 6) {
    throw new Error("the large report does not show the enlarged run");
  }
  const ms = (v) => v.toFixed(1);
  const report = [
    "# `pi-fusion report`: a large run against a small one",
    "",
    `Written by bench/report/report_bench.mjs (${RUNS} reports of each run, one process each; ${new Date().toISOString()}).`,
    "",
    "| run | best ms | median ms | report bytes |",
    "|---|---:|---:|---:|",
    `| small: a real reason run (3 short answers, no tool calls) | ${ms(s.best)} | ${ms(s.median)} | ${s.bytes} |`,
    `| large: 3 × 48 KiB answers, 600 tool calls | ${ms(l.best)} | ${ms(l.median)} | ${l.bytes} |`,
    "",
    `Large / small, median: **${(l.median / s.median).toFixed(2)}×** (the small run's time is mostly process start).`,
    "",
  ].join("\n");
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, report);
  process.stdout.write(report);
});
