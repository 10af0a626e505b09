/**
 * @file Quitting Pi the moment a run starts (its preflight, or the first spawns): the quit returns
 * within 5 s and the run is left cancelled on disk, durably, with no model request of the run.
 * Quitting during preflight itself is covered by the fake-seam unit tests
 * (tests/unit/tasks/lifecycle_test.cc, "cancelled during preflight"): preflight takes
 * milliseconds and cannot be held from here.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { launchRules } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs, survivingChildren, withFusionEnv } from "../../support/fusion_runs.mjs";
import { latencyLimitMs } from "../../support/sanitizer_env.mjs";
const QUIT_WITHIN_MS = latencyLimitMs(5000);

describe("quitting Pi", () => {
  test("as the tool starts: the quit is prompt and the run is cancelled before any child runs", async () => {
    await withFusionEnv({ script: { rules: launchRules() } }, async (env) => {
      const rpc = env.rpc();
      await rpc.send({ type: "prompt", message: "please fuse" });
      // The tool has been called: its preflight runs on a worker now. Quit at once.
      await rpc.waitFor((r) => r.type === "tool_execution_start" && r.toolName === "fusion_reason");
      const quitAt = Date.now();
      const closed = await rpc.close({ timeoutMs: 30000 });
      const quitMs = Date.now() - quitAt;
      assert.ok(quitMs < QUIT_WITHIN_MS, `quit took ${quitMs} ms\n${closed.stderr}`);
      const dirs = runDirs(env);
      assert.equal(dirs.length, 1, "the run directory exists");
      const manifest = manifestOf(dirs[0]);
      assert.equal(manifest.state, "cancelled");
      assert.ok(fs.existsSync(path.join(dirs[0], "error.json")));
      // Preflight or the start of the candidates: either way, no child ran.
      for (const a of manifest.attempts) assert.equal(a.state, "cancelled", JSON.stringify(a));
      assert.deepEqual(env.requests().map((q) => q.rule_name), ["ask"], "no model request of the run");
      assert.deepEqual(survivingChildren(env), []);
    });
  });
});
