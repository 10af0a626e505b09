/**
 * @file Named panels (fusion-models.json v3) end to end in the real pinned Pi: `/fusion @<panel>`
 * runs on that panel's routes and thinking levels (the scripted model sees which model each stage
 * asked and the reasoning effort Pi sent), no @ takes default_panel, the manifest and the run
 * list name the panel, an unknown @name is refused listing the panels, `/fusion-resume <run>
 * @<panel>` takes the panel's routes for the slots that did not verify, and the TUI's block names
 * the panel and, expanded, its thinking levels.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { fusionRules, MERGED_TEXT, STAGE } from "../../support/fusion_script.mjs";
import { manifestOf, piFusion, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { assertConforms } from "../../support/schema_check.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const RUN_TIMEOUT_MS = 120000;
const FUSION_MODELS_V3 = "pi-background-tasks.fusion-models.v3";

/**
 * The top level asks scripted/scripted-a for every stage; "fast" asks scripted-b for its
 * candidates and its merger speaks the Responses API (scripted-resp), "deep" sets thinking levels.
 */
const PANELS = {
  fast: {
    candidates: ["scripted/scripted-b", "scripted/scripted-b", "scripted/scripted-b"],
    evaluator: "scripted/scripted-a",
    merger: "scripted-resp/scripted-a",
  },
  deep: {
    candidates: ["scripted/scripted-a", "scripted/scripted-a", "scripted/scripted-a"],
    evaluator: "scripted/scripted-a",
    merger: "scripted/scripted-a",
    thinking: { candidates: "low", evaluator: "inherit", merger: "high" },
  },
};

function writePanels(env, extra = {}) {
  const top = "scripted/scripted-a";
  return env.writeAgentFile("fusion-models.json", JSON.stringify({
    schema_version: FUSION_MODELS_V3, candidates: [top, top, top], evaluator: top, merger: top, panels: PANELS, ...extra,
  }));
}

/** The model requests of `env` (from index `from`) by stage: {candidate: [...], evaluator, merger}. */
function byStage(env, from = 0) {
  const out = { candidate: [], evaluator: [], merger: [] };
  for (const q of env.requests().slice(from)) {
    const stage = ["merger", "evaluator", "candidate"].find((s) => q.last_user_text.includes(STAGE[s].text));
    if (stage) out[stage].push(q);
  }
  return out;
}

describe("named panels: /fusion @<panel>", () => {
  test("@fast runs on the panel's routes, the manifest and the run list name it; no @ is the top-level cast", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writePanels(env);
      const r = await env.print("/fusion @fast Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      assert.match(r.stderr, /Panel fast\n/);
      const stages = byStage(env);
      assert.deepEqual(stages.candidate.map((q) => q.model), ["scripted-b", "scripted-b", "scripted-b"]);
      assert.deepEqual([...stages.evaluator, ...stages.merger].map((q) => q.model), ["scripted-a", "scripted-a"]);
      assert.deepEqual([...stages.evaluator, ...stages.merger].map((q) => q.path), ["/v1/chat/completions", "/v1/responses"]);
      // The question reached the candidates without the @name.
      for (const q of stages.candidate) {
        assert.ok(q.last_user_text.includes("Why is the sky blue?"));
        assert.ok(!q.last_user_text.includes("@fast"));
      }
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.panel, "fast");
      assert.equal("thinking" in manifest.models, false, "a panel without levels runs at the parent's");
      assert.deepEqual(manifest.models.candidates.map((c) => c.model), ["scripted-b", "scripted-b", "scripted-b"]);
      assertConforms("fusion-manifest.v5.json", `${dir}/manifest.json`);
      const runs = piFusion(env.cwd, "runs");
      assert.match(runs.stdout, /completed, panel fast/);

      // Without @: the top-level cast, and no panel on record.
      const before = env.requests().length;
      const plain = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(plain.code, 0, plain.stderr);
      assert.doesNotMatch(plain.stderr, /Panel /);
      assert.deepEqual(byStage(env, before).candidate.map((q) => q.model), ["scripted-a", "scripted-a", "scripted-a"]);
      const second = runDirs(env).find((d) => d !== dir);
      assert.equal("panel" in manifestOf(second), false);
    });
  });

  test("default_panel is the run's panel when none is named; an unknown @name is refused listing the panels", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writePanels(env, { default_panel: "fast" });
      const refused = await env.print("/fusion @slow Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(refused.code, 1, refused.stderr);
      assert.match(refused.stderr, /no panel named "slow" in fusion-models\.json; its panels: deep, fast \(default\)\./);
      assert.equal(env.requests().length, 0, "nothing was asked");
      assert.deepEqual(runDirs(env), []);
      // A panel without a question, and no editor to ask for one: the usage.
      const bare = await env.print("/fusion @fast", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(bare.code, 1, bare.stderr);
      assert.match(bare.stderr, /Usage: \/fusion \[@<panel>\] <prompt>/);
      assert.deepEqual(runDirs(env), []);

      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(byStage(env).candidate.map((q) => q.model), ["scripted-b", "scripted-b", "scripted-b"]);
      assert.equal(manifestOf(runDirs(env)[0]).panel, "fast");
    });
  });

  test("@deep's thinking levels reach each role's requests; inherit keeps the parent's", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writePanels(env);
      const r = await env.print("/fusion @deep Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS, thinking: "medium" });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /Panel deep · thinking candidates low, evaluator medium, merger high\n/);
      const stages = byStage(env);
      assert.deepEqual(stages.candidate.map((q) => q.body.reasoning_effort), ["low", "low", "low"]);
      assert.deepEqual(stages.evaluator.map((q) => q.body.reasoning_effort), ["medium"]);
      assert.deepEqual(stages.merger.map((q) => q.body.reasoning_effort), ["high"]);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.models.thinking_level, "medium");
      assert.deepEqual(manifest.models.thinking, { candidates: "low", evaluator: "medium", merger: "high" });
      assertConforms("fusion-manifest.v5.json", `${dir}/manifest.json`);
    });
  });

  test("/fusion-resume <run> @fast asks the panel's route for the slot that did not verify; the rest keep their routes", async () => {
    await withFusionEnv({ script: { rules: fusionRules({ merger: [{ status: 500 }] }) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writePanels(env);
      const first = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(first.code, 1, first.stderr);
      const [oldDir] = runDirs(env);
      assert.equal(manifestOf(oldDir).error.stage, "merge");
      env.server.setScript({ rules: fusionRules() });
      const before = env.requests().length;
      const r = await env.print(`/fusion-resume ${path.basename(oldDir)} @fast`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      const stages = byStage(env, before);
      // Every candidate and the evaluation are reused with the models that wrote them; the
      // merger, which did not verify, runs on the panel's route.
      assert.deepEqual(stages.candidate, []);
      assert.deepEqual(stages.evaluator, []);
      assert.deepEqual(stages.merger.map((q) => q.path), ["/v1/responses"]);
      const newDir = runDirs(env).find((d) => d !== oldDir);
      const manifest = manifestOf(newDir);
      assert.equal(manifest.panel, "fast");
      assert.equal(manifest.resumed_from, path.basename(oldDir));
      assert.equal(manifest.models.merger.provider, "scripted-resp");
      assert.deepEqual(manifest.models.candidates.map((c) => c.model), ["scripted-a", "scripted-a", "scripted-a"]);
      assertConforms("fusion-manifest.v5.json", `${newDir}/manifest.json`);
    });
  });

  test("TUI: the run's block names the panel; expanded, it shows the panel's thinking levels", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writePanels(env);
      await withTmuxPi(env, {}, async (ui) => {
        await ui.ready();
        await ui.submit("/fusion @deep Why is the sky blue?");
        const collapsed = await ui.waitFor(/5 model requests/, RUN_TIMEOUT_MS, "the completed run");
        assert.match(collapsed, /✓ completed in \d+:\d\d · panel deep/);
        ui.keys("C-o");
        // Above the cost by role: the panel and the level each role ran at.
        const expanded = await ui.waitFor(/Panel deep · thinking candidates low, evaluator \w+, merger high/, 10000, "the panel line");
        assert.match(expanded, /Cost by role/);
      });
    });
  });

  test("/fusion-resume with an @name that is not a panel name is refused with the usage", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const r = await env.print("/fusion-resume 1a2b3c4d @Fast", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /"@Fast" does not name a panel/);
    });
  });
});
