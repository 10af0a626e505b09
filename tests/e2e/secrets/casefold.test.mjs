/**
 * @file The walls on a case-insensitive file system (WSL2's /mnt/c, CIFS `nocase`, vfat/exFAT,
 * ext4 casefold), attacked through the real Pi: the project, which is also the home directory,
 * lives on a case-folding FUSE file system (fixtures/casefold_fs.py), where `.ENV` opens `.env`
 * and the kernel reports the path as the lookup spelled it. Every look-alike spelling of a
 * protected place is refused, and a grep in `.PI` finds nothing of the run store, while the
 * control (`SRC/App.txt` opening `src/app.txt`) shows the file system really folds.
 *
 * Needs /dev/fuse and Debian's python3-fuse (scripts/setup --test-deps), and root to mount;
 * skipped with the reason where they are missing. The mount lives in the test's own temp
 * directory and is unmounted on every way out.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { MERGED_TEXT } from "../../support/fusion_script.mjs";
import { runDirs } from "../../support/fusion_runs.mjs";
import {
  agentFlowRules, auditLog, candidateBatches, candidateRules, withFixtureEnv,
} from "../investigate/investigate_support.mjs";

const CASEFOLD_FS = path.join(path.dirname(new URL(import.meta.url).pathname), "fixtures", "casefold_fs.py");
const PYTHON = "/usr/bin/python3";

function missing() {
  if (!fs.existsSync("/dev/fuse")) return "no /dev/fuse on this machine";
  if (process.getuid() !== 0) return "mounting the test file system needs root";
  if (spawnSync(PYTHON, ["-c", "import fuse"]).status !== 0) return "Debian's python3-fuse is not installed";
  return false;
}

const KELVIN = "\u212A";
const LONG_S = "\u017F";

/** Mounts the case-folding file system over `dir`, its content kept in `dir`-backing. */
async function mountCaseFolding(dir) {
  const backing = `${dir}-backing`;
  fs.renameSync(dir, backing);
  fs.mkdirSync(dir);
  const daemon = spawn(PYTHON, [CASEFOLD_FS, dir, "-f", "-o", `root=${backing},use_ino`], { stdio: ["ignore", "ignore", "pipe"] });
  let errors = "";
  daemon.stderr.on("data", (d) => { errors += d; });
  const unmount = () => {
    for (const args of [[dir], ["-l", dir]]) {
      if (spawnSync("umount", args).status === 0) break;
    }
    daemon.kill("SIGKILL");
  };
  process.once("exit", unmount);
  const parentDev = fs.statSync(path.dirname(dir)).dev;
  for (let i = 0; i < 100 && fs.statSync(dir).dev === parentDev; i++) {
    if (daemon.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (fs.statSync(dir).dev === parentDev) {
    unmount();
    throw new Error(`the case-folding file system did not mount: ${errors}`);
  }
  return () => {
    unmount();
    process.removeListener("exit", unmount);
  };
}

describe("walls on a case-insensitive file system", () => {
  test("look-alike spellings of protected places are refused: .ENV, .SSH, .AWS, Kelvin-sign .Kube, .ſſh, .Git-Credentials, .DOCKER, grep in .PI", { skip: missing() }, async () => {
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      const secrets = {
        ".env": "API_KEY=ENV-SECRET\n",
        ".ssh/id_rsa": "SSH-SECRET\n",
        ".aws/credentials": "aws_secret_access_key=AWS-SECRET\n",
        ".kube/config": "token: KUBE-SECRET\n",
        ".git-credentials": "https://u:GIT-SECRET@example.com\n",
        ".docker/config.json": '{"auths":{"r":{"auth":"DOCKER-SECRET"}}}\n',
        ".pi/fusion/s-old/reason-old/candidate-1.attempt-1.response.md": "SIBLING-ANSWER-SECRET\n",
      };
      for (const [rel, content] of Object.entries(secrets)) env.writeFile(rel, content);
      const unmount = await mountCaseFolding(env.cwd);
      try {
        // The file system folds: a look-alike name opens the protected file.
        assert.equal(fs.readFileSync(path.join(env.cwd, ".ENV"), "utf8"), secrets[".env"]);
        assert.equal(fs.readFileSync(path.join(env.cwd, `.${KELVIN}ube/config`), "utf8"), secrets[".kube/config"]);
        const calls = [
          { name: "read", arguments: { path: ".ENV" } },
          { name: "read", arguments: { path: ".SSH/id_rsa" } },
          { name: "read", arguments: { path: ".AWS/credentials" } },
          { name: "read", arguments: { path: `.${KELVIN}ube/config` } },
          { name: "read", arguments: { path: `.${LONG_S}${LONG_S}h/id_rsa` } },
          { name: "read", arguments: { path: ".Git-Credentials" } },
          { name: "read", arguments: { path: ".DOCKER/config.json" } },
          { name: "ls", arguments: { path: ".SSH" } },
          { name: "grep", arguments: { pattern: "SECRET", path: ".PI/FUSION" } },
          { name: "grep", arguments: { pattern: "SECRET", path: ".PI" } },
          { name: "grep", arguments: { pattern: "SECRET" } },
          { name: "read", arguments: { path: "SRC/App.txt" } },
        ];
        env.server.setScript({ rules: agentFlowRules(candidateRules([{ tool_calls: calls }])) });
        const r = await env.print("please investigate", { env: { HOME: env.cwd } });
        assert.equal(r.code, 0, r.stderr);
        assert.ok(r.stdout.includes(MERGED_TEXT), r.stdout);
        const batches = candidateBatches(env);
        assert.equal(batches.length, 3);
        for (const batch of batches) {
          assert.equal(batch.length, calls.length);
          for (const result of batch) assert.ok(!/SECRET/.test(result.text), `${result.name}: ${result.text}`);
          for (let i = 0; i < 9; i++) assert.match(batch[i].text, /^Refused: /, `${i}: ${batch[i].text}`);
          assert.match(batch[8].text, /Fusion's run store/);
          assert.match(batch[9].text, /No matches found/);
          assert.match(batch[10].text, /No matches found/);
          // The control: the file system folds names for the candidates too.
          assert.match(batch[11].text, /FORTY-TWO/);
        }
        const dir = runDirs(env).find((d) => path.basename(d).startsWith("investigate-"));
        for (const slot of [1, 2, 3]) {
          const codes = auditLog(dir, slot).records.filter((x) => x.status === "error").map((x) => x.error_code);
          assert.deepEqual(codes, [...Array(8).fill("path_protected"), "path_in_run_store"]);
        }
      } finally {
        unmount();
      }
    });
  });
});
