/**
 * @file Speed to the person, in the real pinned Pi: a candidate's verified answer can be read as
 * soon as it lands, while its siblings, the evaluator and the merger still work — in the TUI's
 * live view (expandable with Pi's expand key), as a stderr line per landed candidate in print
 * mode and as one event carrying the answer in json and RPC mode — and the progress line shows each
 * running child's time since its last output. No extra model request: the agent is not woken.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  CANDIDATE_TEXT, fusionRules, MERGED_TEXT, slowThirdCandidateRules, THIRD_CANDIDATE_ON_B, writeFusionModels,
} from "../../support/fusion_script.mjs";
import { withFusionEnv } from "../../support/fusion_runs.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";
import { agentFlowRules, candidateRules, FILE_TOOL_CALLS, withFixtureEnv } from "../investigate/investigate_support.mjs";

const RUN_TIMEOUT_MS = 120000;
const LANDED_LINE = /fusion reason [0-9a-f]{8}: candidate ([123]) landed · (scripted\/scripted-[ab]) · \d+:\d\d · ([\d,]+) bytes$/;

describe("landed candidates reach the person before the run ends", () => {
  test("TUI: candidate 1's answer is in the live view and expands while candidate 3 still runs", async () => {
    await withFusionEnv({ script: { rules: slowThirdCandidateRules(30000) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, THIRD_CANDIDATE_ON_B);
      await withTmuxPi(env, {}, async (ui) => {
        await ui.ready();
        await ui.submit("/fusion Why is the sky blue?");
        const landed = await ui.waitFor(/✓ Candidate 1 scripted\/scripted-a · \d+:\d\d · [\d,]+ bytes/, 60000, "candidate 1 in the live view");
        assert.match(landed, /fusion reason [0-9a-f]{8}: candidates [12]\/3 done/, "the run is still in its candidates");
        assert.doesNotMatch(landed, /5 model requests/, "the run has not ended");
        assert.doesNotMatch(landed, /Rayleigh scattering\)/, "collapsed: the answer itself is not shown yet");
        assert.match(landed, /to expand/);

        ui.keys("C-o");
        const expanded = await ui.waitFor((s) => s.includes(CANDIDATE_TEXT.slice(0, 60)), 10000, "candidate 1's answer, expanded");
        assert.match(expanded, /candidates [12]\/3 done/, "still running while the answer is read");
        // The answers push the launch notice away: the live view repeats the id, folder and estimate.
        const live = expanded.slice(expanded.lastIndexOf("fusion reason "));
        assert.match(live, /^\s*Run reason-[0-9a-f]{32}\s*$/m);
        assert.match(live, /^\s*Artifacts:\s+\/\S+/m);
        assert.match(live, /Estimate \(expected – worst case\): /);
        assert.doesNotMatch(expanded, /5 model requests/);
        assert.ok(env.requests().length <= 3, `only candidate requests so far: ${env.requests().length}`);

        // The end: the final block replaces the live view, and no request follows for the agent.
        const done = await ui.waitFor(/5 model requests/, RUN_TIMEOUT_MS, "the completed run");
        assert.doesNotMatch(done.slice(done.lastIndexOf("5 model requests")), /candidates \d\/3 done/);
        assert.equal(env.requests().length, 5);
      });
    });
  });

  test("TUI: the progress line shows a running child's seconds since its last output, growing", async () => {
    await withFusionEnv({ script: { rules: slowThirdCandidateRules(30000) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, THIRD_CANDIDATE_ON_B);
      await withTmuxPi(env, {}, async (ui) => {
        await ui.ready();
        await ui.submit("/fusion Why is the sky blue?");
        const silence = (s) => Number(s.match(/fusion reason [0-9a-f]{8}: [^\n]*last output: [^\n]*candidate 3 (\d+)s ago/)?.[1] ?? -1);
        const first = await ui.waitFor((s) => silence(s) >= 2, 60000, "candidate 3's silence in the progress line");
        assert.match(first, /fusion reason [0-9a-f]{8}: candidates [0-2]\/3 done · \d+:\d\d · last output: /);
        // A stalled candidate is visible: its silence keeps growing while nothing else happens.
        await ui.waitFor((s) => silence(s) >= silence(first) + 2, 15000, "the silence to grow");
      });
    });
  });

  test("print mode: one stderr line per landed candidate with slot, model, time and bytes", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      const lines = r.stderr.split("\n").map((l) => l.match(LANDED_LINE)).filter(Boolean);
      assert.deepEqual(lines.map((m) => m[1]).sort(), ["1", "2", "3"], r.stderr);
      for (const m of lines) {
        assert.equal(m[2], "scripted/scripted-a");
        assert.equal(Number(m[3].replaceAll(",", "")), Buffer.byteLength(CANDIDATE_TEXT));
      }
      assert.equal(env.requests().length, 5);
    });
  });

  test("json mode: one event per landed candidate carries its verified answer, before the run's end", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const r = await env.json("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      const landed = r.events.filter((e) => e.type === "entry_appended" && e.entry?.customType === "fusion-candidate");
      assert.equal(landed.length, 3);
      assert.deepEqual(landed.map((e) => e.entry.data.slot).sort(), [1, 2, 3]);
      for (const e of landed) {
        const d = e.entry.data;
        assert.equal(d.answer, CANDIDATE_TEXT);
        assert.equal(d.bytes, Buffer.byteLength(CANDIDATE_TEXT));
        assert.equal(d.model, "scripted/scripted-a");
        assert.match(d.run.id, /^reason-[0-9a-f]{32}$/);
        assert.equal(d.run.workflow, "reason");
        assert.equal(d.artifact, `candidate-${d.slot}.attempt-1.response.md`);
        assert.equal(typeof d.elapsed_ms, "number");
        assert.equal(d.tool_calls, null);
      }
      const end = r.events.findIndex((e) => e.type === "entry_appended" && e.entry?.customType === "fusion-run");
      assert.ok(end > r.events.indexOf(landed[2]), "the candidates land before the run's end");
      assert.equal(r.stderr.split("\n").filter((l) => LANDED_LINE.test(l)).length, 3);
      assert.equal(env.requests().length, 5, "no model turn reads them");
    });
  });

  test("RPC mode: the same candidate and run events as json mode, and a notice for whoever watches", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const rpc = env.rpc();
      await rpc.prompt("/fusion Why is the sky blue?");
      const notice = await rpc.waitFor((r) => r.type === "extension_ui_request" && r.method === "notify" && / completed\./.test(r.message ?? ""));
      const events = rpc.records;
      const landed = events.filter((e) => e.type === "entry_appended" && e.entry?.customType === "fusion-candidate");
      assert.deepEqual(landed.map((e) => e.entry.data.slot).sort(), [1, 2, 3]);
      for (const e of landed) assert.equal(e.entry.data.answer, CANDIDATE_TEXT);
      const end = events.findIndex((e) => e.type === "entry_appended" && e.entry?.customType === "fusion-run");
      assert.ok(end > events.indexOf(landed[2]), "the candidates land before the run's end");
      assert.equal(events[end].entry.data.answer.markdown, MERGED_TEXT);
      // The notice names the run, its state and how a person or program reads the answer.
      const id = events[end].entry.data.run.id;
      assert.match(notice.message, new RegExp(`^fusion reason ${id} completed\\. Read the verified answer with \`pi-fusion show ${id.slice(7, 15)}\`\\.`));
      assert.doesNotMatch(notice.message, /bg_result/);
      assert.equal(env.requests().length, 5, "no model turn reads them");
      await rpc.close();
    });
  });

  test("print mode: a tool-using candidate's line says how many tool calls it made", () =>
    withFixtureEnv({ script: { rules: agentFlowRules(candidateRules([{ tool_calls: FILE_TOOL_CALLS }])) } }, async (env) => {
      const r = await env.print("please investigate");
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stderr.split("\n").filter((l) => / candidate [123] landed · /.test(l));
      assert.equal(lines.length, 3, r.stderr);
      for (const line of lines) {
        assert.match(line, /^fusion investigate [0-9a-f]{8}: candidate [123] landed · scripted\/scripted-a · \d+:\d\d · [\d,]+ bytes · 4 tool calls$/);
      }
    }));
});
