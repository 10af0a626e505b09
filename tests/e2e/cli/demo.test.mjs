/**
 * @file scripts/demo's run (scripts/demo.mjs, without the setup step): the verified answer on
 * stdout, the artifacts listed, and of its temp dir only the project with the artifacts left —
 * no temporary Pi home, agent dir or TMPDIR — and its last line says where that is and how to
 * remove it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../../support/pi_harness.mjs";

test("the demo prints a verified answer and leaves only its project behind", () => {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts", "demo.mjs"), "Why is the sky blue?"], {
    encoding: "utf8",
    timeout: 240000,
  });
  const artifacts = /^Artifacts: (.*)$/m.exec(r.stdout)?.[1];
  const root = artifacts?.slice(0, artifacts.indexOf("/project/"));
  try {
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^# Why is the sky blue\?$/m);
    assert.match(r.stdout, /^ {2}merged\.md$/m);
    assert.ok(root && fs.existsSync(artifacts), r.stdout);
    assert.deepEqual(fs.readdirSync(root), ["project"]);
    const last = r.stdout.trimEnd().split("\n").at(-1);
    assert.equal(last, `Temporary files left in ${root} (the demo's project, with the run's artifacts). Remove them with: rm -rf ${root}`);
  } finally {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  }
});
