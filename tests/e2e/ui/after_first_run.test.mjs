/**
 * @file What a person meets after the first run, in the real pinned Pi: a run cancelled by
 * quitting Pi says so in every later view (bg_status, bg_result, `pi-fusion runs`, the resumed
 * transcript), the resumed transcript no longer calls an ended run "started in the background",
 * and bg_result of a run another live Pi owns names that Pi instead of promising a notification.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { callStep, fusionRules, launchRules, lookupRules } from "../../support/fusion_script.mjs";
import { manifestOf, piFusion, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { lastToolResult } from "../../support/pi_harness.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const RUN_TIMEOUT_MS = 90000;
const RUN_ID = "reason-[0-9a-f]{32}";

/** Candidates that never answer: the run stays in its candidate stage until cancelled. */
const stalledLaunch = () => launchRules({ stages: fusionRules({ candidate: [{ stall: true }] }) });

/** A session Pi (RPC) launches a run and quits while its candidates work: the run is cancelled. */
async function runCancelledByQuitting(env) {
  const rpc = env.rpc({ session: true });
  await rpc.prompt("please fuse");
  await env.server.waitForRequests(4);  // the parent's two and at least two stalled candidates
  await rpc.close({ timeoutMs: 30000 });
  const [dir] = runDirs(env);
  assert.equal(manifestOf(dir).state, "cancelled");
  return dir;
}

describe("after the first run", () => {
  test("a run cancelled by quitting Pi names that cause in bg_status, bg_result and pi-fusion runs", async () => {
    const rules = [
      { name: "after-result", match: { last_role: "tool", tool_result: "no answer was committed" }, responses: [{ text: "Done." }] },
      { name: "after-status", match: { last_role: "tool", tool_result: "earlier Pi process" }, responses: [callStep("bg_result", { taskId: "reason-" })] },
      { name: "status", match: { text: "what ran before" }, responses: [callStep("bg_status", {})] },
      ...stalledLaunch(),
    ];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const dir = await runCancelledByQuitting(env);
      const later = await env.print("what ran before", { session: true, args: ["-c"] });
      assert.equal(later.code, 0, later.stderr);
      assert.equal(later.stdout, "Done.\n");
      const status = lastToolResult(env.requests(), "bg_status");
      assert.match(status.text, new RegExp(`^${RUN_ID} {2}cancelled {2}fusion reason {2}\\(earlier Pi process; cancelled by quitting Pi\\)$`, "m"));
      const result = lastToolResult(env.requests(), "bg_result");
      assert.match(result.text, new RegExp(`^Fusion ${RUN_ID} \\(reason\\) cancelled by quitting Pi; no answer was committed\\.$`, "m"));
      assert.doesNotMatch(`${status.text}\n${result.text}`, /killed/);

      const table = piFusion(env.cwd, "runs");
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, new RegExp(`^${RUN_ID} +reason +cancelled by quitting Pi +`, "m"));
      const json = piFusion(env.cwd, "runs", "--json");
      assert.equal(JSON.parse(json.stdout)[0].cancelled_by, "quitting Pi");
      // Where it is recorded durably: the run's own terminal error.
      assert.equal(manifestOf(dir).error.message, "cancelled by quitting Pi");
    });
  });

  test("the resumed transcript says how an ended run ended, not that it started in the background", async () => {
    await withFusionEnv({ script: { rules: stalledLaunch() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const dir = await runCancelledByQuitting(env);
      await withTmuxPi(env, { session: true, args: ["-c"] }, async (ui) => {
        await ui.ready();
        const screen = await ui.waitFor(/Launched; waiting\./, 30000, "the resumed transcript");
        const id = path.basename(dir);
        assert.match(screen, new RegExp(`⊘ ran in the background and was cancelled by quitting Pi \\(${id}\\)`));
        assert.match(screen, /Pi cancels active runs when it quits or reloads\./);
        assert.doesNotMatch(screen, /started in the background/);
        assert.doesNotMatch(screen, /You will be notified when it ends/);
      });
    });
  });

  test("bg_result of a run another live Pi owns names that Pi and promises no notification", async () => {
    const rules = [...lookupRules("reason-"), ...stalledLaunch()];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const owner = env.rpc({ session: true });
      await owner.prompt("please fuse");
      await env.server.waitForRequests(4);
      const [dir] = runDirs(env);
      const sessionDir = path.basename(path.dirname(dir));
      const [, session, pid] = sessionDir.match(/^(.*)-(\d+)$/);
      assert.equal(Number(pid), owner.child.pid, "the session directory names the owner's pid");

      const other = await env.print("get it");
      assert.equal(other.code, 0, other.stderr);
      const result = lastToolResult(env.requests(), "bg_result");
      assert.match(result.text, new RegExp(`is running in another Pi process \\(pid ${pid}, session ${session}\\)`));
      assert.match(result.text, /this Pi will not be\./);
      assert.ok(result.text.includes(`${dir}/merged.md`), result.text);
      assert.match(result.text, /pi-fusion runs/);
      assert.doesNotMatch(result.text, /Wait for the terminal notification/);
      assert.equal(manifestOf(dir).state, "candidates_running", "still running in its owner");
      await owner.close({ timeoutMs: 30000 });
    });
  });
});
