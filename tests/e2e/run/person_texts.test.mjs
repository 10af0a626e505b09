/**
 * @file The texts a person meets when something is off, and views that agree, through the real
 * pinned Pi and the `pi-fusion` CLI: a bad `prune --state`, a broken or refused model config, a
 * degraded run as `bg_status`, `pi-fusion runs` and print mode's progress lines show it, and in
 * the TUI the footer's cost, an answer's unfenced code and a resumed run's block.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import {
  callStep, EVALUATION_AB, fusionRules, launchRules, SECOND_CANDIDATE_ON_B, STAGE, THIRD_CANDIDATE_ON_B, writeFusionModels, writeFusionModelsV2,
} from "../../support/fusion_script.mjs";
import { manifestOf, piFusion, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { lastToolResult } from "../../support/pi_harness.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const RUN_TIMEOUT_MS = 120000;
const DEGRADED = "Degraded: answered from 2 of 3 candidates; candidate 3 (scripted/scripted-b) failed (child_exit_failed).";

describe("texts for the person, views that agree", () => {
  test("small edges: prune's allowed states; a broken config says how to fix it and names its slots", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      let r = piFusion(env.cwd, "prune", "--state", "bogus", "--cwd", env.cwd);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.equal(r.stderr, 'error: invalid_arguments: --state takes one of completed, failed, cancelled, interrupted (found "bogus")\n');
      assert.equal(piFusion(env.cwd, "prune", "--state", "failed", "--cwd", env.cwd).code, 0);

      const config = path.join(env.agentDir, "fusion-models.json");
      fs.writeFileSync(config, "{ not json");
      r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 1, r.stderr);
      const [first] = r.stderr.split("\n(error code: config_invalid)");
      assert.match(first, /^Fusion failed \(stage=preflight, slot=none, attempt=none\): Invalid .*fusion-models\.json: not valid JSON \(/);
      assert.ok(first.endsWith(" Fix the file, or delete it and choose the models again with /fusion-models."), r.stderr);

      // A refusal naming one slot names it in the failure line too: never slot=none beside it.
      fs.writeFileSync(config, JSON.stringify({
        schema_version: "pi-background-tasks.fusion-models.v1",
        candidates: ["scripted/scripted-a", "nope/none", "scripted/scripted-a"], evaluator: "scripted/scripted-a", merger: "scripted/scripted-a",
      }));
      r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /^Fusion failed \(stage=preflight, slot=2, attempt=none\): Candidate 2 model nope\/none is not available/);
      assert.equal(env.requests().length, 0, "no model request");
    });
  });

  test("a degraded run: bg_status, pi-fusion runs and --json say so; print mode's progress lines carry the TUI's words and the time", async () => {
    const stages = [
      { name: "third", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ status: 500 }] },
      ...fusionRules({ evaluator: [{ text: JSON.stringify(EVALUATION_AB) }], repair: [{ text: JSON.stringify(EVALUATION_AB) }] }),
    ];
    // The wake notice stays the last user text while the agent reads bg_status: its rule first.
    const rules = [
      { name: "after-status", match: { last_role: "tool", tool_result: "  completed  fusion reason" }, responses: [{ text: "noted" }] },
      { name: "wake", match: { text: "completed. Call bg_result" }, responses: [callStep("bg_status", {})] },
      ...launchRules({ stages }),
    ];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2 });
      const r = await env.print("please fuse", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      const [dir] = runDirs(env);
      const id = path.basename(dir);
      const short = id.slice("reason-".length, "reason-".length + 8);

      const status = lastToolResult(env.requests(), "bg_status");
      assert.ok(status, "the agent called bg_status");
      assert.match(status.text, new RegExp(`^${id}  completed  fusion reason  \\(degraded \\(2 of 3 candidates\\)\\)$`, "m"));

      const table = piFusion(env.cwd, "runs", "--cwd", env.cwd);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, new RegExp(`^${id} +reason +completed, degraded \\(2 of 3 candidates\\) +\\d+s `, "m"));
      assert.ok(table.stdout.split("\n").includes(`${id}: ${DEGRADED}`), table.stdout);
      const [row] = JSON.parse(piFusion(env.cwd, "runs", "--json", "--cwd", env.cwd).stdout);
      assert.deepEqual(row.degraded, { slot: 3, model: "scripted/scripted-b", reason: "failed", code: "child_exit_failed", grace_seconds: null });

      // Print mode: each progress line is the TUI's line (stage, counts, elapsed), then the event.
      const progress = r.stderr.split("\n").filter((l) => l.startsWith(`fusion reason ${short}: `) && !l.includes(" landed · "));
      const line = (re) => assert.ok(progress.some((l) => re.test(l)), `${re}\n${progress.join("\n")}`);
      line(new RegExp(`^fusion reason ${short}: candidates 0/3 done · \\d+:\\d\\d · candidate 1 starting$`));
      line(new RegExp(`^fusion reason ${short}: candidates [0-2]/3 done, 1 failed · \\d+:\\d\\d · candidate 3 failed \\(`));
      line(new RegExp(`^fusion reason ${short}: evaluating candidates · \\d+:\\d\\d$`));
      line(new RegExp(`^fusion reason ${short}: merging the final answer · \\d+:\\d\\d$`));
      line(new RegExp(`^fusion reason ${short}: completed · \\d+:\\d\\d$`));
      assert.ok(progress.some((l) => l.endsWith(DEGRADED)), progress.join("\n"));
    });
  });

  test("TUI: a resumed run's block says so collapsed, its unfenced code keeps its stars, and the footer shows what the runs cost", async () => {
    const CODE_ANSWER = "# Products\n\nCompute x = a*b*c first, then y = 2*n*m.";
    const rules = [
      { name: "second", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ status: 500, delay_ms: 2500 }, { status: 500 }] },
      ...fusionRules({ merger: [{ text: CODE_ANSWER }] }),
    ];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, SECOND_CANDIDATE_ON_B);
      const failed = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(failed.code, 1, failed.stderr);
      const [oldDir] = runDirs(env);
      const oldShort = path.basename(oldDir).slice("reason-".length, "reason-".length + 8);
      await withTmuxPi(env, {}, async (ui) => {
        await ui.ready();
        await ui.submit(`/fusion-resume ${oldShort} --slot 2=scripted/scripted-a`);
        const done = await ui.waitFor(/Compute x = /, RUN_TIMEOUT_MS, "the resumed run's answer");
        const newDir = runDirs(env).find((d) => d !== oldDir);
        assert.equal(manifestOf(newDir).state, "completed");
        // Collapsed (the answer's preview shown, the expand hint below): its status names the old run.
        assert.match(done, new RegExp(`completed in \\d+:\\d\\d · resumed from ${oldShort}`));
        assert.match(done, /Compute x = a\*b\*c first, then y = 2\*n\*m\./);
        // Its notice warned before the run, as a tool's receipt does: the swap put all three on one model.
        const notice = done.slice(done.indexOf("Resumes reason-"));
        assert.match(notice.replace(/\s+/g, " "), /All three candidates run on one model \(scripted\/scripted-a\), so their agreement is weaker evidence than agreement between different models\. Estimate/);
        // Pi's footer: what this Pi process's runs cost, as the run's manifest priced it.
        const cost = `$${manifestOf(newDir).usage.cost.total.toFixed(4)}`;
        await ui.waitFor((s) => s.includes(`fusion: ${cost}`), 10000, `fusion: ${cost} in the footer`);
      });
    });
  });
});
