/**
 * @file What an end-to-end test looks at after a Fusion run: the run directories under the
 * project's `.pi/fusion`, a run's manifest, and any process of the run left alive.
 */
import fs from "node:fs";
import path from "node:path";
import { envProcesses } from "./processes.mjs";

/** The session directories under a project's `.pi/fusion` (`root`): the .gitignore there is not one. */
export function sessionDirs(root) {
  return fs.readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
}

/** Every run directory of `env`'s project, across sessions. */
export function runDirs(env) {
  const root = path.join(env.cwd, ".pi", "fusion");
  if (!fs.existsSync(root)) return [];
  return sessionDirs(root).flatMap((session) =>
    fs.readdirSync(path.join(root, session)).map((run) => path.join(root, session, run)));
}

/**
 * Everything under `dir` (recursively) that is neither a regular file nor a directory — a FIFO,
 * a socket, a symlink, a device — as paths relative to `dir`. A run directory holds none: a
 * candidate's `read` or `grep` of a FIFO there would block.
 */
export function specialFiles(dir) {
  const found = [];
  for (const entry of fs.readdirSync(dir, { recursive: true })) {
    const st = fs.lstatSync(path.join(dir, entry), { throwIfNoEntry: false });
    if (st && !st.isFile() && !st.isDirectory()) found.push(String(entry));
  }
  return found;
}

export function manifestOf(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
}

/**
 * Processes of this env's Pi environment still alive (child Pis, their tools), as pids. Call it
 * once the env's own Pi has exited: any process left is a survivor. Identified by environment,
 * never by command line (see processes.mjs).
 */
export function survivingChildren(env) {
  return [...envProcesses(env).keys()];
}
