/**
 * @file A quit leaves a trace, in the real pinned Pi's TUI: quitting while a /fusion run works
 * (two candidates verified, the third still asking) says on the way out, in the shell, how many
 * runs the quit cancelled and how to resume each one; and after `pi -c` the run has its own row in
 * the transcript with the cause and the resume command, as a finished run's block has. One Pi
 * start for the quit and one for `pi -c`.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { slowThirdCandidateRules, THIRD_CANDIDATE_ON_B, writeFusionModels } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const RUN_TIMEOUT_MS = 120000;
// A conversation first: Pi saves a session only once it holds a user or assistant message. Last:
// the candidates see the conversation too, and must match their own rules.
const HELLO = { name: "hello", match: { text: "hello there" }, responses: [{ text: "Hi there." }] };

describe("quitting the TUI while a /fusion run works", () => {
  test("ctrl+d: the shell shows the cancelled run and its resume command; pi -c shows its row", async () => {
    await withFusionEnv({ script: { rules: [...slowThirdCandidateRules(120000), HELLO] }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, THIRD_CANDIDATE_ON_B);
      let short;
      await withTmuxPi(env, { session: true, keepAfterExit: true }, async (ui) => {
        await ui.ready();
        await ui.submit("hello there");
        await ui.waitFor(/Hi there\./, 30000, "the reply");
        await ui.submit("/fusion Why is the sky blue?");
        await ui.waitFor(/✓ Candidate 2 scripted\/scripted-a/, 60000, "candidates 1 and 2 landed");
        const id = path.basename(runDirs(env)[0]);
        short = id.slice(id.indexOf("-") + 1, id.indexOf("-") + 9);

        ui.keys("C-d");
        await ui.waitFor(() => ui.exited(), 30000, "Pi to exit");
        const shell = ui.screen();
        assert.match(shell, /^Fusion: quitting Pi cancelled 1 run\.$/m, shell);
        assert.match(shell, new RegExp(
          `^ {2}fusion reason ${short} cancelled · /fusion-resume ${short} reuses its 2 verified candidate answers$`, "m"));
        assert.equal(manifestOf(runDirs(env)[0]).state, "cancelled");
      });

      await withTmuxPi(env, { session: true, args: ["-c"] }, async (ui) => {
        await ui.ready();
        const screen = await ui.waitFor(/Cancelled by quitting Pi\./, 30000, "the run's row in the resumed transcript");
        assert.match(screen, new RegExp(`Resumable: /fusion-resume ${short} runs only what is missing, reusing its 2 verified candidate answers\\.`));
        assert.match(screen, /Pi cancels active runs when it quits or reloads\./);
      });
    });
  });
});
