/**
 * @file What the plugin leaves behind between calls, seen from inside the real pinned Pi through
 * tests/e2e/fixtures/thread-probe.ts: a finished run's worker thread is joined and dropped as the
 * run ends (not only at shutdown).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { createPiEnv, REPO_ROOT } from "../../support/pi_harness.mjs";
import { fusionRules } from "../../support/fusion_script.mjs";
import { runDirs } from "../../support/fusion_runs.mjs";

const PLUGIN = path.join(REPO_ROOT, "extensions", "fusion.ts");
const PROBE = path.join(REPO_ROOT, "tests", "e2e", "fixtures", "thread-probe.ts");
const RUN_TIMEOUT_MS = 120000;
const RUNS = 3;

/** Runs `/e2e-threads` in `rpc` and returns what it wrote. */
async function probe(rpc, out) {
  await rpc.prompt("/e2e-threads");
  return JSON.parse(fs.readFileSync(out, "utf8"));
}

describe("run threads", () => {
  test(`after ${RUNS} runs one after another, at most one worker thread is left unjoined`, async (t) => {
    const env = await createPiEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS });
    try {
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
    } finally {
      await env.cleanup();
    }
  });
});
