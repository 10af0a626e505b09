/**
 * @file A Fusion run in an end-to-end test: the isolated Pi environment with the plugin loaded,
 * and what the test looks at afterwards: the run directories under the project's `.pi/fusion`,
 * a run's manifest and artifacts, `pi-fusion runs | verify | prune` over them, and any process
 * of the run left alive.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { PI_FUSION_BIN, PLUGIN, withPiEnv } from "./pi_harness.mjs";
import { envProcesses } from "./processes.mjs";

/** How long one Pi may take for a whole Fusion run (five children and the agent's turns). */
export const RUN_TIMEOUT_MS = 120000;

/**
 * withPiEnv() for a Fusion test: every Pi the env starts loads the plugin (a run's `extensions`
 * replaces that list) and may take RUN_TIMEOUT_MS; `options` overrides either.
 */
export function withFusionEnv(options, body) {
  return withPiEnv({ extensions: [PLUGIN], timeoutMs: RUN_TIMEOUT_MS, ...options }, body);
}

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

/** The text of artifact `name` of run directory `dir`. */
export function artifactText(dir, name) {
  return fs.readFileSync(path.join(dir, name), "utf8");
}

/** Artifact `name` of run directory `dir`, parsed as JSON. */
export function artifactJson(dir, name) {
  return JSON.parse(artifactText(dir, name));
}

/** The manifest of run directory `dir`. */
export function manifestOf(dir) {
  return artifactJson(dir, "manifest.json");
}

/**
 * An attempt's recorded exit without its time: {code, signal, stop_reason, after_answer}. Throws
 * unless the exit says when it happened (`exited_at`, an ISO 8601 UTC time).
 */
export function exitOf(attempt) {
  const { exited_at: at, ...exit } = attempt.exit;
  if (typeof at !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(at) || Number.isNaN(Date.parse(at))) {
    throw new Error(`attempt ${attempt.stage} ${attempt.slot}: exit.exited_at is ${JSON.stringify(at)}`);
  }
  return exit;
}

/** `sha256:<hex>` of `bytes`, as a manifest and a seal record a digest. */
export function sha256(bytes) {
  return `sha256:${crypto.createHash("sha256").update(bytes).digest("hex")}`;
}

/** `pi-fusion <args>` (runs, verify, prune) in `cwd`; {code, stdout, stderr}. */
export function piFusion(cwd, ...args) {
  const r = spawnSync(PI_FUSION_BIN, args, { cwd, encoding: "utf8", timeout: 30000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Processes of this env's Pi environment still alive (child Pis, their tools), as pids. Call it
 * once the env's own Pi has exited: any process left is a survivor. Identified by environment,
 * never by command line (see processes.mjs).
 */
export function survivingChildren(env) {
  return [...envProcesses(env).keys()];
}
