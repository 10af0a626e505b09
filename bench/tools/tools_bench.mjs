#!/usr/bin/env node
/**
 * @file What the walls cost: one tool batch (grep, find, ls, read) run by Pi's own built-in tools
 * and by a Fusion candidate's walled tools (the child library's read/grep/find/ls,
 * child/file_tools.h), against the same project. Writes bench/results/tools.md with the RATIO
 * walled / built-in measured in the same process, never a pass/fail on wall time.
 *
 *   <pinned node> bench/tools/tools_bench.mjs [--runs N] [--out FILE]
 *     --runs N   repetitions of each side, interleaved (default 7)
 *     --out FILE report path (default bench/results/tools.md)
 *   Build dir: $PI_FUSION_BUILD_DIR (default build/dev); its lib/pi_fusion_child.node is measured.
 *
 * The project is a copy of this repository's src/ and child/ trees (a git repository, as Pi's
 * find needs one with Debian's fd). The tool phase of a run is taken from the scripted model's
 * request log: from the request answered with the tool batch to the request carrying its results
 * (both sides include the same model turn and Pi's own bookkeeping).
 */
import fs from "node:fs";
import path from "node:path";
import { BUILD_DIR, CHILD_EXTENSION, REPO_ROOT, withPiEnv } from "../../tests/support/pi_harness.mjs";

const TOOLS = "read,grep,find,ls";

const BATCH = [
  { name: "grep", arguments: { pattern: "Status", path: "." } },
  { name: "grep", arguments: { pattern: "namespace", path: "src/core", context: 1, limit: 50 } },
  { name: "find", arguments: { pattern: "*.h" } },
  { name: "find", arguments: { pattern: "src/**/*.cc" } },
  { name: "ls", arguments: { path: "src" } },
  { name: "read", arguments: { path: "src/core/canonical_json.cc" } },
  { name: "read", arguments: { path: "child/core/governor.cc", offset: 100, limit: 50 } },
];

function parseArgs(argv) {
  const opts = { runs: 7, out: path.join(REPO_ROOT, "bench", "results", "tools.md") };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") opts.runs = Number(argv[++i]);
    else if (argv[i] === "--out") opts.out = path.resolve(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]} (usage: tools_bench.mjs [--runs N] [--out FILE])`);
  }
  if (!Number.isInteger(opts.runs) || opts.runs < 1 || opts.runs > 100) throw new Error("--runs must be 1..100");
  return opts;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** The project: src/ and child/ of this repository, plus .git/HEAD. */
function corpusFiles() {
  const files = { ".git/HEAD": "ref: refs/heads/main\n" };
  for (const top of ["src", "child"]) {
    for (const rel of fs.readdirSync(path.join(REPO_ROOT, top), { recursive: true })) {
      const abs = path.join(REPO_ROOT, top, rel);
      if (fs.statSync(abs).isFile()) files[path.join(top, rel)] = fs.readFileSync(abs, "utf8");
    }
  }
  return files;
}

/** One run of the batch; returns the tool phase in ms and the results' total text length. */
async function runOnce(env, walled, n) {
  const before = env.requests().length;
  const args = walled
    ? ["--no-builtin-tools", "--tools", TOOLS, "-e", CHILD_EXTENSION]
    : ["--tools", TOOLS];
  const childEnv = walled
    ? {
        PI_FUSION_CHILD_ADDON: path.join(BUILD_DIR, "lib", "pi_fusion_child.node"),
        PI_FUSION_CHILD_ROLE: "candidate",
        PI_FUSION_OVERSIZE_PATH: path.join(env.tmp, `oversize-${n}.md`),
        PI_FUSION_TOOLS: TOOLS,
        PI_FUSION_TOOL_JOURNAL: path.join(env.tmp, `journal-${n}.jsonl`),
        PI_FUSION_TOOL_SEAL: path.join(env.tmp, `seal-${n}.json`),
      }
    : {};
  const r = await env.print("run the tool batch", { args, env: childEnv });
  if (r.code !== 0) throw new Error(`pi exited ${r.code}: ${r.stderr}`);
  const [first, second] = env.requests().slice(before);
  if (!second || second.last_role !== "tool") throw new Error("no tool round trip");
  const errors = second.tool_results.filter((t) => /^(Refused|Error)/.test(t.text));
  if (errors.length) throw new Error(`tool errors: ${errors.map((t) => t.text).join(" | ")}`);
  return { ms: Date.parse(second.time) - Date.parse(first.time), bytes: second.tool_results.reduce((a, t) => a + t.text.length, 0) };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const script = {
    rules: [
      { name: "answer", match: { last_role: "tool" }, responses: [{ text: "done" }] },
      { name: "batch", match: { last_role: "user" }, responses: [{ tool_calls: BATCH }] },
    ],
  };
  const sides = { builtin: [], walled: [] };
  const bytes = { builtin: 0, walled: 0 };
  await withPiEnv({ script, files: corpusFiles(), timeoutMs: 120000 }, async (env) => {
    await runOnce(env, false, -1);  // warm-up: file cache, jiti cache
    await runOnce(env, true, -2);
    for (let i = 0; i < opts.runs; i++) {
      for (const side of ["builtin", "walled"]) {
        const { ms, bytes: b } = await runOnce(env, side === "walled", i);
        sides[side].push(ms);
        bytes[side] = b;
        console.error(`[tools_bench] ${side} run ${i + 1}: ${ms} ms`);
      }
    }
  });
  const b = median(sides.builtin);
  const w = median(sides.walled);
  const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const report = `# Walled file tools against Pi's built-in tools

Generated by \`bench/tools/tools_bench.mjs --runs ${opts.runs}\` (scripts/bench). One batch of
${BATCH.length} calls (two greps, two finds, an ls, two reads) on a copy of this repository's
\`src/\` and \`child/\` (${Object.keys(corpusFiles()).length} files), by Pi's own tools and by a
Fusion candidate's walled tools; the tool phase is taken from the scripted model's request log.
Load average at the end: ${load}; machine: ${fs.readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/)?.[1] ?? "unknown"}.

| side | median tool phase (ms) | runs (ms) | result text (chars) |
| --- | ---: | --- | ---: |
| Pi's built-in tools | ${b} | ${sides.builtin.join(", ")} | ${bytes.builtin} |
| walled tools | ${w} | ${sides.walled.join(", ")} | ${bytes.walled} |

**Ratio walled / built-in: ${(w / b).toFixed(2)}** (median over median).
`;
  fs.mkdirSync(path.dirname(opts.out), { recursive: true });
  fs.writeFileSync(opts.out, report);
  console.log(report);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
