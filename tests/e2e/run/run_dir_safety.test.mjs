/**
 * @file The run directory, safely, in the real pinned Pi. Reading: every artifact read is bounded
 * and of a regular file only (a FIFO planted under the name manifest.json once made bg_result
 * wait for a writer forever; now bg_result answers at once, naming the file and what it is).
 * Creating: a repository that ships `.pi` or `.pi/fusion` as a symlink gets its run refused
 * before anything exists at the link's target; and the store never shows up in `git status`.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fusionRules, lookupRules } from "../../support/fusion_script.mjs";
import { runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
// Far more than bg_result needs; a reader that waits on the FIFO never gets past it.
const LOOKUP_TIMEOUT_MS = 30000;

describe("reading the run directory", () => {
  test("a FIFO named manifest.json: bg_result does not hang and reports the file", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      const dir = runDirs(env)[0];
      const manifest = path.join(dir, "manifest.json");
      fs.rmSync(manifest);
      execFileSync("mkfifo", ["-m", "600", manifest]);
      assert.ok(fs.statSync(manifest).isFIFO());

      env.server.setScript({ rules: lookupRules(path.basename(dir)) });
      const again = await env.print("get it", { timeoutMs: LOOKUP_TIMEOUT_MS });
      assert.equal(again.timedOut, false, `bg_result hung on the FIFO (${again.durationMs} ms)`);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /SEEN: /);
      assert.match(again.stdout, /manifest\.json/);
      assert.match(again.stdout, /not a regular file \(a FIFO\)/);
      assert.doesNotMatch(again.stdout, /Unknown background task ID/);
      assert.ok(fs.statSync(manifest).isFIFO(), "the FIFO is left as it was");
    });
  });

  for (const link of [".pi", ".pi/fusion"]) {
    test(`a symlinked ${link}: the run is refused and nothing is created at the link's target`, async () => {
      await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
        const target = path.join(env.tmp, "elsewhere");
        fs.mkdirSync(target);
        fs.mkdirSync(path.join(env.cwd, path.dirname(link)), { recursive: true });
        fs.symlinkSync(target, path.join(env.cwd, link));
        const r = await env.print("/fusion Why is the sky blue?");
        assert.deepEqual(fs.readdirSync(target), [], "nothing at the link's target");
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /artifact_error/);
        assert.ok(r.stderr.includes(`${path.join(env.cwd, link)} is a symbolic link`), r.stderr);
        assert.equal(env.requests().length, 0, "no child ran");
      });
    });
  }

  test("in a git repository, nothing of the run store shows up in git status", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const git = (...args) => execFileSync("git", args, { cwd: env.cwd, encoding: "utf8" });
      git("init", "-q");
      env.writeFile("README.md", "a project\n");
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      assert.equal(runDirs(env).length, 1);
      const status = git("status", "--porcelain", "--untracked-files=all");
      assert.equal(status, "?? README.md\n", "only the project's own file is untracked");
      assert.equal(git("add", "-A", "--dry-run"), "add 'README.md'\n");
      assert.equal(fs.readFileSync(path.join(env.cwd, ".pi", "fusion", ".gitignore"), "utf8"), "*\n");
    });
  });
});
