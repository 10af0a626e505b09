/**
 * @file The host Pi dies (SIGKILL) while a run is in each of its model stages. Then every process
 * of the run is gone within 2 s (child Pis, and the ripgrep a candidate's grep was running), the
 * model hears no further request, and a new Pi tells the truth: the run failed with host_ended,
 * what finished is kept, and it is never "running" and never an answer.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fusionRules, launchRules, lookupRules, MERGED_TEXT } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs, specialFiles, withFusionEnv } from "../../support/fusion_runs.mjs";
import { describePids, envProcesses, processTree, waitAllGone } from "../../support/processes.mjs";
import { stageRules } from "../investigate/investigate_support.mjs";
const GONE_WITHIN_MS = 2000;
// How long after the kill the model must have heard nothing new: longer than the candidate
// stage's 2.5 s answer, so a surviving candidate's retry would be seen.
const QUIET_MS = 3000;

async function waitForRule(env, name, count) {
  const deadline = Date.now() + 60000;
  while (env.requests().filter((q) => q.rule_name === name).length < count) {
    if (Date.now() > deadline) throw new Error(`no ${count}× ${name} request: ${env.requests().map((q) => q.rule_name)}`);
    await sleep(50);
  }
}

/**
 * Starts the run in an RPC Pi, waits until `held()` says the stage is held, SIGKILLs the host,
 * checks that nothing of the run is left and that no request follows; returns the run dir.
 */
async function killHostWhile(env, held, { expectTool } = {}) {
  const rpc = env.rpc({ session: true });
  const first = await rpc.prompt("please fuse");
  assert.equal(first.text, "Launched; waiting.", rpc.stderr);
  await held();
  const host = rpc.child.pid;
  // Everything of the run: the host's process tree (covers a child with a clean environment)
  // and every process of the env's Pi environment.
  const run = new Map([...processTree(host), ...envProcesses(env)]);
  run.delete(host);
  assert.ok(run.size >= 1, "the held stage has live processes");
  if (expectTool) {
    const names = describePids([...run.keys()]);
    assert.match(names, expectTool, `the held tool runs: ${names}`);
  }
  process.kill(host, "SIGKILL");
  const killedAt = Date.now();
  await rpc.exited;
  const requestsAtKill = env.requests().length;
  const left = await waitAllGone(run, GONE_WITHIN_MS);
  assert.deepEqual(left, [], `still running ${GONE_WITHIN_MS} ms after the host died: ${describePids(left)}`);
  assert.deepEqual([...envProcesses(env).keys()], [], "no process of the Pi environment is left");
  await sleep(killedAt + QUIET_MS - Date.now());
  assert.equal(env.requests().length, requestsAtKill, "no model request after the host died");
  const dirs = runDirs(env);
  assert.equal(dirs.length, 1);
  // Nothing the dead host could not clean up is left in the project: no FIFO, no socket.
  assert.deepEqual(specialFiles(dirs[0]), [], "only regular files and directories");
  return dirs[0];
}

/** A new Pi continuing the session (`-c`) asks bg_status and bg_result about the run; returns both tool results. */
async function askNewPi(env, id) {
  env.server.setScript({ rules: lookupRules(id, { tools: ["bg_status", "bg_result"], ask: "how did it go", reply: "SEEN" }) });
  const r = await env.print("how did it go", { session: true, args: ["-c"] });
  assert.equal(r.code, 0, r.stderr);
  const results = env.requests().find((q) => q.tool_results?.length === 2).tool_results;
  if (process.env.DEBUG_CRASH) console.log(results);
  return Object.fromEntries(results.map((t) => [t.name, t.text]));
}

/** The new Pi's account and the manifest agree: failed, host_ended, `finished` attempts kept. */
function assertTruth(dir, seen, { stage, finished }) {
  const manifest = manifestOf(dir);
  assert.equal(manifest.state, "failed");
  assert.equal(manifest.error.code, "host_ended");
  assert.equal(manifest.error.stage, stage);
  assert.ok(fs.existsSync(path.join(dir, "error.json")));
  assert.ok(!fs.existsSync(path.join(dir, "merged.md")));
  const completed = manifest.attempts.filter((a) => a.state === "completed").map((a) => a.stage);
  assert.deepEqual(completed, finished);
  // Verified candidate answers make the run resumable: both texts tell the agent the person can
  // resume it; a run that verified none says nothing of resuming.
  const resumable = completed.includes("candidate");
  const short = path.basename(dir).replace(/^[a-z]+-/, "").slice(0, 8);
  for (const [tool, text] of Object.entries(seen)) {
    assert.match(text, /host_ended/, `${tool}: ${text}`);
    if (resumable) {
      assert.match(text, new RegExp(`the person can resume (it|this run) with /fusion-resume ${short}\\b`), `${tool}: ${text}`);
    } else {
      assert.doesNotMatch(text, /fusion-resume/, `${tool}: ${text}`);
    }
    assert.doesNotMatch(text, /\brunning\b/i, `${tool}: ${text}`);
    assert.ok(!text.includes(MERGED_TEXT), `${tool} gave no answer`);
    assert.doesNotMatch(text, /\(verified\)/, `${tool}: ${text}`);
  }
}

const CANDIDATES = ["candidate", "candidate", "candidate"];

describe("the host Pi is killed mid-run", () => {
  for (const c of [
    // Held by a slow failure: a candidate that survived the host would retry within QUIET_MS.
    { stage: "candidate", hold: { candidate: [{ delay_ms: 2500, status: 500 }] }, rule: "candidate", count: 3, finished: [] },
    { stage: "evaluation", hold: { evaluator: [{ stall: true }] }, rule: "evaluator", count: 1, finished: CANDIDATES },
    { stage: "evaluation", label: "repair", hold: { evaluator: [{ text: "not json" }], repair: [{ stall: true }] },
      rule: "repair", count: 1, finished: [...CANDIDATES, "evaluation"] },
    { stage: "merge", hold: { merger: [{ stall: true }] }, rule: "merger", count: 1, finished: [...CANDIDATES, "evaluation"] },
  ]) {
    test(`in the ${c.label ?? c.stage} stage: nothing is left, no request follows, a new Pi says host_ended`, async () => {
      await withFusionEnv({ script: { rules: launchRules({ stages: fusionRules(c.hold) }) } }, async (env) => {
        const dir = await killHostWhile(env, () => waitForRule(env, c.rule, c.count));
        const seen = await askNewPi(env, path.basename(dir));
        assertTruth(dir, seen, c);
      });
    });
  }

  test("while investigate candidates run ripgrep: the grandchildren die too", async () => {
    // ripgrep reads a 1 TiB sparse file (a FIFO would be refused by the candidates' walls): the
    // grep tool call lasts until it is killed.
    const candidates = [
      { name: "candidate-answer", match: { text: "Answer the request", last_role: "tool" }, responses: [{ text: "found" }] },
      { name: "candidate-grep", match: { text: "Answer the request", last_role: "user" },
        responses: [{ tool_calls: [{ name: "grep", arguments: { pattern: "FORTY", path: "huge.bin" } }] }] },
    ];
    const args = { objective: "Find what answer the app gives", background: ["src"], deliverable: "One sentence" };
    await withFusionEnv({
      script: { rules: launchRules({ workflow: "investigate", args, stages: stageRules(candidates) }) },
      files: { ".git/HEAD": "ref: refs/heads/main\n", "src/app.txt": "The answer is FORTY-TWO.\n" },
    }, async (env) => {
      fs.closeSync(fs.openSync(path.join(env.cwd, "huge.bin"), "w"));
      fs.truncateSync(path.join(env.cwd, "huge.bin"), 2 ** 40);
      const ripgreps = () => [...envProcesses(env).keys()].filter((pid) => describePids([pid]).endsWith(": rg"));
      const dir = await killHostWhile(env, async () => {
        await waitForRule(env, "candidate-grep", 3);
        const deadline = Date.now() + 20000;
        while (ripgreps().length < 3 && Date.now() < deadline) await sleep(50);
        // Under load a candidate's grep may not have reached ripgrep yet; one held ripgrep is
        // enough to show that grandchildren die with the host.
        assert.ok(ripgreps().length >= 1, "a candidate runs ripgrep on the sparse file");
      }, { expectTool: /: rg\b/ });
      const seen = await askNewPi(env, path.basename(dir));
      assertTruth(dir, seen, { stage: "candidate", finished: [] });
    });
  });
});
