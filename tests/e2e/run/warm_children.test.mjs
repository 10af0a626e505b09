/**
 * @file The warm evaluator and merger children through their whole life inside the real pinned
 * Pi: started while the candidates wait for the model, fed when their stage begins; stopped
 * unused when the run fails or is cancelled first; replaced by a cold start when one dies before
 * its input; off with PI_FUSION_WARM=0. Every case checks that no child process is left and
 * that the manifest says what happened. Fusion children are found by their environment (a Pi
 * process rewrites its own title, so its command line proves nothing).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import {
  callStep, fusionRules, launchRules, MERGED_TEXT, SECOND_CANDIDATE_ON_B, STAGE, writeFusionModels,
} from "../../support/fusion_script.mjs";
import { manifestOf, runDirs, specialFiles, withFusionEnv } from "../../support/fusion_runs.mjs";
import { waitUntil } from "../../support/pi_harness.mjs";
// The candidates answer after this long, so the warm children start well before the stage ends.
const CANDIDATE_DELAY_MS = 3000;

/**
 * Live Fusion child processes of `env`, as [{pid, role, vars}], found by /proc/<pid>/environ
 * (vars: its "NAME=value" entries).
 */
function fusionChildren(env) {
  const found = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    let vars;
    try {
      vars = fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      if (/\) Z /.test(stat)) continue;  // a zombie holds nothing; its parent reaps it
    } catch {
      continue;  // ended while we looked, or not ours to read
    }
    const role = vars.find((v) => v.startsWith("PI_FUSION_CHILD_ROLE="));
    if (role && vars.includes(`HOME=${env.home}`)) found.push({ pid: Number(pid), role: role.split("=")[1], vars });
  }
  return found;
}

/** Requests the scripted model got for one stage ("evaluator", "merger", ...). */
function stageRequests(env, stage) {
  return env.requests().filter((q) => q.last_user_text.includes(STAGE[stage].text));
}

/** Requests from Fusion children: the parent agent's carry its tools, a reason child's none. */
function childRequests(env) {
  return env.requests().filter((q) => q.body.tools === undefined);
}

/** A wrapper every child command runs through: logs "<epoch ms> <role>" per start, and lets a
 * test make one role's first start exit at once. */
function writeWrapper(env, { dieOnce } = {}) {
  const log = path.join(env.root, "starts.log");
  const marker = path.join(env.root, "died-once");
  const wrapper = path.join(env.root, "wrapper.sh");
  fs.writeFileSync(wrapper, [
    "#!/bin/sh",
    `echo "$(date +%s%3N) $PI_FUSION_CHILD_ROLE" >> '${log}'`,
    dieOnce ? `if [ "$PI_FUSION_CHILD_ROLE" = '${dieOnce}' ] && mkdir '${marker}' 2>/dev/null; then exit 3; fi` : "",
    'exec "$@"',
    "",
  ].join("\n"), { mode: 0o755 });
  const starts = () => fs.readFileSync(log, "utf8").trim().split("\n").map((l) => {
    const [ms, role] = l.split(" ");
    return { ms: Number(ms), role };
  });
  return { wrapper, starts };
}

function delayedCandidates() {
  return fusionRules({ candidate: [{ delay_ms: CANDIDATE_DELAY_MS, text: "Candidate answer: Rayleigh scattering." }] });
}

describe("warm evaluator and merger children", () => {
  test("used: both start while the candidates wait, get their input as attempt 1, and nothing is left", async () => {
    await withFusionEnv({ script: { rules: delayedCandidates() } }, async (env) => {
      const { wrapper, starts } = writeWrapper(env);
      const r = await env.print("/fusion Why is the sky blue?", { env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "completed");
      assert.deepEqual(manifest.attempts.map((a) => a.stage).sort(), ["candidate", "candidate", "candidate", "evaluation", "merge"]);
      assert.equal(manifest.attempts.length, 5);
      assert.ok(manifest.attempts.every((a) => a.state === "completed" && a.attempt === 1));
      assert.equal(manifest.warm_children, undefined, "nothing unused or replaced");
      // Five starts: the evaluator and merger started after every candidate had started (they wait
      // for each candidate's first provider request) and before the candidates' answers were sent,
      // i.e. while the candidates waited for the model. (The first-request signal itself is
      // pinned by the child library's unit tests; its time against the server's log depends on
      // the machine's load, so it is not compared here.)
      const s = starts();
      assert.deepEqual(s.map((x) => x.role).sort(), ["candidate", "candidate", "candidate", "evaluator", "merger"]);
      const candidateRequests = stageRequests(env, "candidate");
      assert.equal(candidateRequests.length, 3);
      const lastCandidateStart = Math.max(...s.filter((x) => x.role === "candidate").map((x) => x.ms));
      const lastCandidateRequest = Math.max(...candidateRequests.map((q) => Date.parse(q.time)));
      for (const role of ["evaluator", "merger"]) {
        const at = s.find((x) => x.role === role).ms;
        assert.ok(at > lastCandidateStart, `${role} started after every candidate`);
        assert.ok(at < lastCandidateRequest + CANDIDATE_DELAY_MS, `${role} started while the candidates waited`);
      }
      // The evaluator and the merger each made their one request: the request checks of the
      // other cases see a warm child's request when there is one.
      assert.deepEqual(childRequests(env).map((q) => q.rule_name).sort(), ["candidate", "candidate", "candidate", "evaluator", "merger"]);
      assert.deepEqual(fusionChildren(env), []);
      assert.deepEqual(specialFiles(runDirs(env)[0]), [], "only regular files and directories");
    });
  });

  test("PI_FUSION_WARM=0: the evaluator and merger start cold, after the candidates answered", async () => {
    await withFusionEnv({ script: { rules: delayedCandidates() } }, async (env) => {
      const { wrapper, starts } = writeWrapper(env);
      const r = await env.print("/fusion Why is the sky blue?", { env: { PI_FUSION_CHILD_WRAPPER: wrapper, PI_FUSION_WARM: "0" } });
      assert.equal(r.code, 0, r.stderr);
      const lastCandidateRequest = Math.max(...stageRequests(env, "candidate").map((q) => Date.parse(q.time)));
      for (const role of ["evaluator", "merger"]) {
        assert.ok(starts().find((x) => x.role === role).ms >= lastCandidateRequest + CANDIDATE_DELAY_MS, role);
      }
      assert.equal(manifestOf(runDirs(env)[0]).warm_children, undefined);
    });
  });

  test("unused after an earlier failure: both are stopped before any model request and listed as unused", async () => {
    const rules = [
      { name: "candidate", match: { text: "Answer the request", model: "scripted-b" }, responses: [{ delay_ms: CANDIDATE_DELAY_MS, status: 500 }] },
      ...delayedCandidates(),
    ];
    await withFusionEnv({ script: { rules } }, async (env) => {
      writeFusionModels(env, SECOND_CANDIDATE_ON_B);
      const { wrapper, starts } = writeWrapper(env);
      const r = await env.print("/fusion Why is the sky blue?", { env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Fusion failed \(stage=candidate, slot=2, attempt=1\)/);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "failed");
      assert.deepEqual(manifest.attempts.map((a) => a.stage), ["candidate", "candidate", "candidate"]);
      assert.deepEqual(manifest.warm_children.map((w) => [w.stage, w.outcome]), [["evaluation", "unused"], ["merge", "unused"]]);
      for (const w of manifest.warm_children) assert.match(w.note, /stopped before its input/);
      assert.deepEqual(starts().map((x) => x.role).sort(), ["candidate", "candidate", "candidate", "evaluator", "merger"]);
      // No model request but the candidates' own (Pi retries the failing one's 500 twice),
      // whatever a warm child might have sent.
      assert.deepEqual([...new Set(childRequests(env).map((q) => q.rule_name))], ["candidate"]);
      assert.deepEqual(fusionChildren(env), []);
    });
  });

  test("replaced after dying before its input: a cold evaluator takes its place as attempt 1", async () => {
    await withFusionEnv({ script: { rules: delayedCandidates() } }, async (env) => {
      const { wrapper, starts } = writeWrapper(env, { dieOnce: "evaluator" });
      const r = await env.print("/fusion Why is the sky blue?", { env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "completed");
      assert.deepEqual(manifest.attempts.filter((a) => a.stage === "evaluation").map((a) => [a.attempt, a.state]), [[1, "completed"]]);
      assert.equal(manifest.warm_children.length, 1);
      const [w] = manifest.warm_children;
      assert.equal(w.stage, "evaluation");
      assert.equal(w.outcome, "replaced");
      assert.match(w.note, /exited with code 3 before its input; a cold child replaced it/);
      assert.deepEqual(starts().map((x) => x.role).sort(), ["candidate", "candidate", "candidate", "evaluator", "evaluator", "merger"]);
      assert.equal(stageRequests(env, "evaluator").length, 1);
      assert.deepEqual(fusionChildren(env), []);
    });
  });

  test("ended on cancel: bg_kill while they wait stops them before any model request", async () => {
    const rules = [
      { name: "after-kill", match: { last_role: "tool", tool_result: "killed" }, responses: [{ text: "KILLED" }] },
      { name: "kill", match: { text: "stop it" }, responses: [callStep("bg_kill", { taskId: "reason-" })] },
      { name: "wake", match: { text: "cancelled" }, responses: [{ text: "noted" }] },
      ...launchRules({ stages: fusionRules({ candidate: [{ stall: true }] }) }),
    ];
    await withFusionEnv({ script: { rules } }, async (env) => {
      const rpc = env.rpc();
      await rpc.prompt("please fuse");
      // The check for leftover children sees them while they live: both warm children, waiting.
      const waiting = await waitUntil(() => {
        const roles = fusionChildren(env).map((c) => c.role).sort();
        return roles.includes("evaluator") && roles.includes("merger") ? roles : null;
      }, "the warm evaluator and merger");
      assert.deepEqual(waiting, ["candidate", "candidate", "candidate", "evaluator", "merger"]);
      // The rendezvous that let them start is an inherited pipe (descriptor 3 of each
      // candidate), not a file: the run directory, inside the project the candidates may read,
      // holds nothing a reader could block on, even while the run is live.
      const dir = runDirs(env)[0];
      assert.deepEqual(specialFiles(dir), [], "only regular files and directories in the live run");
      for (const child of fusionChildren(env)) {
        const signal = child.vars.filter((v) => v.startsWith("PI_FUSION_REQUEST_SIGNAL"));
        assert.deepEqual(signal, child.role === "candidate" ? ["PI_FUSION_REQUEST_SIGNAL_FD=3"] : [], child.role);
      }
      await rpc.prompt("stop it");
      await waitUntil(() => manifestOf(dir).state === "cancelled", "the cancelled manifest");
      const manifest = manifestOf(dir);
      assert.deepEqual(manifest.warm_children.map((w) => [w.stage, w.outcome]), [["evaluation", "unused"], ["merge", "unused"]]);
      assert.ok(manifest.attempts.every((a) => a.stage === "candidate" && a.state === "cancelled"));
      assert.deepEqual(childRequests(env).map((q) => q.rule_name), ["candidate", "candidate", "candidate"]);
      assert.deepEqual(fusionChildren(env), []);
      await rpc.close({ timeoutMs: 30000 });
    });
  });
});
