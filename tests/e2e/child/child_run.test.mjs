/**
 * @file End to end: one Fusion child, run by `pi-fusion child-run` exactly as the orchestrator runs
 * it (child command builder, process-group supervisor, protocol verifier), with the REAL pinned Pi
 * as the child and the scripted model server on 127.0.0.1. Each test owns an isolated Pi
 * environment (temp agent dir and HOME, PI_OFFLINE=1, -nc) and cleans it up.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { childRun } from "../../support/child_run.mjs";
import { CHILD_ADDON, CHILD_EXTENSION, largeText, withPiEnv } from "../../support/pi_harness.mjs";

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), "fixtures");
const OVERSIZED = 60000; // > 49,152 JSON-rendered bytes (largeText is plain ASCII plus "\n")

function explain(r) {
  return JSON.stringify({ code: r.code, error: r.out.error, diagnostics: r.out.diagnostics?.slice(-5) });
}

test("a clean answer is verified byte for byte against the metadata frames", () =>
  withPiEnv({ script: { default: { text: "The verified answer.\n\nSecond paragraph." } } }, async (env) => {
    const r = await childRun(env);
    assert.equal(r.code, 0, explain(r));
    assert.equal(r.out.ok, true);
    assert.equal(r.out.answer, "The verified answer.\n\nSecond paragraph.");
    assert.equal(r.out.records.length, 1);
    assert.equal(r.out.records[0].stop_reason, "stop");
    assert.equal(r.out.settlement.status, "ok");
    assert.equal(r.out.settlement.provider_requests, 1);
    assert.ok(r.out.usage.input > 0 && r.out.usage.cost.total > 0);
    assert.equal(fs.readFileSync(r.out.artifacts.response, "utf8"), `${r.out.answer}\n`);
    assert.equal(env.requests().length, 1);
  }));

test("a 429 then success is accepted as a retry marker bound by the settlement", () =>
  withPiEnv({ script: { rules: [{ responses: [{ status: 429 }, { text: "after the retry" }] }] } }, async (env) => {
    const r = await childRun(env);
    assert.equal(r.code, 0, explain(r));
    assert.equal(r.out.answer, "after the retry");
    assert.deepEqual(r.out.records.map((x) => x.stop_reason), ["error", "stop"]);
    assert.deepEqual(r.out.retry_marker_ordinals, [1]);
    assert.deepEqual(r.out.records[0].text_blocks, []);
    assert.match(r.out.records[0].error_message, /429/);
    assert.deepEqual(env.requests().map((x) => x.response.status), [429, 200]);
  }));

test("provider request 551 is refused before transport", () =>
  withPiEnv({ timeoutMs: 300000, script: { default: { tool_calls: [{ name: "ls", arguments: { path: "." } }], usage: { input: 10, output: 5 } } } }, async (env) => {
    const r = await childRun(env, { capability: "inspect", timeoutMs: 300000 });
    assert.equal(r.code, 1, explain(r));
    assert.equal(r.out.error.code, "child_runtime_limit_exceeded");
    assert.equal(r.out.guard.hook, "before_provider_request");
    assert.equal(r.out.guard.provider_request_ordinal, 551);
    assert.match(r.out.guard.payload_sha256, /^sha256:[0-9a-f]{64}$/);
    // The server's own log: request 551 never arrived.
    assert.equal(env.requests().length, 550);
    assert.equal(r.out.records.at(-1).stop_reason, "aborted");
  }));

test("tool call 601 is refused and stops the child", () =>
  withPiEnv({ timeoutMs: 300000, script: { default: { tool_calls: [1, 2, 3].map(() => ({ name: "ls", arguments: { path: "." } })), usage: { input: 10, output: 5 } } } }, async (env) => {
    const r = await childRun(env, { capability: "inspect", timeoutMs: 300000 });
    assert.equal(r.code, 1, explain(r));
    assert.equal(r.out.error.code, "child_runtime_limit_exceeded");
    assert.equal(r.out.guard.hook, "tool_call");
    assert.equal(r.out.guard.tool_call_ordinal, 601);
    assert.equal(r.out.guard.tool_name, "ls");
    // 200 answers carried calls 1-600; answer 201 carried 601-603, and nothing went back.
    assert.equal(env.requests().length, 201);
  }));

test("a malformed PI_CACHE_RETENTION is refused before any request", () =>
  withPiEnv({ script: { default: { text: "never" } } }, async (env) => {
    const r = await childRun(env, { extraEnv: { PI_CACHE_RETENTION: "lnog" } });
    assert.equal(r.code, 1, explain(r));
    assert.equal(r.out.error.code, "child_cache_policy_invalid");
    assert.match(r.out.guard.message, /lnog/);
    assert.equal(env.requests().length, 0);
  }));

/** [location, cache_control] of every marker in an anthropic request body. */
function markers(body) {
  const out = [];
  if (body.cache_control) out.push(["top", body.cache_control]);
  for (const [i, t] of (body.tools ?? []).entries()) if (t.cache_control) out.push([`tool${i}`, t.cache_control]);
  for (const [i, s] of (body.system ?? []).entries()) if (s.cache_control) out.push([`system${i}:${s.text.slice(0, 16)}`, s.cache_control]);
  for (const [m, msg] of body.messages.entries()) {
    for (const [b, block] of (Array.isArray(msg.content) ? msg.content : []).entries()) {
      if (block.cache_control) out.push([`msg${m}.${b}`, block.cache_control]);
    }
  }
  return out;
}

test("an anthropic payload with six breakpoints reaches the server with four, all 1h", () =>
  withPiEnv({ script: { default: { text: "cached" } } }, async (env) => {
    const r = await childRun(env, { provider: "scripted-ant", api: "anthropic-messages",
      extensions: [path.join(FIXTURES, "extra-breakpoints.ts")] });
    assert.equal(r.code, 0, explain(r));
    const [request] = env.requests();
    const long = { type: "ephemeral", ttl: "1h" };
    // Dropped: the top-level marker, then the earliest system block (fixture A).
    assert.deepEqual(markers(request.body), [
      ["system1:fixture system B", long],
      [`system2:${request.body.system[2].text.slice(0, 16)}`, long],
      ["msg0.0", long],
      ["msg0.1", long],
    ]);
    assert.equal(request.body.system[0].text, "fixture system A");
    const observation = r.out.records[0].cache_observation;
    assert.equal(observation.effective_retention, "long");
    assert.equal(observation.source, "env"); // the child env defaults PI_CACHE_RETENTION=long
    assert.equal(observation.breakpoints, 4);
    assert.equal(observation.breakpoints_removed, 2);
  }));

const COMPRESS_RULE = { name: "compression turn", match: { text: "over the hard limit" }, responses: [{ text: "A compressed answer." }] };

test("an oversized candidate answer is compressed in the same session", () =>
  withPiEnv({ script: { rules: [COMPRESS_RULE], default: { large_text_bytes: OVERSIZED } } }, async (env) => {
    const r = await childRun(env, { capability: "inspect" });
    assert.equal(r.code, 0, explain(r));
    assert.equal(r.out.answer, "A compressed answer.");
    assert.equal(r.out.oversized.ordinal, 1);
    const original = fs.readFileSync(r.out.artifacts.oversized_original, "utf8");
    assert.equal(original, `${largeText(OVERSIZED)}\n`);
    assert.equal(r.out.usage.output, r.out.records[0].usage.output + r.out.records[1].usage.output);
    const [first, second] = env.requests();
    assert.equal(env.requests().length, 2);
    assert.ok(first.body.tools?.length > 0, "the candidate had tools");
    assert.equal(second.body.tools, undefined, "the compression turn has none");
    // Same conversation: the original answer is in the follow-up request, before the new ask.
    const roles = second.body.messages.map((m) => m.role);
    assert.deepEqual(roles.slice(-3), ["user", "assistant", "user"]);
    const replayed = second.body.messages.at(-2).content;
    const replayedText = typeof replayed === "string" ? replayed : replayed.map((b) => b.text ?? "").join("");
    assert.equal(replayedText, largeText(OVERSIZED), "the whole original answer is in the conversation");
    assert.match(second.last_user_text, /Do not investigate again/);
  }));

test("a second oversized answer fails as child_output_cap and keeps both artifacts", () =>
  withPiEnv({ script: { default: { large_text_bytes: OVERSIZED } } }, async (env) => {
    const r = await childRun(env);
    assert.equal(r.code, 1, explain(r));
    assert.equal(r.out.error.code, "child_output_cap");
    assert.equal(r.out.settlement.failure_code, "child_output_cap");
    assert.equal(fs.readFileSync(r.out.artifacts.oversized_original, "utf8"), `${largeText(OVERSIZED)}\n`);
    assert.match(r.out.artifacts.response, /response\.partial\.md$/);
    assert.equal(fs.readFileSync(r.out.artifacts.response, "utf8"), `${largeText(OVERSIZED)}\n`);
    assert.equal(env.requests().length, 2, "exactly one compression turn");
  }));

test("cancellation mid-stream stops the child's whole process group", () =>
  withPiEnv({ script: { default: { text: "x".repeat(4000), stall_after_bytes: 300 } } }, async (env) => {
    const r = await childRun(env, {
      onSpawn: (runner) => {
        env.server.waitForRequests(1, 60000)
          .then(() => new Promise((ok) => setTimeout(ok, 300)))
          .then(() => process.kill(runner.pid, "SIGTERM"));
      },
    });
    assert.equal(r.code, 1, explain(r));
    assert.equal(r.out.error.code, "child_cancelled");
    assert.deepEqual(r.out.process.cleanup_errors, []);
    const pgid = r.out.process.pid;
    assert.throws(() => process.kill(-pgid, 0), { code: "ESRCH" }, "no process of the group survives");
  }));

test("a prompt queued by an earlier extension after the settlement is refused and fails the child", () =>
  // Pi defers prompts sent from agent_settled handlers until every handler has returned, so the
  // governor cannot see this one coming: it settles, then refuses the late request before
  // transport and fails the child (spec: settlement before terminal idleness fails loudly).
  withPiEnv({ script: { default: { text: "first answer" } } }, async (env) => {
    const r = await childRun(env, { extensions: [path.join(FIXTURES, "late-follow-up.ts")] });
    assert.equal(r.code, 1, explain(r));
    assert.equal(r.out.error.code, "child_exit_failed");
    assert.match(r.out.error.message, /after the settlement/);
    assert.equal(r.out.settlement.metadata_count, 1);
    assert.equal(env.requests().length, 1, "the late request never reached the server");
  }));

test("activity after the settlement writes no further frame", () =>
  withPiEnv({ script: { default: { text: "an answer" } } }, async (env) => {
    // The late follow-up runs after the child extension's agent_settled handler here.
    const r = await env.print(undefined, {
      stdin: "question",
      extensions: [CHILD_EXTENSION, path.join(FIXTURES, "late-follow-up.ts")],
      env: { PI_FUSION_CHILD_ADDON: CHILD_ADDON, PI_FUSION_CHILD_ROLE: "evaluator" },
    });
    assert.equal(r.code, 1, r.stderr);
    const all = r.stderr.split("\n").filter((l) => l.startsWith("@pi-fusion-frame "));
    // Progress frames (docs/protocol.md, "Progress") bind nothing; none may follow the settlement.
    assert.match(all.at(-1), /fusion-child-settlement\.v3/, r.stderr);
    const frames = all.filter((l) => !l.includes("fusion-child-progress.v1"));
    assert.equal(frames.length, 2, r.stderr);
    assert.match(frames[1], /fusion-child-settlement\.v3/);
    assert.equal(env.requests().length, 1);
  }));

test("a child without its private environment refuses to load and never reaches the model", () =>
  withPiEnv({ script: { default: { text: "ungoverned" } } }, async (env) => {
    const r = await env.print(undefined, {
      stdin: "question",
      extensions: [CHILD_EXTENSION],
      env: { PI_FUSION_CHILD_ADDON: CHILD_ADDON }, // no PI_FUSION_CHILD_ROLE
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /PI_FUSION_CHILD_ROLE is not set/);
    assert.equal(r.stdout, "");
    assert.equal(env.requests().length, 0);
  }));
