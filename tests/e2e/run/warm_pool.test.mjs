/**
 * @file The warm pool (policy.keep_warm_seconds) inside the real Pi: after a run ends, up to three
 * `pi --mode rpc` candidate processes stay ready; the next runs' candidates run their tasks in
 * them (the manifest marks each attempt `pooled`, with the process's task number) and answer; a
 * task sees nothing of its process's earlier one; a pooled process killed mid-task fails its run like a cold child's crash and is replaced;
 * SIGKILL of Pi leaves no process. On a Pi older than 1.6.0 (the compatibility stage runs the
 * first case there) every candidate starts cold. Pooled processes are found by their environment
 * (PI_FUSION_TASK_FD), never by command line (Pi rewrites its title).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { CANDIDATE_TEXT, fusionRules, MERGED_TEXT, STAGE } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs, survivingChildren, withFusionEnv } from "../../support/fusion_runs.mjs";
import { PI_CLI, waitUntil } from "../../support/pi_harness.mjs";
import { assertConforms } from "../../support/schema_check.mjs";
import { envProcesses, waitAllGone } from "../../support/processes.mjs";

const FUSION_MODELS_V3 = "pi-background-tasks.fusion-models.v3";
const QUESTIONS = ["Why is the sky blue?", "Why is the sunset red?", "Why is the sea blue?", "Why is snow white?"];
// The terminal notice: "fusion reason <id> completed. …" or "Fusion failed (stage=…".
const DONE = /^(fusion reason reason-[0-9a-f]{32} completed|Fusion failed)/;

/** The Pi under test (PI_FUSION_PI_CLI in the compatibility stage) serves pooled tasks. */
function piServesPool() {
  let dir = PI_CLI;
  for (let i = 0; i < 3; i++) {
    dir = dir.slice(0, dir.lastIndexOf("/"));
    try {
      const pkg = JSON.parse(fs.readFileSync(`${dir}/package.json`, "utf8"));
      if (!pkg.name?.includes("pi-coding-agent")) continue;
      const [major, minor] = pkg.version.split(".").map(Number);
      return major > 1 || (major === 1 && minor >= 6);
    } catch {
      // not this level
    }
  }
  throw new Error(`no Pi package.json above ${PI_CLI}`);
}

/** fusion-models.json v3 keeping candidates warm for `seconds`, with a cost cap when given. */
function writeKeepWarm(env, seconds, maxCostUsd = null) {
  return env.writeAgentFile("fusion-models.json", JSON.stringify({
    schema_version: FUSION_MODELS_V3,
    candidates: ["scripted/scripted-a", "scripted/scripted-a", "scripted/scripted-b"],
    evaluator: "scripted/scripted-a",
    merger: "scripted/scripted-a",
    policy: { quorum: 3, grace_seconds: null, max_cost_usd: maxCostUsd, keep_warm_seconds: seconds },
  }));
}

// A cap small enough that each candidate's allowance lowers its request's output limit (the child
// library's cost admission), large enough for the run to go on.
const TIGHT_CAP_USD = 0.05;
const outputLimit = (request) => request.body.max_completion_tokens ?? request.body.max_tokens;

/** Live pooled candidate processes of `env`: [{pid}] (zombies left out). */
function pooled(env) {
  const found = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const vars = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      if (/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"))) continue;
      if (vars.includes("PI_FUSION_TASK_FD=3") && vars.includes(`HOME=${env.home}`)) found.push(Number(pid));
    } catch {
      // ended while we looked
    }
  }
  return found.sort((a, b) => a - b);
}

/** Sends `/fusion <question>` and waits for the run's terminal notice; returns it. */
async function runFusion(rpc, question) {
  const from = rpc.records.length;
  // send, not prompt(): a Pi before 1.x reports no disposition, and prompt() would then wait for
  // an agent run that a command never starts.
  const response = await rpc.send({ type: "prompt", message: `/fusion ${question}` });
  assert.ok(response.success, JSON.stringify(response));
  const notice = await rpc.waitFor((r) => r.type === "extension_ui_request" && r.method === "notify" &&
    DONE.test(r.message ?? ""), { from, timeoutMs: 60000 });
  return notice.message;
}

function candidateAttempts(dir) {
  return manifestOf(dir).attempts.filter((a) => a.stage === "candidate");
}

/** The requests of candidates that asked `question`. */
function candidateRequests(env, question) {
  return env.requests().filter((q) => q.last_user_text.includes(STAGE.candidate.text) &&
    q.last_user_text.includes(question));
}

describe("the warm pool", () => {
  test("two runs in a row: the second's candidates are served by the pool, see nothing of the first, and answer", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      writeKeepWarm(env, 60);
      const rpc = env.rpc();
      assert.match(await runFusion(rpc, QUESTIONS[0]), /completed/);
      const serves = piServesPool();
      if (serves) {
        await waitUntil(() => pooled(env).length === 3, "three pooled processes ready after the first run");
      }
      const ready = pooled(env);
      assert.match(await runFusion(rpc, QUESTIONS[1]), /completed/);
      const dirs = () => runDirs(env).sort((a, b) => fs.statSync(a).ctimeMs - fs.statSync(b).ctimeMs);
      const [first, second] = dirs();
      assert.ok(candidateAttempts(first).every((a) => a.pooled === undefined), "the first run started cold");
      assert.equal(fs.readFileSync(`${second}/merged.md`, "utf8").trim(), MERGED_TEXT);
      if (!serves) {
        // An older Pi: nothing pooled, nothing left waiting, every candidate cold.
        assert.deepEqual(ready, []);
        assert.ok(candidateAttempts(second).every((a) => a.pooled === undefined && a.state === "completed"));
        await rpc.close();
        return;
      }
      for (const a of candidateAttempts(second)) {
        assert.equal(a.state, "completed");
        assert.deepEqual(Object.keys(a.pooled ?? {}).sort(), ["process_started_at", "task"], JSON.stringify(a));
        assert.equal(a.pooled.task, 1);
      }
      // The same processes waited, served, and wait again; a third run is each one's second task.
      await waitUntil(() => pooled(env).length === 3, "the three processes are back in the pool");
      assert.deepEqual(pooled(env), ready);
      // Run 2 had no cap; run 3 has one: its allowance reaches its tasks through their records.
      const limits = (question) => candidateRequests(env, question).map(outputLimit).sort((a, b) => a - b);
      const uncapped = limits(QUESTIONS[1]);
      writeKeepWarm(env, 60, TIGHT_CAP_USD);
      assert.match(await runFusion(rpc, QUESTIONS[2]), /completed/);
      const third = dirs()[2];
      assertConforms("fusion-manifest.v5.json", `${third}/manifest.json`);
      assert.deepEqual(candidateAttempts(third).map((a) => [a.state, a.pooled?.task]),
        [["completed", 2], ["completed", 2], ["completed", 2]]);
      await waitUntil(() => pooled(env).join() === ready.join(), "the same three processes wait again");
      // Each task saw its own conversation only: no text of the process's earlier task, one user
      // message (its own prompt).
      const requests = candidateRequests(env, QUESTIONS[2]);
      assert.equal(requests.length, 3);
      for (const q of requests) {
        assert.ok(!JSON.stringify(q.body).includes(QUESTIONS[1]), "a task's request carries its process's earlier task");
        assert.equal(q.body.messages.filter((m) => m.role === "user").length, 1);
      }
      assert.equal(fs.readFileSync(`${third}/merged.md`, "utf8").trim(), MERGED_TEXT);
      const capped = limits(QUESTIONS[2]);
      assert.ok(capped.at(-1) < uncapped[0], `capped ${capped} vs ${uncapped}`);
      // Run 4, uncapped again in the same processes (their third task): no allowance of run 3's
      // is in force, so the output limits are the model's own again.
      writeKeepWarm(env, 60);
      assert.match(await runFusion(rpc, QUESTIONS[3]), /completed/);
      assert.deepEqual(candidateAttempts(dirs()[3]).map((a) => a.pooled?.task), [3, 3, 3]);
      assert.deepEqual(limits(QUESTIONS[3]), uncapped);
      await rpc.close();
      assert.deepEqual(survivingChildren(env), [], "quitting Pi ends the pool");
    });
  });

  test("a pooled process killed mid-task fails its run like a cold child's crash, and is replaced", async () => {
    const held = [{ name: "held", match: { ...STAGE.candidate, body: QUESTIONS[1] }, responses: [{ text: CANDIDATE_TEXT, delay_ms: 4000 }] }];
    await withFusionEnv({ script: { rules: [...held, ...fusionRules()] } }, async (env) => {
      writeKeepWarm(env, 60);
      const rpc = env.rpc();
      assert.match(await runFusion(rpc, QUESTIONS[0]), /completed/);
      await waitUntil(() => pooled(env).length === 3, "three pooled processes ready");
      const ready = pooled(env);
      const from = rpc.records.length;
      await rpc.prompt(`/fusion ${QUESTIONS[1]}`);
      await waitUntil(() => candidateRequests(env, QUESTIONS[1]).length === 3, "the three tasks reached the model");
      process.kill(ready[0], "SIGKILL");
      const notice = await rpc.waitFor((r) => r.type === "extension_ui_request" && r.method === "notify" &&
        DONE.test(r.message ?? ""), { from, timeoutMs: 60000 });
      assert.match(notice.message, /^Fusion failed \(stage=candidate, slot=\d, attempt=1\): child_exit_failed: child ended with signal 9/);
      const second = runDirs(env).sort((a, b) => fs.statSync(a).ctimeMs - fs.statSync(b).ctimeMs)[1];
      const manifest = manifestOf(second);
      assert.equal(manifest.state, "failed");
      assertConforms("fusion-manifest.v5.json", `${second}/manifest.json`);
      assertConforms("fusion-failure-summary.v1.json", `${second}/failure-summary.json`);
      const killed = manifest.attempts.find((a) => a.stage === "candidate" && a.exit?.signal === 9);
      assert.ok(killed, JSON.stringify(manifest.attempts));
      // Its partners were cancelled as a cold run's are; their processes are ended, not kept.
      const others = manifest.attempts.filter((a) => a.stage === "candidate" && a !== killed);
      assert.deepEqual(others.map((a) => a.state), ["cancelled", "cancelled"]);
      assert.equal(killed.state, "failed");
      assert.equal(killed.pooled.task, 1);
      assert.equal(manifest.error.code, killed.error.code);
      // The run's end keeps three ready again: the dead one replaced by a new process.
      await waitUntil(() => pooled(env).length === 3 && !pooled(env).includes(ready[0]), "the killed process is replaced");
      await rpc.close();
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("SIGKILL of Pi with a warm pool leaves no process", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      writeKeepWarm(env, 60);
      const rpc = env.rpc();
      assert.match(await runFusion(rpc, QUESTIONS[0]), /completed/);
      await waitUntil(() => pooled(env).length === 3, "three pooled processes ready");
      // What is alive before: the pool is seen by the same scan that must find nothing after.
      const before = envProcesses(env);
      assert.ok(pooled(env).every((pid) => before.has(pid)), "the scan sees the pooled processes");
      process.kill(rpc.child.pid, "SIGKILL");
      await rpc.exited;
      const left = await waitAllGone(before, 3000);
      assert.deepEqual(left, [], "every process of Pi's environment ends with it");
      assert.deepEqual(pooled(env), []);
    });
  });
});
