/**
 * @file Hostile text stays text, in the real pinned Pi: escape sequences that clear the screen
 * (ESC[2J), make a link (OSC 8) or write the clipboard (OSC 52) are put in the candidates' answers,
 * the evaluator's texts and the merged answer by the scripted model, and in the prompt of a run
 * directory planted in another project. What a person sees must show them as visible characters
 * ("␛") and never carry the raw sequences: the TUI (the raw bytes Pi writes to its terminal, taken
 * with tmux pipe-pane, and tmux's paste buffers, which OSC 52 would fill), `pi -p` stdout and
 * stderr, and `pi-fusion runs | prune | verify`.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { EVALUATION, fusionRules } from "../../support/fusion_script.mjs";
import { runDirs } from "../../support/fusion_runs.mjs";
import { createPiEnv, REPO_ROOT } from "../../support/pi_harness.mjs";
import { TmuxPi } from "../../support/tmux_pi.mjs";

const PLUGIN = path.join(REPO_ROOT, "extensions", "fusion.ts");
const BUILD = process.env.PI_FUSION_BUILD_DIR ?? path.join(REPO_ROOT, "build", "dev");
const CLI = process.env.PI_FUSION_CLI ?? path.join(BUILD, "bin", "pi-fusion");
const RUN_TIMEOUT_MS = 120000;

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

async function waitUntil(holds, timeoutMs, what) {
  for (const deadline = Date.now() + timeoutMs; !holds();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(150);
  }
}

function cli(cwd, ...args) {
  const r = spawnSync(CLI, args, { cwd, encoding: "utf8", timeout: 30000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("hostile text stays text", () => {
  test("the TUI shows the escapes of candidates, evaluator and merger as text, collapsed and expanded", async () => {
    const env = await createPiEnv({ script: { rules: hostileRules() }, timeoutMs: RUN_TIMEOUT_MS });
    const ui = new TmuxPi(env, { extensions: [PLUGIN] });
    const raw = path.join(env.tmp, "terminal.raw");
    try {
      // Everything Pi writes to its terminal, byte for byte; and OSC 52 would fill a paste buffer.
      ui.tmux("set-option", "-s", "set-clipboard", "on");
      ui.tmux("pipe-pane", "-o", "-t", "ui", `cat >> '${raw}'`);
      await ui.waitFor(/scripted-a/, 30000, "Pi's footer");
      await ui.submit("/fusion Why is the sky blue?");
      // Waits on the terminal stream, not on the screen: a raw ESC[2J would clear the screen.
      const written = () => fs.existsSync(raw) ? fs.readFileSync(raw, "latin1") : "";
      await waitUntil(() => env.requests().length >= 5 && written().includes("model requests"), RUN_TIMEOUT_MS, "the completed run");
      ui.keys("C-o");
      await waitUntil(() => written().includes("Candidate C"), 10000, "the expanded view");
      await sleep(1000);  // the expanded frame is written out
      assertNoRaw(written(), "the terminal stream");
      const expanded = ui.screen();
      for (const where of ["Candidate ", "Agreement ", "Topic ", "Resolution ", "Merged: "]) {
        assert.ok(expanded.includes(`${where}hostile ␛[2JCLEARED`), `${where}is shown as text:\n${expanded}`);
      }
      assert.equal(ui.tmux("list-buffers").trim(), "", "no clipboard write reached tmux");
    } finally {
      ui.stop();
      await env.cleanup();
    }
  });

  test("pi -p: the answer on stdout and the notices on stderr show the escapes as text; raw on request", async () => {
    const env = await createPiEnv({ script: { rules: hostileRules() }, timeoutMs: RUN_TIMEOUT_MS });
    try {
      const r = await env.print("/fusion Why is the sky blue?", { extensions: [PLUGIN] });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!r.stdout.includes(ESC), `stdout holds an ESC byte:\n${JSON.stringify(r.stdout)}`);
      assert.ok(!r.stderr.includes(ESC), `stderr holds an ESC byte:\n${JSON.stringify(r.stderr)}`);
      for (const shown of SHOWN) assert.ok(r.stdout.includes(shown), `stdout shows ${shown}`);
      // The stored answer is the model's exact text: only the copy for the terminal changed.
      const dir = runDirs(env)[0];
      assert.equal(fs.readFileSync(path.join(dir, "merged.md"), "utf8"), MERGED);

      const exact = await env.print("/fusion Why is the sky blue?", {
        extensions: [PLUGIN], env: { PI_FUSION_RAW_ANSWER: "1" },
      });
      assert.equal(exact.code, 0, exact.stderr);
      assert.ok(exact.stdout.includes(MERGED.trimEnd()), "PI_FUSION_RAW_ANSWER=1 prints the exact bytes");
      assert.ok(!exact.stderr.includes(ESC), "stderr stays neutralized");
    } finally {
      await env.cleanup();
    }
  });

  test("pi -p: a failure quoting the provider's error text shows it as text on stderr", async () => {
    // The merger's provider answers 400 with a hostile message, which Pi and the failure quote.
    const error = { status: 400, error_body: `Bad request ${HOSTILE}` };
    const env = await createPiEnv({ script: { rules: fusionRules({ merger: [error] }) }, timeoutMs: RUN_TIMEOUT_MS });
    try {
      const r = await env.print("/fusion Why is the sky blue?", { extensions: [PLUGIN] });
      assert.equal(r.code, 1, r.stderr);
      assert.ok(r.stderr.includes("Bad request hostile ␛[2JCLEARED"), `the quoted text is shown:\n${r.stderr}`);
      assert.ok(!r.stderr.includes(ESC), `stderr holds an ESC byte:\n${JSON.stringify(r.stderr)}`);
    } finally {
      await env.cleanup();
    }
  });

  test("pi-fusion runs, prune and verify show a planted run's escapes as text", async () => {
    const maker = await createPiEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS });
    const victim = await createPiEnv({ script: { rules: fusionRules() } });
    try {
      // The run is made elsewhere and shipped in the victim's repository, as a planted directory.
      const r = await maker.print(`/fusion Why? ${HOSTILE}`, { extensions: [PLUGIN] });
      assert.equal(r.code, 0, r.stderr);
      fs.cpSync(path.join(maker.cwd, ".pi"), path.join(victim.cwd, ".pi"), { recursive: true });
      const [dir] = runDirs(victim);
      const id = path.basename(dir);
      fs.appendFileSync(path.join(dir, "merged.md"), ATTACKS.clipboard);  // a problem for verify

      const outputs = {
        runs: cli(victim.cwd, "runs"),
        json: cli(victim.cwd, "runs", "--json"),
        prune: cli(victim.cwd, "prune", "--older-than", "1s"),
        verify: cli(victim.cwd, "verify", id),
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
    } finally {
      await maker.cleanup();
      await victim.cleanup();
    }
  });
});
