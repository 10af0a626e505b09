/**
 * @file One Fusion child, run by `pi-fusion child-run` exactly as the orchestrator runs it (child
 * command builder, process-group supervisor, protocol verifier), with the real pinned Pi as the
 * child and the build's child library, in a test's isolated Pi environment (pi_harness.mjs).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { CHILD_ADDON, PI_FUSION_BIN } from "./pi_harness.mjs";

/**
 * Runs `pi-fusion child-run` in `env` (a PiEnv: it tracks the process group and stops it at
 * cleanup). The prompt goes into a new artifact directory under the env's tmp; `extraEnv` is an
 * object, or a function of that directory (for a file the child must find beside its artifacts).
 * Resolves {code, out (stdout parsed as JSON), stderr, dir}; rejects when stdout is not JSON.
 * `onSpawn(child)` sees the pi-fusion process as soon as it starts; after `timeoutMs` (null: no
 * limit) its process group is killed. `args` are more options for child-run (`--idle-ms N`).
 */
export function childRun(env, {
  prompt = "Please answer.", provider = "scripted", model = "scripted-a", api, capability = "reason",
  role = "candidate", extensions = [], extraEnv = {}, onSpawn, timeoutMs = 120000, args: more = [],
} = {}) {
  const dir = fs.mkdtempSync(path.join(env.tmp, "child-run-"));
  const promptFile = path.join(dir, "prompt.txt");
  fs.writeFileSync(promptFile, prompt);
  const args = ["child-run", "--provider", provider, "--model", model, "--prompt-file", promptFile,
    "--capability", capability, "--role", role, "--artifact-dir", dir, "--cwd", env.cwd,
    "--child-addon", CHILD_ADDON, ...(api ? ["--api", api] : []),
    ...extensions.flatMap((e) => ["--extension", e]), ...more];
  const vars = typeof extraEnv === "function" ? extraEnv(dir) : extraEnv;
  return new Promise((resolve, reject) => {
    const child = spawn(PI_FUSION_BIN, args, { env: env.env(vars), detached: true, stdio: ["ignore", "pipe", "pipe"] });
    env.track(child);
    const out = [];
    const err = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    const timer = timeoutMs === null ? null : setTimeout(() => process.kill(-child.pid, "SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      try {
        resolve({ code, out: JSON.parse(stdout), stderr, dir });
      } catch (e) {
        reject(new Error(`child-run printed no JSON (code ${code}, signal ${signal}): ${e.message}\n${stdout}\n${stderr}`));
      }
    });
    onSpawn?.(child);
  });
}
