/**
 * @file What an end-to-end test looks at after a Fusion run: the run directories under the
 * project's `.pi/fusion`, a run's manifest, and any child Pi process the run left alive.
 */
import fs from "node:fs";
import path from "node:path";

/** Every run directory of `env`'s project, across sessions. */
export function runDirs(env) {
  const root = path.join(env.cwd, ".pi", "fusion");
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root).flatMap((session) =>
    fs.readdirSync(path.join(root, session)).map((run) => path.join(root, session, run)));
}

export function manifestOf(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
}

/** Child Pi processes still alive whose working directory is this env's project. */
export function survivingChildren(env) {
  const alive = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmd.includes("--mode\u0000text") && fs.readlinkSync(`/proc/${pid}/cwd`) === env.cwd) alive.push(pid);
    } catch {
      // the process ended while we looked
    }
  }
  return alive;
}
