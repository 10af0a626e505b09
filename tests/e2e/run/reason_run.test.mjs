/**
 * @file A whole Fusion reason run inside the real pinned Pi: real child Pi processes with the
 * child library, the scripted model playing every role, durable verified artifacts, the
 * background-task cycle (receipt, wake, bg_result, usage claimed once), failures and bg_kill.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import {
  agentRules, CANDIDATE_TEXT, EVALUATION, fusionRules, killRules, launchRules, lookupRules, MERGED_TEXT,
  SECOND_CANDIDATE_ON_B, writeFusionModels,
} from "../../support/fusion_script.mjs";
import { artifactJson, artifactText, manifestOf, runDirs, survivingChildren, withFusionEnv } from "../../support/fusion_runs.mjs";
import { latencyLimitMs } from "../../support/sanitizer_env.mjs";

describe("fusion reason end to end", () => {
  test("/fusion in print mode runs five children and prints the verified merged answer", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      const dirs = runDirs(env);
      assert.equal(dirs.length, 1);
      assert.match(path.basename(dirs[0]), /^reason-[0-9a-f]{32}$/);
      const manifest = manifestOf(dirs[0]);
      assert.equal(manifest.state, "completed");
      assert.equal(manifest.source, "command");
      assert.equal(manifest.attempts.length, 5);
      assert.ok(manifest.attempts.every((a) => a.state === "completed"));
      assert.deepEqual(Object.keys(manifest.anonymous_map).sort(), ["A", "B", "C"]);
      assert.equal(artifactText(dirs[0], "merged.md"), MERGED_TEXT);
      const result = artifactJson(dirs[0], "result.json");
      assert.equal(result.schema_version, "pi-background-tasks.fusion-committed-result.v1");
      assert.equal(result.details.schema_version, "pi-background-tasks.fusion-result.v6");
      // The panel's agreement is recorded and said on stderr; a reason run checks no citation.
      assert.deepEqual(result.details.agreement, { agreements: 1, conflicts: 0, panel: "one_model" });
      assert.deepEqual(manifest.agreement, result.details.agreement);
      assert.ok(!("citations" in result.details) && !("citations" in manifest));
      assert.match(r.stderr, /^Panel: 1 agreement, 0 conflicts; candidates from one model\.$/m);
      const evaluation = artifactJson(dirs[0], "evaluation.json");
      assert.deepEqual(evaluation, EVALUATION);
      const blind = artifactJson(dirs[0], "blind-candidates.json");
      assert.deepEqual(blind.candidates.map((c) => c.response), [CANDIDATE_TEXT, CANDIDATE_TEXT, CANDIDATE_TEXT]);
      // Five model requests: three candidates, the evaluator and the merger; none carry tools.
      const requests = env.requests();
      assert.equal(requests.length, 5);
      for (const req of requests) assert.equal(req.body.tools, undefined);
      const candidateSystem = requests.find((q) => q.last_user_text.startsWith("Answer the request")).body.messages[0].content;
      assert.match(JSON.stringify(candidateSystem), /49,152/);
      // Usage is the sum of the five children's.
      assert.equal(manifest.usage.input, requests.reduce((n, q) => n + (q.response?.usage?.input ?? 0), 0) || manifest.usage.input);
      assert.ok(manifest.usage.totalTokens > 0);
    });
  });

  test("an invalid evaluation is repaired once (six children)", async () => {
    await withFusionEnv({ script: { rules: fusionRules({ evaluator: [{ text: "Here is my evaluation: A is best" }] }) } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.attempts.length, 6);
      const evaluations = manifest.attempts.filter((a) => a.stage === "evaluation");
      assert.deepEqual(evaluations.map((a) => a.attempt), [1, 2]);
      assert.equal(env.requests().length, 6);
      assert.match(r.stderr, /repairing evaluator JSON|evaluator schema retry/);
    });
  });

  test("fusion_reason returns a receipt, wakes the agent when done, and bg_result returns the verified answer once with usage", async () => {
    await withFusionEnv({ script: { rules: agentRules() } }, async (env) => {
      const r = await env.print("please fuse");
      assert.equal(r.code, 0, r.stderr);
      const receipt = env.requests().find((q) => q.tool_results?.some((t) => t.name === "fusion_reason")).tool_results[0].text;
      assert.match(receipt, /^Started fusion reason in the background \(reason-[0-9a-f]{32}\)\.\nArtifacts: .*\nPreflight: .*\nAll three candidates run on one model \(scripted\/scripted-a\), so .*\nEstimate \(expected – worst case\): .*(\n- .*){6}\nWait for the terminal notification, then call bg_result\(\{taskId:"reason-[0-9a-f]{32}"\}\)\. Do not poll\.$/);
      // The header's second line is the panel's agreement (docs/citations.md): the scripted
      // evaluation's one agreement and no conflict, three candidates on one route.
      assert.match(r.stdout, /^FINAL: Fusion reason-[0-9a-f]{32} completed \(reason\)\.\nPanel: 1 agreement, 0 conflicts; candidates from one model\.\nAnswer: \d+ bytes, sha256:[0-9a-f]{64} \(verified\)\./);
      assert.ok(r.stdout.includes(MERGED_TEXT), r.stdout);
      assert.match(r.stdout, /attached to this session now/);

      // A new Pi process finds the completed run on disk; usage is not attached twice.
      const id = path.basename(runDirs(env)[0]);
      env.server.setScript({ rules: lookupRules(id, { ask: "again", reply: "AGAIN: {{tool_results}}" }) });
      const again = await env.print("again");
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /\(verified\)/);
      assert.match(again.stdout, /already attached/);
      assert.ok(again.stdout.includes(MERGED_TEXT));
    });
  });

  test("json mode: a tool update during preflight, and the agent flow completes with the verified answer", async () => {
    await withFusionEnv({ script: { rules: agentRules({ final: "FINAL: got it" }) } }, async (env) => {
      const r = await env.json("please fuse");
      assert.equal(r.code, 0, r.stderr);
      const update = r.events.find((e) => e.type === "tool_execution_update" && e.toolName === "fusion_reason");
      assert.ok(update, "a tool update while preflight runs");
      assert.match(JSON.stringify(update), /fusion reason: preflight/);
      assert.equal(r.text, "FINAL: got it");
    });
  });

  test("in RPC mode the terminal state is a notification and a follow-up turn that retrieves the answer", async () => {
    await withFusionEnv({ script: { rules: agentRules({ final: "FINAL: got it" }) } }, async (env) => {
      const rpc = env.rpc();
      const first = await rpc.prompt("please fuse");
      assert.equal(first.text, "Launched; waiting.");
      const notice = await rpc.waitFor((r) => r.type === "extension_ui_request" && r.method === "notify" && /completed/.test(r.message ?? ""));
      assert.match(notice.message, /^fusion reason reason-[0-9a-f]{32} completed\. Read the verified answer with `pi-fusion show [0-9a-f]{8}`\./);
      // The client's notice speaks to a person or program; the agent is woken in its own words.
      assert.doesNotMatch(notice.message, /bg_result/);
      await rpc.waitFor((r) => r.type === "message_end" && r.message?.role === "assistant" &&
        JSON.stringify(r.message.content).includes("FINAL: got it"));
      const retrieved = env.requests().find((q) => q.tool_results?.some((t) => t.name === "bg_result"));
      assert.match(retrieved.tool_results[0].text, /\(verified\)/);
      assert.ok(retrieved.tool_results[0].text.includes(MERGED_TEXT));
      assert.ok(env.requests().some((q) => JSON.stringify(q).includes("Call bg_result({taskId:")), "the agent's wake says bg_result");
      // The progress widget: drawn, then cleared, and never the same frame twice in a row.
      const frames = rpc.records.filter((r) => r.type === "extension_ui_request" && r.method === "setWidget" && r.widgetKey === "pi-fusion")
        .map((r) => JSON.stringify(r.widgetLines ?? null));
      assert.ok(frames.length >= 2, frames.join("\n"));
      assert.match(frames[0], /fusion reason [0-9a-f]{8}: /);
      assert.equal(frames.at(-1), "null");
      for (let i = 1; i < frames.length; i++) assert.notEqual(frames[i], frames[i - 1], `frame ${i} repeats: ${frames[i]}`);
      await rpc.close();
    });
  });

  test("a tampered merged.md is refused by bg_result with artifact_error", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      const dir = runDirs(env)[0];
      fs.writeFileSync(path.join(dir, "merged.md"), MERGED_TEXT.replace("blue", "red!"));
      env.server.setScript({ rules: lookupRules(path.basename(dir)) });
      const again = await env.print("get it");
      assert.match(again.stdout, /artifact_error/);
      assert.ok(!again.stdout.includes("red!"));
    });
  });

  test("an evaluator invalid twice fails with evaluation_invalid and a failure summary", async () => {
    const rules = fusionRules({ evaluator: [{ text: "not json" }], repair: [{ text: "{\"still\": \"not an evaluation\"}" }] });
    await withFusionEnv({ script: { rules } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Fusion failed \(stage=evaluation, slot=none, attempt=2\): evaluation_invalid/);
      const dir = runDirs(env)[0];
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "failed");
      assert.equal(manifest.error.code, "evaluation_invalid");
      assert.equal(manifest.attempts.length, 5, "three candidates, the evaluator and its one repair");
      assert.ok(fs.existsSync(path.join(dir, "failure-summary.json")));
      assert.ok(!env.requests().some((q) => q.last_user_text.includes("fusion-merge-input.v1")), "no merger ran");
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("a failing merger fails the run at the merge stage, keeping the evaluation", async () => {
    await withFusionEnv({ script: { rules: fusionRules({ merger: [{ status: 500 }] }) } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Fusion failed \(stage=merge, slot=none, attempt=1\)/);
      const dir = runDirs(env)[0];
      assert.equal(manifestOf(dir).state, "failed");
      assert.ok(fs.existsSync(path.join(dir, "evaluation.json")));
      assert.ok(!fs.existsSync(path.join(dir, "merged.md")));
      assert.ok(fs.existsSync(path.join(dir, "failure-summary.json")));
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("tampering with result.json or manifest.json makes bg_result refuse with artifact_error", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      const dir = runDirs(env)[0];
      env.server.setScript({ rules: lookupRules(path.basename(dir)) });
      for (const [file, edit] of [
        ["result.json", (t) => t.replace('"run_id"', '"run_id" ').replace(/ $/, "")],
        ["result.json", (t) => t.slice(0, -1)],
        ["manifest.json", (t) => t.replace(/"sha256":"sha256:([0-9a-f])/, (_, c) => `"sha256":"sha256:${c === "0" ? "1" : "0"}`)],
        ["manifest.json", (t) => t.replace(/"byte_length":(\d+)/, (_, n) => `"byte_length":${Number(n) + 1}`)],
      ]) {
        const original = fs.readFileSync(path.join(dir, file), "utf8");
        const changed = edit(original);
        assert.notEqual(changed, original, `${file} edit must change bytes`);
        fs.writeFileSync(path.join(dir, file), changed);
        const again = await env.print("get it");
        assert.match(again.stdout, /artifact_error/, `${file}: ${again.stdout}`);
        assert.ok(!again.stdout.includes(MERGED_TEXT), file);
        fs.writeFileSync(path.join(dir, file), original);
      }
    });
  });

  test("a failing candidate fails the run at once: its slow siblings are cancelled, with a failure summary", async () => {
    // The siblings would answer only after 20 s; fail fast must not wait for them.
    const rules = [
      { name: "failing", match: { text: "Answer the request", model: "scripted-b" }, responses: [{ status: 500 }] },
      ...fusionRules({ candidate: [{ text: CANDIDATE_TEXT, delay_ms: 20000 }] }),
    ];
    await withFusionEnv({ script: { rules } }, async (env) => {
      writeFusionModels(env, SECOND_CANDIDATE_ON_B);
      const r = await env.print("/fusion Why is the sky blue?");
      const ended = Date.now();
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Fusion failed \(stage=candidate, slot=2, attempt=1\)/);
      // From the failing candidate's last request to Pi's exit with the failure published: about
      // a second (the siblings' stop grace); waiting for the siblings would take 20 s.
      const lastFailing = env.requests().filter((q) => q.rule_name === "failing").at(-1);
      const afterFailure = ended - Date.parse(lastFailing.time);
      assert.ok(afterFailure < 8000, `failure published ${afterFailure} ms after the failing request`);
      const dir = runDirs(env)[0];
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "failed");
      const bySlot = Object.fromEntries(manifest.attempts.map((a) => [a.slot, a.state]));
      assert.deepEqual(bySlot, { 1: "cancelled", 2: "failed", 3: "cancelled" });
      assert.ok(fs.existsSync(path.join(dir, "error.json")));
      const summary = artifactJson(dir, "failure-summary.json");
      assert.equal(summary.schema_version, "pi-background-tasks.fusion-failure-summary.v1");
      assert.ok(!JSON.stringify(summary).includes(CANDIDATE_TEXT), "no response text in the summary");
      assert.deepEqual(survivingChildren(env), []);
      // No evaluator or merger ran.
      assert.ok(!env.requests().some((q) => q.last_user_text.includes("fusion-blind-candidates.v1")));
    });
  });

  test("bg_kill cancels a running run: every child stops and the manifest says cancelled", async () => {
    await withFusionEnv({ script: { rules: killRules("KILLED: {{tool_results}}") } }, async (env) => {
      const r = await env.print("please fuse");
      assert.equal(r.code, 0, r.stderr);
      const killed = env.requests().find((q) => q.tool_results?.some((t) => t.name === "bg_kill")).tool_results[0].text;
      assert.match(killed, /^killed reason-[0-9a-f]{32}/);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "cancelled");
      assert.ok(manifest.attempts.filter((a) => a.stage === "candidate").every((a) => a.state === "cancelled"));
      assert.ok(fs.existsSync(path.join(runDirs(env)[0], "failure-summary.json")));
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("quitting Pi cancels an active run durably and stops its children", async () => {
    await withFusionEnv({ script: { rules: launchRules({ stages: fusionRules({ candidate: [{ stall: true }] }) }) } }, async (env) => {
      const rpc = env.rpc();
      await rpc.prompt("please fuse");
      await env.server.waitForRequests(4);  // the parent's two and at least two stalled candidates
      // The quit path stops children with a short grace: Pi is gone well inside 5 s, although
      // the stalled candidates would never finish by themselves.
      const quitAt = Date.now();
      await rpc.close({ timeoutMs: 30000 });
      const quitMs = Date.now() - quitAt;
      assert.ok(quitMs < latencyLimitMs(5000), `quit took ${quitMs} ms`);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "cancelled");
      assert.ok(fs.existsSync(path.join(runDirs(env)[0], "error.json")));
      assert.ok(fs.existsSync(path.join(runDirs(env)[0], "failure-summary.json")));
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("a request over every route's budget starts zero children", async () => {
    const huge = "why ".repeat(40000);
    const rules = [
      { match: { last_role: "tool" }, responses: [{ text: "RESULT: {{tool_results}}" }] },
      { match: { text: "big question" }, responses: [{ tool_calls: [{ name: "fusion_reason", arguments: { prompt: huge } }] }] },
    ];
    await withFusionEnv({ script: { rules } }, async (env) => {
      const r = await env.print("big question");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /prompt_budget_exceeded_forecast/);
      assert.equal(env.requests().length, 2, "only the parent agent's two requests");
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "failed");
      assert.equal(manifest.attempts.length, 0);
      assert.ok(fs.existsSync(path.join(runDirs(env)[0], "budget-plan.json")));
    });
  });
});
