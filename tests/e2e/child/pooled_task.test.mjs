/**
 * @file End to end: the child library's task mode (docs/protocol.md, "Pooled children"), driven by
 * hand as the parent's pool drives it: the REAL pinned Pi in RPC mode with the cold child's argv
 * (but `--mode rpc`), the environment without any per-child variable plus PI_FUSION_TASK_FD=3, and
 * a pipe as descriptor 3 that only this test writes. One process serves the idle check and four
 * tasks in a row; a second (with the candidates' tool flags) a tool task and two that never start.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { CHILD_ADDON, CHILD_EXTENSION, createPiEnv, waitUntil } from "../../support/pi_harness.mjs";

const SCHEMA = "pi-background-tasks.fusion-pooled-task.v1";
const FRAME = "@pi-fusion-frame ";
const START = "@pi-fusion-task-start ";
const END = "@pi-fusion-task-end ";
const TOOLS = ["read", "grep", "find", "ls"];
const WAIT = { timeoutMs: 15000, everyMs: 20 };

/** The cold child's argv (src/process/child_command.cc BuildChildArgv) with `--mode rpc`. */
function pooledArgv(withTools) {
  const toolFlags = withTools
    ? ["--no-builtin-tools", "--tools", TOOLS.join(","), "--exclude-tools", "bash,edit,write,powershell"]
    : ["--no-tools"];
  return ["--mode", "rpc", "--no-session", ...toolFlags, "--no-extensions", "--no-skills",
    "--no-prompt-templates", "--no-themes", "--no-context-files", "--extension", CHILD_EXTENSION,
    "--provider", "scripted", "--model", "scripted-a", "--thinking", "off", "--system-prompt", "S"];
}

function startPooled(env, withTools) {
  const rpc = env.rpc({
    rawArgs: pooledArgv(withTools),
    env: { PI_FUSION_CHILD_ADDON: CHILD_ADDON, PI_FUSION_TASK_FD: "3" },
    stdio: ["pipe", "pipe", "pipe", "pipe"],
  });
  rpc.taskPipe = rpc.child.stdio[3];
  return rpc;
}

/** Everything you start, you stop: stdin closed (Pi's orderly exit), then the group killed. */
async function stop(rpc) {
  rpc.taskPipe.end();
  await rpc.close({ timeoutMs: 3000 });
}

const newTaskId = () => crypto.randomBytes(16).toString("hex");

function record(taskId, vars) {
  return `${JSON.stringify({ schema_version: SCHEMA, task_id: taskId, vars })}\n`;
}

/** The stderr lines after character `from`. */
const linesAfter = (rpc, from) => rpc.stderr.slice(from).split("\n");

/**
 * One task as the parent runs it: record, new_session, the start line, set_model, prompt, the end
 * line. Returns {requests, lines, end}: the model requests it made and its stderr lines between
 * the start and end lines.
 */
async function runTask(env, rpc, vars, prompt) {
  const taskId = newTaskId();
  const from = rpc.stderr.length;
  const before = env.requests().length;
  rpc.taskPipe.write(record(taskId, vars));
  assert.equal((await rpc.send({ type: "new_session" })).success, true);
  const startAt = await waitUntil(() => {
    const i = linesAfter(rpc, from).findIndex((l) => l.startsWith(START));
    return i >= 0 ? i + 1 : 0;
  }, "the task's start line", WAIT);
  assert.deepEqual(JSON.parse(linesAfter(rpc, from)[startAt - 1].slice(START.length)), { task_id: taskId });
  assert.equal((await rpc.send({ type: "set_model", provider: "scripted", modelId: "scripted-a" })).success, true);
  const { text } = await rpc.prompt(prompt);
  const endAt = await waitUntil(() => {
    const i = linesAfter(rpc, from).findIndex((l) => l.startsWith(END));
    return i >= 0 ? i + 1 : 0;
  }, "the task's end line", WAIT);
  const lines = linesAfter(rpc, from);
  const end = JSON.parse(lines[endAt - 1].slice(END.length));
  assert.equal(end.task_id, taskId);
  return { text, requests: env.requests().slice(before), lines: lines.slice(startAt, endAt - 1), end };
}

const frames = (lines) => lines.filter((l) => l.startsWith(FRAME)).map((l) => JSON.parse(l.slice(FRAME.length)));
const bySchema = (fs_, word) => fs_.filter((f) => f.schema_version.includes(word));
const outputLimit = (request) => request.body.max_completion_tokens ?? request.body.max_tokens;
const conversation = (request) => JSON.stringify(request.body.messages);

test("a pooled child refuses everything idle, then serves two tasks with nothing of the first in the second", async () => {
  const env = await createPiEnv({
    script: {
      rules: [
        { match: { text: "first question" }, responses: [{ text: "First answer." }] },
        { match: { text: "second question" }, responses: [{ text: "Second answer." }] },
        { match: { text: "oversized question" }, responses: [{ large_text_bytes: 60000 }] },
        { match: { text: "previous answer is" }, responses: [{ text: "Compressed answer." }] },
      ],
      default: { text: "unexpected" },
    },
  });
  const rpc = startPooled(env, false);
  try {
    assert.equal((await rpc.send({ type: "get_state" })).success, true);

    // (a) Idle: no task yet, so the prompt reaches no transport and no frame is written.
    const idle = await rpc.prompt("idle question");
    assert.equal(env.requests().length, 0, "an idle pooled child sent a request");
    assert.ok(idle.events.some((e) => e.type === "agent_settled"));
    assert.doesNotMatch(rpc.stderr, /@pi-fusion-/);

    // (b) Task 1: a candidate with a cost allowance, so its request's output limit is lowered.
    const oversize1 = path.join(env.tmp, "t1.response.oversized.md");
    const one = await runTask(env, rpc, {
      PI_FUSION_CHILD_ROLE: "candidate",
      PI_FUSION_OVERSIZE_PATH: oversize1,
      PI_FUSION_COST_ALLOWANCE_USD: "0.01",
    }, "the first question");
    assert.equal(one.text, "First answer.");
    // The same count that saw none while idle sees the task's one request.
    assert.equal(one.requests.length, 1);
    assert.ok(outputLimit(one.requests[0]) < 16384, `task 1's output limit: ${outputLimit(one.requests[0])}`);
    const f1 = frames(one.lines);
    assert.equal(bySchema(f1, "child-result").length, 1);
    assert.equal(bySchema(f1, "child-result")[0].ordinal, 1);
    assert.equal(bySchema(f1, "settlement").length, 1);
    assert.equal(bySchema(f1, "settlement")[0].status, "ok");
    assert.equal(f1.at(-1).schema_version.includes("settlement"), true, "the settlement is the last frame");
    assert.equal(one.end.exit_code, 0);

    // (c) Task 2 in the same process: its own conversation only, frames from ordinal 1 again, and
    // task 1's allowance (absent from this record) no longer in force.
    const two = await runTask(env, rpc, {
      PI_FUSION_CHILD_ROLE: "candidate",
      PI_FUSION_OVERSIZE_PATH: path.join(env.tmp, "t2.response.oversized.md"),
    }, "the second question");
    assert.equal(two.text, "Second answer.");
    assert.equal(two.requests.length, 1);
    const convo = conversation(two.requests[0]);
    assert.match(convo, /second question/);
    assert.doesNotMatch(convo, /first question|First answer/);
    const limit2 = outputLimit(two.requests[0]);
    assert.ok(limit2 === undefined || limit2 >= 16384, `task 2's output limit: ${limit2}`);
    const f2 = frames(two.lines);
    assert.deepEqual(bySchema(f2, "child-result").map((f) => f.ordinal), [1]);
    assert.equal(bySchema(f2, "settlement").length, 1);
    assert.equal(bySchema(f2, "settlement")[0].provider_requests, 1);
    assert.equal(two.end.exit_code, 0);
    assert.equal(fs.existsSync(oversize1), false);

    // Task 3: an allowance too small for any request. The guard refuses before transport and
    // aborts; the end line, at the aborted settle, carries the failing exit code.
    const three = await runTask(env, rpc, {
      PI_FUSION_CHILD_ROLE: "candidate",
      PI_FUSION_OVERSIZE_PATH: path.join(env.tmp, "t3.response.oversized.md"),
      PI_FUSION_COST_ALLOWANCE_USD: "0.0000001",
    }, "the second question");
    assert.equal(three.requests.length, 0);
    const f3 = frames(three.lines);
    assert.deepEqual(bySchema(f3, "guard").map((f) => f.code), ["cost_cap_exceeded"]);
    assert.equal(bySchema(f3, "settlement").length, 0);
    assert.equal(three.end.exit_code, 1);

    // Task 4: an oversized answer and its compression turn are one task: the original is preserved,
    // and the end line follows the compression turn's answer and the one settlement frame.
    const oversize4 = path.join(env.tmp, "t4.response.oversized.md");
    const four = await runTask(env, rpc, {
      PI_FUSION_CHILD_ROLE: "candidate",
      PI_FUSION_OVERSIZE_PATH: oversize4,
    }, "the oversized question");
    assert.equal(four.requests.length, 2);
    const f4 = frames(four.lines);
    assert.deepEqual(bySchema(f4, "child-result").map((f) => f.ordinal), [1, 2]);
    assert.equal(bySchema(f4, "settlement").length, 1);
    assert.equal(bySchema(f4, "settlement")[0].oversized_original_ordinal, 1);
    assert.equal(f4.at(-1).schema_version.includes("settlement"), true, "the settlement is the last frame");
    assert.equal(four.end.exit_code, 0);
    assert.equal(fs.statSync(oversize4).size > 49152, true);
  } finally {
    await stop(rpc);
    await env.cleanup();
  }
});

test("a pooled tool task journals and seals; a bad record or tools Pi cannot activate start no task", async () => {
  const env = await createPiEnv({
    files: { "notes.txt": "hello\n" },
    script: {
      rules: [
        { match: { text: "list the files", last_role: "user" }, responses: [{ tool_calls: [{ name: "ls", arguments: { path: "." } }] }] },
        { match: { last_role: "tool" }, responses: [{ text: "Listed: {{tool_results}}" }] },
      ],
      default: { text: "unexpected" },
    },
  });
  const rpc = startPooled(env, true);
  try {
    assert.equal((await rpc.send({ type: "get_state" })).success, true);
    // (d) A tool-using candidate: the journal is created at the task's start, the seal at its end.
    const journal = path.join(env.tmp, "c1.tools.jsonl");
    const seal = path.join(env.tmp, "c1.tools.seal.json");
    const task = await runTask(env, rpc, {
      PI_FUSION_CHILD_ROLE: "candidate",
      PI_FUSION_OVERSIZE_PATH: path.join(env.tmp, "c1.response.oversized.md"),
      PI_FUSION_TOOLS: TOOLS.join(","),
      PI_FUSION_TOOL_JOURNAL: journal,
      PI_FUSION_TOOL_SEAL: seal,
    }, "list the files please");
    assert.match(task.text, /notes\.txt/);
    assert.equal(task.end.exit_code, 0);
    assert.deepEqual(task.requests[0].body.tools.map((t) => t.function?.name ?? t.name).sort(), [...TOOLS].sort());
    const records = fs.readFileSync(journal, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(records.length, 1);
    assert.equal(records[0].tool_name, "ls");
    const sealed = JSON.parse(fs.readFileSync(seal, "utf8"));
    assert.equal(sealed.status, "complete");
    assert.equal(bySchema(frames(task.lines), "settlement").length, 1);

    // A record the child must not take (HOME is no per-task variable): no start line.
    const from = rpc.stderr.length;
    rpc.taskPipe.write(record(newTaskId(), { HOME: "/elsewhere" }));
    assert.equal((await rpc.send({ type: "new_session" })).success, true);
    await waitUntil(() => /invalid task record/.test(rpc.stderr.slice(from)), "the load error", WAIT);
    assert.doesNotMatch(rpc.stderr.slice(from), /@pi-fusion-task-start/);

    // A task whose tools Pi cannot make active (fusion_web_fetch without a source policy is never
    // registered): Pi reports the extension error, no start line, and the task stays refused.
    const from2 = rpc.stderr.length;
    const at = rpc.records.length;
    rpc.taskPipe.write(record(newTaskId(), {
      PI_FUSION_CHILD_ROLE: "candidate",
      PI_FUSION_OVERSIZE_PATH: path.join(env.tmp, "c2.response.oversized.md"),
      PI_FUSION_TOOLS: [...TOOLS, "fusion_web_fetch"].join(","),
      PI_FUSION_TOOL_JOURNAL: path.join(env.tmp, "c2.tools.jsonl"),
      PI_FUSION_TOOL_SEAL: path.join(env.tmp, "c2.tools.seal.json"),
    }));
    assert.equal((await rpc.send({ type: "new_session" })).success, true);
    const failure = await rpc.waitFor((r) => r.type === "extension_error", { from: at });
    assert.equal(failure.event, "session_start");
    assert.match(failure.error, /could not be made the active tools/);
    const before = env.requests().length;
    await rpc.prompt("list the files please");
    assert.equal(env.requests().length, before, "a task that never started reached the model");
    assert.doesNotMatch(rpc.stderr.slice(from2), /@pi-fusion-/);
  } finally {
    await stop(rpc);
    await env.cleanup();
  }
});
