/**
 * @file Hostile text stays text, in the real pinned Pi: escape sequences that clear the screen
 * (ESC[2J), make a link (OSC 8) or write the clipboard (OSC 52) are put in the candidates' answers,
 * the evaluator's texts and the merged answer by the scripted model, and in the prompt of a run
 * directory planted in another project. What a person sees must show them as visible characters
 * ("␛") and never carry the raw sequences: the TUI (the raw bytes Pi writes to its terminal, taken
 * with tmux pipe-pane, and tmux's paste buffers, which OSC 52 would fill), `pi -p` stdout and
 * stderr, and `pi-fusion runs | prune | verify`; also a landed candidate in the TUI's live view
 * while the run still works.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { CANDIDATE_TEXT, EVALUATION, fusionRules, STAGE, THIRD_CANDIDATE_ON_B, writeFusionModels } from "../../support/fusion_script.mjs";
import { artifactText, piFusion, RUN_TIMEOUT_MS, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { waitUntil, withPiEnv } from "../../support/pi_harness.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const ESC = "\x1b";
const CLIPBOARD = Buffer.from("pwned-by-the-model").toString("base64");
// Each sequence is followed by a marker, so its raw form can be told from Pi's own escapes.
const ATTACKS = {
  clear: `${ESC}[2JCLEARED`,
  link: `${ESC}]8;;http://evil.example/${ESC}\\click here${ESC}]8;;${ESC}\\`,
  clipboard: `${ESC}]52;c;${CLIPBOARD}\x07`,
};
const HOSTILE = `hostile ${ATTACKS.clear} ${ATTACKS.link} ${ATTACKS.clipboard} end`;
// The raw forms that must never reach a terminal; each would be executed there.
const RAW = [`${ESC}[2JCLEARED`, `${ESC}]8;;http://evil.example/`, `${ESC}]52;c;${CLIPBOARD}`];
// What the person sees instead.
const SHOWN = ["␛[2JCLEARED", "␛]8;;http://evil.example/", `␛]52;c;${CLIPBOARD}␇`];

const MERGED = `# The answer\n\nMerged: ${HOSTILE}\n`;

function hostileEvaluation() {
  const evaluation = structuredClone(EVALUATION);
  evaluation.candidate_assessments[0].summary = `Summary ${HOSTILE}`;
  evaluation.agreements = [`Agreement ${HOSTILE}`];
  evaluation.conflicts = [{
    topic: `Topic ${HOSTILE}`,
    positions: [{ candidate_id: "A", position: `Position ${HOSTILE}` }, { candidate_id: "B", position: "the other view" }],
    resolution: `Resolution ${HOSTILE}`,
  }];
  return evaluation;
}

function hostileRules() {
  return fusionRules({
    candidate: [{ text: `Candidate ${HOSTILE}` }],
    evaluator: [{ text: JSON.stringify(hostileEvaluation()) }],
    merger: [{ text: MERGED }],
  });
}

function assertNoRaw(text, where) {
  for (const raw of RAW) assert.ok(!text.includes(raw), `${where} carries the raw ${JSON.stringify(raw)}`);
}

describe("hostile text stays text", () => {
  test("the TUI shows the escapes of candidates, evaluator and merger as text, collapsed and expanded", async () => {
    await withFusionEnv({ script: { rules: hostileRules() } }, (env) => withTmuxPi(env, {}, async (ui) => {
      const raw = path.join(env.tmp, "terminal.raw");
      // Everything Pi writes to its terminal, byte for byte; and OSC 52 would fill a paste buffer.
      ui.tmux("set-option", "-s", "set-clipboard", "on");
      ui.tmux("pipe-pane", "-o", "-t", "ui", `cat >> '${raw}'`);
      await ui.ready();
      await ui.submit("/fusion Why is the sky blue?");
      // Waits on the terminal stream, not on the screen: a raw ESC[2J would clear the screen.
      const written = () => fs.existsSync(raw) ? fs.readFileSync(raw, "latin1") : "";
      await waitUntil(() => env.requests().length >= 5 && written().includes("model requests"), "the completed run", { timeoutMs: RUN_TIMEOUT_MS });
      ui.keys("C-o");
      await waitUntil(() => written().includes("Candidate 3 ("), "the expanded view", { timeoutMs: 10000 });
      await sleep(1000);  // the expanded frame is written out
      assertNoRaw(written(), "the terminal stream");
      const expanded = ui.screen();
      for (const where of ["Candidate ", "Agreement ", "Topic ", "Resolution ", "Merged: "]) {
        assert.ok(expanded.includes(`${where}hostile ␛[2JCLEARED`), `${where}is shown as text:\n${expanded}`);
      }
      assert.equal(ui.tmux("list-buffers").trim(), "", "no clipboard write reached tmux");
    }));
  });

  test("the live view shows a landed candidate's escapes as text while the run still works, collapsed and expanded", async () => {
    // Candidate 3 (on scripted-b) answers late, so candidates 1 and 2 sit in the live view.
    const rules = [
      { name: "slow-third", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ text: CANDIDATE_TEXT, delay_ms: 30000 }] },
      ...hostileRules(),
    ];
    await withFusionEnv({ script: { rules } }, async (env) => {
      writeFusionModels(env, THIRD_CANDIDATE_ON_B);
      await withTmuxPi(env, {}, async (ui) => {
        const raw = path.join(env.tmp, "terminal.raw");
        ui.tmux("set-option", "-s", "set-clipboard", "on");
        ui.tmux("pipe-pane", "-o", "-t", "ui", `cat >> '${raw}'`);
        await ui.ready();
        await ui.submit("/fusion Why is the sky blue?");
        const written = () => fs.existsSync(raw) ? fs.readFileSync(raw, "latin1") : "";
        await waitUntil(() => /Candidate 1 scripted\/scripted-a ·/.test(ui.screen()), "candidate 1 in the live view", { timeoutMs: RUN_TIMEOUT_MS });
        ui.keys("C-o");
        await waitUntil(() => ui.screen().includes("Candidate hostile ␛[2JCLEARED"), "the landed answer, expanded", { timeoutMs: 10000 });
        await sleep(1000);  // the expanded frame is written out
        assert.ok(env.requests().length <= 3, "the run is still in its candidates");
        assertNoRaw(written(), "the terminal stream");
        for (const shown of SHOWN) assert.ok(ui.screen().includes(shown), `the live view shows ${shown}`);
        assert.equal(ui.tmux("list-buffers").trim(), "", "no clipboard write reached tmux");
      });
    });
  });

  test("pi -p: the answer on stdout and the notices on stderr show the escapes as text; raw on request", async () => {
    await withFusionEnv({ script: { rules: hostileRules() } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!r.stdout.includes(ESC), `stdout holds an ESC byte:\n${JSON.stringify(r.stdout)}`);
      assert.ok(!r.stderr.includes(ESC), `stderr holds an ESC byte:\n${JSON.stringify(r.stderr)}`);
      for (const shown of SHOWN) assert.ok(r.stdout.includes(shown), `stdout shows ${shown}`);
      // The stored answer is the model's exact text: only the copy for the terminal changed.
      const dir = runDirs(env)[0];
      assert.equal(artifactText(dir, "merged.md"), MERGED);

      const exact = await env.print("/fusion Why is the sky blue?", { env: { PI_FUSION_RAW_ANSWER: "1" } });
      assert.equal(exact.code, 0, exact.stderr);
      assert.ok(exact.stdout.includes(MERGED.trimEnd()), "PI_FUSION_RAW_ANSWER=1 prints the exact bytes");
      assert.ok(!exact.stderr.includes(ESC), "stderr stays neutralized");
    });
  });

  test("pi -p: a failure quoting the provider's error text shows it as text on stderr", async () => {
    // The merger's provider answers 400 with a hostile message, which Pi and the failure quote.
    const error = { status: 400, error_body: `Bad request ${HOSTILE}` };
    await withFusionEnv({ script: { rules: fusionRules({ merger: [error] }) } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 1, r.stderr);
      assert.ok(r.stderr.includes("Bad request hostile ␛[2JCLEARED"), `the quoted text is shown:\n${r.stderr}`);
      assert.ok(!r.stderr.includes(ESC), `stderr holds an ESC byte:\n${JSON.stringify(r.stderr)}`);
    });
  });

  test("pi-fusion runs, prune and verify show a planted run's escapes as text", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, (maker) => withPiEnv({ script: { rules: fusionRules() } }, async (victim) => {
      // The run is made elsewhere and shipped in the victim's repository, as a planted directory.
      const r = await maker.print(`/fusion Why? ${HOSTILE}`);
      assert.equal(r.code, 0, r.stderr);
      fs.cpSync(path.join(maker.cwd, ".pi"), path.join(victim.cwd, ".pi"), { recursive: true });
      const [dir] = runDirs(victim);
      const id = path.basename(dir);
      fs.appendFileSync(path.join(dir, "merged.md"), ATTACKS.clipboard);  // a problem for verify

      const outputs = {
        runs: piFusion(victim.cwd, "runs"),
        json: piFusion(victim.cwd, "runs", "--json"),
        prune: piFusion(victim.cwd, "prune", "--older-than", "1s"),
        verify: piFusion(victim.cwd, "verify", id),
      };
      for (const [name, out] of Object.entries(outputs)) {
        assert.ok(!out.stdout.includes(ESC) && !out.stderr.includes(ESC),
          `${name} printed an ESC byte:\n${JSON.stringify(out)}`);
      }
      assert.ok(outputs.runs.stdout.includes("Why? hostile ␛[2JCLEARED"), outputs.runs.stdout);
      assert.ok(outputs.prune.stdout.includes("Why? hostile ␛[2JCLEARED"), outputs.prune.stdout);
      assert.equal(outputs.verify.code, 1, outputs.verify.stdout);
      // JSON keeps the exact text through its own escapes.
      assert.equal(JSON.parse(outputs.json.stdout)[0].question, `Why? ${HOSTILE}`, outputs.json.stdout);
    }));
  });
});
