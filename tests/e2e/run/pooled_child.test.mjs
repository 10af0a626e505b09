/**
 * @file End to end: the parent's side of a pooled child (src/process/pooled_child.h) against the
 * REAL pinned Pi in RPC mode with the child extension, through `pooled_probe` (a small driver of
 * PooledChild built with the unit tests). One process serves two tasks in a row; each task's
 * outcome reads like a cold child's: the text mode's stdout, the stderr between the start and end
 * lines without them, the end line's exit code.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import {
  BUILD_DIR, CHILD_ADDON, CHILD_EXTENSION, PINNED_NODE, PI_CLI, createPiEnv,
} from "../../support/pi_harness.mjs";

const PROBE = path.join(BUILD_DIR, "tests", "unit", "process", "pooled_probe");
const FRAME = "@pi-fusion-frame ";

/** The cold child's argv (src/process/child_command.cc BuildChildArgv) with `--mode rpc`. */
const pooledArgv = () => [PINNED_NODE, PI_CLI, "--mode", "rpc", "--no-session", "--no-tools",
  "--no-extensions", "--no-skills", "--no-prompt-templates", "--no-themes", "--no-context-files",
  "--extension", CHILD_EXTENSION, "--provider", "scripted", "--model", "scripted-a",
  "--thinking", "off", "--system-prompt", "S"];

/** Runs the probe (asynchronously: the scripted model server lives in this process). */
function probe(job) {
  return new Promise((resolve, reject) => {
    const child = spawn(PROBE, [], { stdio: ["pipe", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => { out += d; });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, lines: out.trim().split("\n").map((l) => JSON.parse(l)) }));
    child.stdin.end(JSON.stringify(job));
  });
}

test("one pooled Pi serves two tasks in a row, each read like a cold child", async () => {
  const env = await createPiEnv({
    script: {
      rules: [
        { match: { text: "first question" }, responses: [{ text: "First answer." }] },
        { match: { text: "second question" }, responses: [{ text: "Second answer." }] },
      ],
      default: { text: "unexpected" },
    },
  });
  try {
    const task = (prompt, n) => ({
      task_id: crypto.randomBytes(16).toString("hex"),
      vars: { PI_FUSION_CHILD_ROLE: "candidate", PI_FUSION_OVERSIZE_PATH: path.join(env.tmp, `t${n}.oversized.md`) },
      prompt, provider: "scripted", model: "scripted-a", thinking: "off",
    });
    const childEnv = env.env({ PI_FUSION_CHILD_ADDON: CHILD_ADDON });
    const { code, lines } = await probe({
      argv: pooledArgv(),
      env: Object.entries(childEnv).map(([k, v]) => `${k}=${v}`),
      cwd: env.cwd,
      tasks: [task("the first question", 1), task("the second question", 2)],
    });
    assert.equal(code, 0);
    const [one, two, end] = lines;
    for (const [r, answer] of [[one, "First answer.\n"], [two, "Second answer.\n"]]) {
      assert.equal(r.started, true, r.reason);
      assert.equal(r.reusable, true, r.reason);
      assert.equal(r.stop_reason, "none");
      assert.equal(r.exit_code, 0);
      assert.equal(r.stdout, answer);
      // Frames kept, the task's own start and end lines cut out.
      const frames = r.stderr.split("\n").filter((l) => l.startsWith(FRAME)).map((l) => JSON.parse(l.slice(FRAME.length)));
      assert.equal(frames.filter((f) => f.schema_version.includes("settlement")).length, 1);
      assert.doesNotMatch(r.stderr, /@pi-fusion-task-/);
    }
    assert.equal(two.pid, one.pid, "the second task ran in the same process");
    assert.equal(env.requests().length, 2);
    // End closed its stdin and Pi left by itself; End reaped it.
    assert.equal(end.tasks, 2);
    assert.equal(end.ended, "exited with code 0");
  } finally {
    await env.cleanup();
  }
});
