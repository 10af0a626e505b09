/**
 * @file /fusion-continue end to end in the real pinned Pi: one /fusion run (candidate 2 on its own
 * route, scripted-b, with an answer of its own) is continued in later Pi processes (`pi -c`, the
 * run found on disk): in print mode by slot and in json mode by letter, the model's next request
 * holds the verified answer under its label; a tampered answer, an unknown run and a bad selector
 * are refused with their codes and exit 1 before any model request; in the TUI the message row
 * appears and, the route being admitted, the offer to switch Pi's model to it, which switches it.
 * bg_result's details list the verified candidate answers.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fusionRules, SECOND_CANDIDATE_ON_B, STAGE, writeFusionModels } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs, sha256, withFusionEnv } from "../../support/fusion_runs.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const RUN_TIMEOUT_MS = 120000;
const SECOND_TEXT = "Second candidate: Rayleigh scattering, strongest at short (blue) wavelengths.";
const NEXT = "What should we do next?";

const RULES = [
  { name: "next", match: { text: NEXT }, responses: [{ text: "NEXT-REPLY" }] },
  { name: "second", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ text: SECOND_TEXT }] },
  { name: "lookup", match: { text: "look it up" }, responses: [{ tool_calls: [{ name: "bg_result", arguments: { taskId: "reason-" } }] }] },
  { name: "seen", match: { last_role: "tool" }, responses: [{ text: "SEEN" }] },
  ...fusionRules(),
];

/** The requests of `env` from `from` on that the rule `name` answered. */
function answeredBy(env, name, from) {
  return env.requests().slice(from).filter((q) => q.rule_name === name);
}

/** The label line the model reads above a continued answer. */
function header(runId, which, model) {
  return `From Fusion run ${runId} (reason): ${which}, written by ${model}; `;
}

describe("/fusion-continue", () => {
  test("print, json, after pi -c, refusals, bg_result details and the TUI's message row and model switch", async () => {
    await withFusionEnv({ script: { rules: RULES }, session: true, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, SECOND_CANDIDATE_ON_B);
      const first = await env.print("/fusion Why is the sky blue?");
      assert.equal(first.code, 0, first.stderr);
      const [dir] = runDirs(env);
      const runId = path.basename(dir);
      const short = runId.slice(7, 15);
      const answerFile = path.join(dir, "candidate-2.attempt-1.response.md");
      const letter = Object.entries(manifestOf(dir).anonymous_map).find(([, slot]) => slot === 2)[0];
      const digest = sha256(fs.readFileSync(answerFile));

      // Print mode, a later Pi (pi -c): the next request carries candidate 2's verified answer.
      let before = env.requests().length;
      const printed = await env.print([`/fusion-continue ${short} 2`, NEXT], { args: ["-c"] });
      assert.equal(printed.code, 0, printed.stderr);
      assert.equal(printed.stdout, "NEXT-REPLY\n");
      assert.ok(printed.stderr.includes(`Added candidate 2 (${letter}) of Fusion run ${short} (scripted/scripted-b) to the conversation;`), printed.stderr);
      assert.ok(printed.stderr.includes("pi -c --model scripted/scripted-b"), "the admitted route is suggested");
      const [next] = answeredBy(env, "next", before);
      const body = JSON.stringify(next.body);
      assert.ok(body.includes(JSON.stringify(`${header(runId, `candidate 2 (${letter})`, "scripted/scripted-b")}${digest}`).slice(1, -1)), body);
      assert.ok(body.includes(JSON.stringify(SECOND_TEXT).slice(1, -1)), "the answer itself");
      assert.equal(env.requests().length - before, 1, "no other model request");

      // json mode, by letter and merged: the message events carry the details; the model sees both.
      before = env.requests().length;
      const json = await env.json([`/fusion-continue ${runId.slice(0, 14)} ${letter.toLowerCase()}`, `/fusion-continue ${short} merged`, NEXT], { args: ["-c"] });
      assert.equal(json.code, 0, json.stderr);
      const continued = json.events.filter((e) => e.type === "message_end" && e.message?.customType === "fusion-continue").map((e) => e.message.details);
      assert.deepEqual(continued.map((d) => [d.selection, d.slot, d.letter, d.model]), [["candidate", 2, letter, "scripted/scripted-b"], ["merged", null, null, "scripted/scripted-a"]]);
      assert.equal(continued[0].sha256, digest);
      const jsonBody = JSON.stringify(answeredBy(env, "next", before)[0].body);
      assert.ok(jsonBody.includes(JSON.stringify(header(runId, "the merged answer", "the merger scripted/scripted-a")).slice(1, -1)), jsonBody);

      // bg_result's details list each verified candidate answer with its path and digest.
      const looked = await env.json("look it up", { args: ["-c"] });
      const result = looked.events.find((e) => e.type === "tool_execution_end" && e.toolName === "bg_result").result;
      assert.deepEqual(result.details.candidates.map((c) => [c.slot, c.model, c.path, c.sha256]),
        [1, 2, 3].map((slot) => [slot, slot === 2 ? "scripted/scripted-b" : "scripted/scripted-a", path.join(dir, `candidate-${slot}.attempt-1.response.md`), sha256(fs.readFileSync(path.join(dir, `candidate-${slot}.attempt-1.response.md`)))]));
      assert.equal(result.details.candidates[1].letter, letter);

      // Refusals: each with its code, exit 1, no model request.
      before = env.requests().length;
      const original = fs.readFileSync(answerFile);
      fs.writeFileSync(answerFile, Buffer.concat([original, Buffer.from(" tampered")]));
      const tampered = await env.print(`/fusion-continue ${short} 2`, { args: ["-c"] });
      assert.equal(tampered.code, 1, tampered.stderr);
      assert.ok(tampered.stderr.includes(`run ${runId} does not verify, so none of its answers is put into the conversation: candidate-2.attempt-1.response.md`), tampered.stderr);
      assert.ok(tampered.stderr.includes(`pi-fusion verify ${short}`));
      assert.ok(tampered.stderr.includes("(error code: artifact_error)"), tampered.stderr);
      assert.ok(!tampered.stderr.includes("tampered"), "nothing of the tampered answer");
      fs.writeFileSync(answerFile, original);
      const unknown = await env.print("/fusion-continue 00000000 2", { args: ["-c"] });
      assert.equal(unknown.code, 1);
      assert.ok(unknown.stderr.includes("Unknown background task ID: 00000000\n(error code: invalid_arguments)"), unknown.stderr);
      const bad = await env.print(`/fusion-continue ${short} 4`, { args: ["-c"] });
      assert.equal(bad.code, 1);
      assert.ok(bad.stderr.includes("`4` is not a slot 1-3, a letter A-C or `merged`. Usage: /fusion-continue <run id or prefix> <1-3 | A-C | merged>"), bad.stderr);
      const jsonRefused = await env.json(`/fusion-continue ${short} merged extra`, { args: ["-c"] });
      assert.equal(jsonRefused.code, 1, "json mode exits 1 too");
      assert.ok(jsonRefused.stderr.includes("too many arguments (3)"), jsonRefused.stderr);
      assert.equal(env.requests().length, before, "no model request for a refusal");

      // The TUI: the message row, then the offer to switch to the admitted route; taken, Pi's
      // next request goes to scripted-b.
      await withTmuxPi(env, { args: ["-c"] }, async (ui) => {
        await ui.ready();
        await ui.submit(`/fusion-continue ${short} 2`);
        const offer = await ui.waitFor(/Switch Pi's model to scripted\/scripted-b\?/, 30000, "the switch offer");
        assert.ok(offer.includes(`Fusion ${short} · continued`), offer);
        assert.ok(offer.includes(`Candidate 2 (${letter}) · scripted/scripted-b · verified`), offer);
        assert.ok(offer.includes("Second candidate: Rayleigh scattering"), offer);
        ui.keys("Enter");  // "Yes" is the first option
        await ui.waitFor(/Pi's model is now scripted\/scripted-b\./, 30000, "the switch notice");
        before = env.requests().length;
        await ui.submit(NEXT);
        await ui.waitFor(/NEXT-REPLY/, 30000, "the reply");
        const [tuiNext] = answeredBy(env, "next", before);
        assert.equal(tuiNext.model, "scripted-b", "the switched model answers");
        assert.ok(JSON.stringify(tuiNext.body).includes(JSON.stringify(SECOND_TEXT).slice(1, -1)));
      });
    });
  });
});
