/**
 * @file What a person reads, in the real pinned Pi: the TUI in tmux (answer after /fusion,
 * collapsed and expanded views, a failed run, live progress of concurrent runs, cancellation
 * notices) and the one-shot modes (json stays JSONL with the answer in an event; print mode's
 * usage error exits non-zero).
 */
import assert from "node:assert/strict";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { agentRules, CANDIDATE_TEXT, callStep, fusionRules, launchRules, MERGED_TEXT, pricedRules, SECOND_CANDIDATE_ON_B, writeFusionModels } from "../../support/fusion_script.mjs";
import { withFusionEnv } from "../../support/fusion_runs.mjs";
import { PLUGIN, REPO_ROOT, withPiEnv } from "../../support/pi_harness.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const RUN_TIMEOUT_MS = 90000;

/** Runs `body(ui, env)` in the TUI of a new environment scripted by `script`, once Pi is ready. */
function withTui(script, body, opts = {}) {
  return withFusionEnv({ script, timeoutMs: RUN_TIMEOUT_MS }, (env) => withTmuxPi(env, opts, async (ui) => {
    await ui.ready();
    await body(ui, env);
  }));
}

const RUN_ID = /reason-[0-9a-f]{32}/;

describe("the TUI shows Fusion to the person", () => {
  test("/fusion: the verified answer appears with no extra model request; collapsed, then expanded", async () => {
    // Each stage reports fixed usage (STAGE_USAGE), so the run's and each role's figures are known.
    await withTui({ rules: pricedRules() }, async (ui, env) => {
      await ui.submit("/fusion Why is the sky blue?");
      const collapsed = await ui.waitFor(/5 model requests/, RUN_TIMEOUT_MS, "the completed run");
      assert.match(collapsed, /^\s*5 model requests · 17,600 tokens · \$0\.0104 · estimated \$\d+\.\d{4} expected \(a quarter of each output cap\), \$\d+\.\d{4} worst case\s*$/m);
      await sleep(1500);  // nothing else may follow: no turn for the agent
      assert.equal(env.requests().length, 5, "three candidates, the evaluator, the merger: nothing more");
      assert.match(collapsed, /fusion reason Why is the sky blue\?/);
      assert.match(collapsed, /✓ completed in \d+:\d\d/);
      assert.match(collapsed, /✓ Candidate 1 scripted\/scripted-a/);
      assert.match(collapsed, /Why the sky is blue/);
      assert.match(collapsed, /Sunlight is scattered by air molecules/);
      assert.match(collapsed, /to expand/);
      // Every slot is $current: the block says the agreement of one model is weaker evidence.
      assert.match(collapsed, /All three candidates run on one model \(scripted\/scripted-a\), so their/);
      assert.doesNotMatch(collapsed, /sha256|Do not poll|Call bg_result/);
      assert.doesNotMatch(collapsed, /Candidate 1 \(/);
      assert.doesNotMatch(collapsed, /Quitting or reloading Pi cancels/, "no hint once no run is active");

      ui.keys("C-o");
      // The expanded block is large: wait for its first and last parts, not only its third header.
      const expanded = await ui.waitFor((s) => /Candidate 3 \(/.test(s) && /• Merger \(/.test(s)
        && s.split(CANDIDATE_TEXT.slice(0, 40)).length - 1 >= 3, 10000, "the expanded candidates");
      // Named as in the status row, slot first, with the letter the evaluation uses.
      for (const slot of [1, 2, 3]) assert.match(expanded, new RegExp(`Candidate ${slot} \\([ABC]\\) scripted/scripted-a`));
      assert.equal(expanded.split(CANDIDATE_TEXT.slice(0, 40)).length - 1, 3, "three candidate answers");
      assert.match(expanded, /Agreements\s*\n\s*• Rayleigh scattering explains the colour/);
      assert.match(expanded, /Artifacts: \S+\/reason-[0-9a-f]{32}/);
      // What each role used, from the run's manifest: one request each here.
      assert.match(expanded, /Cost by role/);
      for (const [role, tokens, cost] of [
        ["Candidate 1", "2,200", "0.0013"], ["Candidate 2", "2,200", "0.0013"], ["Candidate 3", "2,200", "0.0013"],
        ["Evaluator", "4,400", "0.0026"], ["Merger", "6,600", "0.0039"],
      ]) {
        assert.match(expanded, new RegExp(`^\\s*• ${role} \\(scripted/scripted-a\\): 1 model request · ${tokens} tokens · \\$${cost.replace(".", "\\.")}\\s*$`, "m"));
      }
      assert.doesNotMatch(expanded, /• Repair/, "no repair ran");
      assert.equal(env.requests().length, 5);
    });
  });

  test("a failed run shows where it stopped and why", async () => {
    const rules = fusionRules({ candidate: [{ malformed: true }] });
    await withTui({ rules }, async (ui) => {
      await ui.submit("/fusion Why is the sky blue?");
      const screen = await ui.waitFor(/✗ failed at candidate \d/, RUN_TIMEOUT_MS, "the failed run");
      assert.match(screen, /✗ Candidate \d/);
      assert.match(screen, /· Evaluator|Evaluator/);
      assert.match(screen, /child_[a-z_]+: /, "the error code and message");
      assert.doesNotMatch(screen, /5 model requests/);
    });
  });

  test("a failed run keeps what was paid for: ctrl+o shows each verified candidate, the failing model and the provider's words", async () => {
    // Candidate 2 (on scripted-b) fails on its provider after candidates 1 and 3 have verified.
    const rules = [
      { match: { text: "Answer the request", model: "scripted-b" }, responses: [{ status: 500, delay_ms: 4000 }, { status: 500 }] },
      ...fusionRules(),
    ];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, SECOND_CANDIDATE_ON_B);
      await withTmuxPi(env, {}, async (ui) => {
        await ui.ready();
        await ui.submit("/fusion Why is the sky blue?");
        const collapsed = await ui.waitFor(/✗ failed at candidate 2/, RUN_TIMEOUT_MS, "the failed run");
        // The failing slot's row names its model; the error is a sentence, not the reply's JSON.
        assert.match(collapsed, /✗ Candidate 2 scripted\/scripted-b/);
        assert.match(collapsed, /child_exit_failed: scripted\/scripted-b answered HTTP 500: Scripted internal server\s+error \(api_error\)/);
        assert.doesNotMatch(collapsed, /\{"message"/, "no raw JSON");
        assert.doesNotMatch(collapsed, new RegExp(CANDIDATE_TEXT.slice(0, 40)), "answers only when expanded");
        ui.keys("C-o");
        const expanded = await ui.waitFor((s) => s.split(CANDIDATE_TEXT.slice(0, 40)).length - 1 >= 2, 10000, "the verified answers");
        assert.equal(expanded.split(CANDIDATE_TEXT.slice(0, 40)).length - 1, 2, "candidates 1 and 3, not the failed one");
        assert.match(expanded, /^\s*Candidate 1 scripted\/scripted-a\s*$/m);
        assert.match(expanded, /^\s*Candidate 3 scripted\/scripted-a\s*$/m);
        assert.doesNotMatch(expanded, /^\s*Candidate 2 scripted\/scripted-b\s*$/m);
      });
    });
  });

  test("an agent-launched run, expanded: each candidate once, in the run's block, though bg_result read the run too", async () => {
    await withFusionEnv({ script: { rules: [...agentRules({ final: "FINAL: read it" }), ...fusionRules()] }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      await withTmuxPi(env, { height: 200 }, async (ui) => {
        await ui.ready();
        await ui.submit("please fuse");
        await ui.waitFor(/FINAL: read it/, RUN_TIMEOUT_MS, "the agent's last word");
        ui.keys("C-o");
        const expanded = await ui.waitFor((s) => /Candidate 3 \(/.test(s) && /• Merger \(/.test(s), 15000, "the expanded run");
        await sleep(1000);  // every block expanded
        const screen = ui.screen();
        for (const slot of [1, 2, 3]) {
          assert.equal(screen.match(new RegExp(`Candidate ${slot} \\([ABC]\\) scripted/scripted-a`, "g"))?.length, 1, `candidate ${slot}: ${expanded}`);
        }
        assert.equal(screen.split(CANDIDATE_TEXT.slice(0, 40)).length - 1, 3, "three candidate answers");
        // bg_result's block points to where they are.
        assert.match(screen, /pi-fusion show [0-9a-f]{8} --candidates/);
      });
    });
  });

  test("on a Pi without the rendering API, /fusion ends with the plain notification and Pi goes on", async () => {
    // Pi's own API with registerEntryRenderer and registerMessageRenderer hidden.
    const olderPi = path.join(REPO_ROOT, "tests", "e2e", "fixtures", "fusion-without-render-api.ts");
    await withTui({ rules: fusionRules() }, async (ui, env) => {
      await ui.submit("/fusion Why is the sky blue?");
      const notice = /fusion reason (reason-[0-9a-f]{32}) completed\. Read the verified answer/;
      const screen = await ui.waitFor(notice, RUN_TIMEOUT_MS, "the plain notification");
      assert.doesNotMatch(screen, /5 model requests/, "no rendered run view");
      assert.equal(env.requests().length, 5);
      const first = screen.match(notice)[1];
      await ui.submit("/fusion Why is grass green?");
      await ui.waitFor((s) => [...s.matchAll(new RegExp(notice, "g"))].some((m) => m[1] !== first),
        RUN_TIMEOUT_MS, "the second run's notification");
      assert.equal(env.requests().length, 10);
    }, { extensions: [olderPi] });
  });

  test("two concurrent runs each keep their own live progress line with elapsed time", async () => {
    // Slow candidates keep both runs active long enough on a busy machine.
    const rules = fusionRules({ candidate: [{ text: CANDIDATE_TEXT, delay_ms: 15000 }] });
    await withTui({ rules }, async (ui) => {
      await ui.submit("/fusion First question?");
      await ui.waitFor(/fusion reason [0-9a-f]{8}: candidates 0\/3 done · 0:\d\d/, 30000, "the first run's line");
      await ui.submit("/fusion Second question?");
      const both = await ui.waitFor(
        (s) => (s.match(/fusion reason [0-9a-f]{8}: candidates \d\/3 done · 0:\d\d/g) ?? []).length >= 2,
        30000, "two progress lines");
      const ids = [...both.matchAll(/fusion reason ([0-9a-f]{8}): candidates/g)].map((m) => m[1]);
      assert.equal(new Set(ids).size, 2, `two runs, two lines: ${ids}`);
      assert.match(both, /Quitting or reloading Pi cancels active Fusion runs/);
      // The elapsed time moves on its own while nothing else changes.
      const first = both.match(new RegExp(`fusion reason ${ids[0]}: [^\\n]*· (0:\\d\\d)`))[1];
      const later = await ui.waitFor(
        (s) => { const m = s.match(new RegExp(`fusion reason ${ids[0]}: [^\\n]*· (0:\\d\\d)`)); return m && m[1] !== first; },
        10000, "the elapsed time to move");
      assert.match(later, new RegExp(`fusion reason ${ids[1]}: `), "the second run's line is still there");
      await ui.waitFor((s) => (s.match(/5 model requests/g) ?? []).length === 2, RUN_TIMEOUT_MS, "both answers");
      const done = ui.screen();
      assert.doesNotMatch(done, /fusion reason [0-9a-f]{8}: candidates/, "progress lines go once the runs end");
      assert.doesNotMatch(done, /Quitting or reloading Pi cancels active/);
    });
  });

  test("bg_kill from the agent: the notice says who asked and the agent is not woken again", async () => {
    const rules = [
      { name: "after-kill", match: { last_role: "tool", tool_result: "killed reason-" }, responses: [{ text: "Stopped it." }] },
      ...launchRules({
        stages: fusionRules({ candidate: [{ text: CANDIDATE_TEXT, delay_ms: 20000 }] }),
        afterReceipt: [callStep("bg_kill", { taskId: "reason-" })],
      }),
    ];
    await withTui({ rules }, async (ui, env) => {
      await ui.submit("please fuse");
      const screen = await ui.waitFor(/Stopped it\./, RUN_TIMEOUT_MS, "the agent's last word");
      assert.match(screen, new RegExp(`Cancelled ${RUN_ID.source} \\(asked by bg_kill\\)`));
      await sleep(2500);
      const agentRequests = env.requests().filter((r) => r.rule_name === "ask" || r.rule_name?.startsWith("after") || r.rule === "default");
      assert.deepEqual(agentRequests.map((r) => r.rule_name), ["ask", "after-receipt", "after-kill"],
        "no wake-up request after the cancellation");
    });
  });

  test("/reload cancels active runs and says so, naming /reload", async () => {
    const rules = fusionRules({ candidate: [{ text: CANDIDATE_TEXT, delay_ms: 30000 }] });
    await withTui({ rules }, async (ui) => {
      await ui.submit("/fusion Why is the sky blue?");
      await ui.waitFor(/Quitting or reloading Pi cancels active Fusion runs/, 30000, "the hint");
      await ui.submit("/reload");
      const screen = await ui.waitFor(/Cancelled by \/reload\./, 30000, "the cancellation notice");
      assert.match(screen, /Reloaded/);
      assert.match(screen, /⊘ cancelled/);
      assert.match(screen, /Pi cancels active runs when it quits or reloads/);
      assert.doesNotMatch(screen.slice(screen.lastIndexOf("Cancelled by")), /Quitting or reloading Pi cancels active Fusion runs/,
        "the hint goes with the run");
    });
  });
});

describe("one-shot modes", () => {
  test("json mode: every stdout line is JSON and one event carries the verified answer", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const r = await env.json("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.split("\n").filter((l) => l.length > 0);
      for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`);
      const holding = r.events.filter((e) => JSON.stringify(e).includes("Sunlight is scattered"));
      assert.equal(holding.length, 1, "exactly one event holds the answer");
      assert.equal(holding[0].type, "entry_appended");
      assert.equal(holding[0].entry.customType, "fusion-run");
      assert.equal(holding[0].entry.data.answer.markdown, MERGED_TEXT);
      // Typed facts beside the display strings: the run's id, state and Pi usage object.
      const run = holding[0].entry.data.run;
      assert.match(run.id, /^reason-[0-9a-f]{32}$/);
      assert.equal(run.workflow, "reason");
      assert.equal(run.state, "completed");
      assert.ok(run.artifact_dir.endsWith(run.id), run.artifact_dir);
      assert.equal(typeof run.usage.totalTokens, "number");
      assert.ok(run.usage.totalTokens > 0);
      assert.equal(typeof run.usage.cost.total, "number");
      assert.equal(env.requests().length, 5);
    });
  });

  test("print mode: /fusion without a prompt is a usage error with a non-zero exit", async () => {
    await withPiEnv({ script: { rules: fusionRules() } }, async (env) => {
      const r = await env.print("/fusion", { extensions: [PLUGIN] });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Usage: \/fusion \[@<panel>\] <prompt>/);
      assert.equal(r.stdout, "");
      assert.equal(env.requests().length, 0);
    });
  });
});
