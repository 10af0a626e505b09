/**
 * @file Walls the kernel keeps, attacked through the real Pi: candidates' grep races a local
 * writer that exchanges a decoy directory with a symlink to a secret directory outside the
 * project (and another with a symlink into Fusion's run store) every few hundred microseconds.
 * With the walk jail (src/process/walk_jail.h) nothing from behind the walls comes back; where
 * the kernel refuses the jail (a seccomp filter around Pi, as Docker's default profile refuses
 * unshare) the same race leaks, which shows the test sees a leak when there is one. Reads end:
 * a 3.5 GiB sparse file and a FUSE file that never reaches its end are refused promptly, with
 * their codes in the journal.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { MERGED_TEXT } from "../../support/fusion_script.mjs";
import { runDirs } from "../../support/fusion_runs.mjs";
import { PINNED_NODE } from "../../support/pi_harness.mjs";
import {
  agentFlowRules, auditLog, candidateBatches, candidateRules, withFixtureEnv,
} from "../investigate/investigate_support.mjs";

// The fixtures the walls suite shares (the seccomp wrapper, the endless file system).
const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "walls", "fixtures");
const PYTHON = "/usr/bin/python3";  // Debian's, which has python3-fuse
const OUTSIDE_SECRET = "OUTSIDE-SSH-SECRET-4417";
const STORE_SECRET = "STORE-SECRET-8812";
const GREPS = 100;  // per candidate: 300 greps in all

function runDirOf(env) {
  const dirs = runDirs(env).filter((d) => path.basename(d).startsWith("investigate-"));
  assert.equal(dirs.length, 1, `one investigate run: ${dirs}`);
  return dirs[0];
}

async function investigate(env, calls, extra = {}) {
  env.server.setScript({ rules: agentFlowRules(candidateRules([{ tool_calls: calls }])) });
  const r = await env.print("please investigate", extra);
  assert.equal(r.code, 0, `${r.signal} ${r.timedOut} ${r.stderr}`);
  assert.ok(r.stdout.includes(MERGED_TEXT), r.stdout);
  const batches = candidateBatches(env);
  assert.equal(batches.length, 3);
  return { dir: runDirOf(env), batches };
}

/**
 * The race's places: `a` (a decoy directory) exchanged with `.a-swap` (a symlink to a directory
 * outside the project holding `id_rsa` and `known_hosts`), and `b` with `.b-swap` (a symlink into
 * `.pi/fusion`, where an earlier run's conversation lies).
 */
function plantRace(env) {
  const outside = path.join(path.dirname(env.cwd), "outside-ssh");
  fs.mkdirSync(outside, { recursive: true });
  fs.writeFileSync(path.join(outside, "id_rsa"), `${OUTSIDE_SECRET}\n`);
  fs.writeFileSync(path.join(outside, "known_hosts"), `${OUTSIDE_SECRET} host\n`);
  env.writeFile("a/id_rsa", "decoy key\n");
  fs.symlinkSync(outside, path.join(env.cwd, ".a-swap"));
  env.writeFile(".pi/fusion/reason-old/conversation.txt", `${STORE_SECRET}\n`);
  env.writeFile("b/conversation.txt", "decoy conversation\n");
  fs.symlinkSync(".pi/fusion/reason-old", path.join(env.cwd, ".b-swap"));
  const places = ["a", ".a-swap", "b", ".b-swap"].map((p) => path.join(env.cwd, p));
  // Both secrets are there to be found through the symlinks.
  assert.ok(fs.readFileSync(path.join(env.cwd, ".a-swap", "id_rsa"), "utf8").includes(OUTSIDE_SECRET));
  assert.ok(fs.readFileSync(path.join(env.cwd, ".b-swap", "conversation.txt"), "utf8").includes(STORE_SECRET));
  return places;
}

async function startExchanger(places) {
  const exchanger = spawn(PYTHON, [path.join(FIXTURES, "exchange.py"), ...places], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    exchanger.stdout.once("data", resolve);
    exchanger.once("exit", () => reject(new Error("the exchanger ended early")));
  });
  return exchanger;
}

/** Greps that reach a secret, and the walk protection each journal record names. */
async function raceGreps(env, extra) {
  const exchanger = await startExchanger(plantRace(env));
  try {
    const calls = Array.from({ length: GREPS }, () => ({ name: "grep", arguments: { pattern: "SECRET-", path: "." } }));
    const { dir, batches } = await investigate(env, calls, extra);
    assert.equal(exchanger.exitCode, null, "the exchanger ran through the whole run");
    let leaks = 0;
    for (const batch of batches) {
      assert.equal(batch.length, GREPS);
      for (const result of batch) {
        if (result.text.includes(OUTSIDE_SECRET) || result.text.includes(STORE_SECRET) || result.text.includes("known_hosts")) leaks += 1;
      }
    }
    const protections = new Set([1, 2, 3].flatMap((slot) => auditLog(dir, slot).records.map((r) => r.walk_protection)));
    return { dir, leaks, protections };
  } finally {
    exchanger.kill("SIGKILL");
  }
}

/** A wrapper that starts the pinned Node where the kernel refuses namespaces and Landlock. */
function noKernelWallsNode(env) {
  const wrapper = path.join(path.dirname(env.cwd), "node-without-kernel-walls");
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec ${PYTHON} ${path.join(FIXTURES, "no_kernel_walls.py")} ${PINNED_NODE} "$@"\n`, { mode: 0o755 });
  return wrapper;
}

describe("walls the kernel keeps", () => {
  test("300 greps racing a directory swapped for a symlink out (and into the run store) return nothing from behind the walls", async () => {
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      const { dir, leaks, protections } = await raceGreps(env);
      assert.equal(leaks, 0);
      // CI runs as root; elsewhere a user namespace: both give the whole jail on this kernel.
      assert.deepEqual([...protections], ["namespace+landlock"]);
      // The run's manifest says which protection held for its walks.
      assert.equal(JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")).walk_protection, "namespace+landlock");
    });
  });

  test("where the kernel refuses namespaces and Landlock, the same race leaks, each walk records it and the child says so once", async () => {
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      env.options.node = noKernelWallsNode(env);
      const { dir, leaks, protections } = await raceGreps(env);
      assert.ok(leaks > 0, "the race reaches the secrets without the jail");
      assert.deepEqual([...protections], ["none"]);
      assert.equal(JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")).walk_protection, "none");
      for (const slot of [1, 2, 3]) {
        const stderr = fs.readFileSync(path.join(dir, `candidate-${slot}.attempt-1.stderr.txt`), "utf8");
        assert.equal(stderr.split("without a mount namespace or Landlock").length - 1, 1, stderr);
      }
    });
  });

  const fuse = fs.existsSync("/dev/fuse") && spawnSync(PYTHON, ["-c", "import fuse"]).status === 0 && process.getuid() === 0;
  test("reads end: a 3.5 GiB sparse file is refused at once and a file that never ends is cut at the call's time", { skip: fuse ? false : "needs /dev/fuse, python3-fuse and root to mount the never-ending file" }, async () => {
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      const big = path.join(env.cwd, "big.bin");
      fs.writeFileSync(big, "");
      fs.truncateSync(big, 3.5 * 1024 ** 3);
      const mount = path.join(env.cwd, "endless");
      fs.mkdirSync(mount);
      const server = spawn(PYTHON, [path.join(FIXTURES, "endless_fs.py"), mount], { stdio: "ignore" });
      try {
        for (let i = 0; i < 100 && !fs.existsSync(path.join(mount, "stream.txt")); i++) await new Promise((r) => setTimeout(r, 50));
        assert.equal(fs.statSync(path.join(mount, "stream.txt")).size, 0);
        const calls = [
          { name: "read", arguments: { path: "big.bin", offset: 1.5 } },
          { name: "read", arguments: { path: "big.bin" } },
          { name: "read", arguments: { path: "endless/stream.txt" } },
          { name: "read", arguments: { path: "src/app.txt" } },
        ];
        const started = Date.now();
        const { dir, batches } = await investigate(env, calls);
        assert.ok(Date.now() - started < 150000, "the run did not wait on a file without end");
        for (const batch of batches) {
          assert.match(batch[0].text, /"big\.bin" is 3758096384 bytes; a read returns at most 2 GiB/);
          assert.match(batch[1].text, /"big\.bin" is 3758096384 bytes/);
          assert.match(batch[2].text, /stream\.txt" did not end within 20 s/);
          assert.match(batch[3].text, /FORTY-TWO/);
        }
        for (const slot of [1, 2, 3]) {
          const codes = auditLog(dir, slot).records.filter((r) => r.status === "error").map((r) => r.error_code).sort();
          assert.deepEqual(codes, ["file_too_large", "file_too_large", "read_timed_out"]);
        }
      } finally {
        spawnSync("fusermount", ["-u", mount]);
        server.kill("SIGKILL");
      }
    });
  });
});
