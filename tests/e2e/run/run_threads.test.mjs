/**
 * @file What the plugin leaves behind between calls, seen from inside the real pinned Pi through
 * tests/e2e/fixtures/thread-probe.ts: a finished run's worker thread is joined and dropped as the
 * run ends (not only at shutdown), and bg_kill answers from the run's terminal event, with one
 * timer (its 30 s cap, cleared once it answered) and no polling.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { PLUGIN, REPO_ROOT } from "../../support/pi_harness.mjs";
import { fusionRules, killRules } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs, survivingChildren, withFusionEnv } from "../../support/fusion_runs.mjs";

const PROBE = path.join(REPO_ROOT, "tests", "e2e", "fixtures", "thread-probe.ts");
const RUNS = 3;

/** Runs `/e2e-threads` in `rpc` and returns what it wrote. */
async function probe(rpc, out) {
  await rpc.prompt("/e2e-threads");
  return JSON.parse(fs.readFileSync(out, "utf8"));
}

describe("run threads", () => {
  test(`after ${RUNS} runs one after another, at most one worker thread is left unjoined`, async (t) => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const out = path.join(env.tmp, "threads.json");
      const rpc = env.rpc({ extensions: [PLUGIN, PROBE], env: { PI_FUSION_PROBE_OUT: out } });
      for (let i = 0; i < RUNS; i++) {
        const from = rpc.records.length;
        await rpc.prompt("/fusion Why is the sky blue?");
        await rpc.waitFor((r) => r.type === "extension_ui_request" && r.method === "notify" &&
          /^fusion reason reason-[0-9a-f]{32} completed\./.test(r.message ?? ""), { from });
      }
      const seen = await probe(rpc, out);
      await rpc.close();
      assert.equal(runDirs(env).length, RUNS);
      assert.equal(typeof seen.workers, "number", "the plugin reports its worker threads");
      t.diagnostic(`${seen.workers} worker threads held after ${RUNS} runs`);
      // Before finished workers were reaped as they ended, all RUNS stayed until shutdown.
      assert.ok(seen.workers <= 1, `${seen.workers} worker threads left after ${RUNS} finished runs`);
    });
  });

  test("bg_kill answers from the run's terminal event: one capped timer, cleared, and no poll", async () => {
    await withFusionEnv({ script: { rules: killRules() } }, async (env) => {
      const out = path.join(env.tmp, "threads.json");
      const rpc = env.rpc({ extensions: [PLUGIN, PROBE], env: { PI_FUSION_PROBE_OUT: out } });
      const killed = await rpc.prompt("please fuse");
      assert.equal(killed.text, "KILLED", rpc.stderr);
      const answer = env.requests().find((q) => q.tool_results?.some((t) => t.name === "bg_kill")).tool_results[0].text;
      assert.match(answer, /^killed reason-[0-9a-f]{32}/);
      const seen = await probe(rpc, out);
      await rpc.close({ timeoutMs: 30000 });
      assert.equal(manifestOf(runDirs(env)[0]).state, "cancelled");
      assert.deepEqual(survivingChildren(env), []);
      // A poll would have set a 100 ms timer for every 100 ms the stop took (it takes longer than
      // that: the candidates get SIGTERM and the run records its end durably).
      assert.deepEqual(seen.killTimers, [{ ms: 30000, cleared: true }]);
    });
  });
});
