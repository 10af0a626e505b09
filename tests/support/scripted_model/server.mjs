#!/usr/bin/env node
/**
 * @file The scripted model server: a local HTTP server speaking the three streaming APIs Pi uses
 * (openai-completions, anthropic-messages, openai-responses), answering from a JSON script.
 *
 * JS API (see tests/support/README.md):
 *   const m = await startScriptedModel({script, logFile});
 *   m.port, m.url, m.baseUrl("openai-completions"), m.requests(), m.setScript(s),
 *   await m.waitForRequests(n), await m.close();
 * CLI (for C++/shell tests):
 *   node server.mjs [--script FILE] [--log FILE] [--port-file FILE] [--models-json FILE] [--port N]
 *   prints {"port":N} on stdout once listening; SIGHUP re-reads the script; SIGTERM/SIGINT exit 0.
 *   node server.mjs --print-models-json PORT   prints Pi's models.json for that port and exits.
 * Only ever listens on 127.0.0.1.
 */
import http from "node:http";
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { buildPlan, errorBody } from "./answer.mjs";
import { modelsJson, baseUrlFor, SCRIPTED_PROVIDERS } from "./models_json.mjs";
import { requestView } from "./request_view.mjs";
import { ScriptState } from "./script.mjs";
import { frames, malformedFrames } from "./sse.mjs";
import { latencyLimitMs } from "../sanitizer_env.mjs";

export { modelsJson, baseUrlFor, BILLED_PROVIDER, SCRIPTED_PROVIDERS, SCRIPTED_MODELS, SCRIPTED_API_KEY } from "./models_json.mjs";
export { largeText } from "./answer.mjs";
export { requestView } from "./request_view.mjs";
export { validateScript } from "./script.mjs";

const HOST = "127.0.0.1";
const DEFAULT_CHUNK_BYTES = 4096;
/** Control endpoints for tests that cannot call the JS API (C++, shell). */
const CONTROL_PREFIX = "/__scripted/";

/** Maps a request path to the API it speaks; null for anything else. */
export function apiForPath(pathname) {
  const p = pathname.replace(/\/+$/, "");
  if (p.endsWith("/chat/completions")) return "openai-completions";
  if (p.endsWith("/messages")) return "anthropic-messages";
  if (p.endsWith("/responses")) return "openai-responses";
  return null;
}

// ---------------------------------------------------------------- request log helpers

/** Texts of the tool results the model received in `record` (optionally only tool `name`'s). */
export function toolResultTexts(record, name) {
  return (record?.tool_results ?? []).filter((r) => name === undefined || r.name === name).map((r) => r.text);
}

/**
 * The newest tool result the model received, searching the log backwards: `{id,name,text,is_error,seq}`
 * or null. This is "what did the model see after calling tool `name`".
 */
export function lastToolResult(records, name) {
  for (let i = records.length - 1; i >= 0; i--) {
    const hits = (records[i].tool_results ?? []).filter((r) => name === undefined || r.name === name);
    if (hits.length > 0) return { ...hits[hits.length - 1], seq: records[i].seq };
  }
  return null;
}

// ---------------------------------------------------------------- small async utilities

/** Timers the server owns, so close() can cancel every pending delay instead of waiting it out. */
class Sleeper {
  constructor() {
    this.pending = new Set();
  }
  sleep(ms) {
    return new Promise((resolve) => {
      const entry = { resolve, timer: setTimeout(() => { this.pending.delete(entry); resolve(); }, ms) };
      this.pending.add(entry);
    });
  }
  cancelAll() {
    for (const e of this.pending) { clearTimeout(e.timer); e.resolve(); }
    this.pending.clear();
  }
}

/** Writes honoring backpressure; resolves early if the client went away. */
function write(res, buf) {
  if (res.destroyed) return Promise.resolve();
  if (res.write(buf)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { res.off("drain", done); res.off("close", done); resolve(); };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Writes and waits until the bytes reached the kernel, so a following destroy() cuts after them. */
function writeFlushed(res, buf) {
  return new Promise((resolve) => {
    if (res.destroyed || buf.length === 0) return resolve();
    res.write(buf, () => resolve());
    res.once("close", resolve);
  });
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    req.on("data", (c) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text) {
  try {
    return text.length > 0 ? JSON.parse(text) : null;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- the server

class ScriptedModel {
  constructor({ script, logFile }) {
    this.state = new ScriptState(script);
    this.logFile = logFile ?? null;
    this.records = [];
    this.waiters = [];
    this.sockets = new Set();
    this.sleeper = new Sleeper();
    this.seq = 0;
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err) => this.fail(res, err));
    });
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
  }

  listen(port) {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, HOST, () => resolve(this.server.address().port));
    });
  }

  /** A handler bug must show up as a 500 with its message, never as a hung request. */
  fail(res, err) {
    process.stderr.write(`scripted model: ${err?.stack ?? err}\n`);
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `scripted server bug: ${err?.message}`, type: "server_bug" } }));
    } else res.destroy();
  }

  async handle(req, res) {
    const url = new URL(req.url, `http://${HOST}`);
    const rawBody = await readBody(req);
    if (url.pathname.startsWith(CONTROL_PREFIX)) return this.control(req, res, url, rawBody);
    const api = req.method === "POST" ? apiForPath(url.pathname) : null;
    const body = parseJson(rawBody);
    const record = this.newRecord(req, url, api, body, rawBody);
    if (!api || body === undefined) {
      record.response = { status: api ? 400 : 404, kind: "rejected" };
      this.log(record);
      res.writeHead(record.response.status, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: { message: api ? "body is not JSON" : `no route for ${req.method} ${url.pathname}`, type: "invalid_request_error" } }));
    }
    const ctx = { api, model: record.model, view: record.view, rawBody, seq: record.seq };
    const choice = this.state.choose(ctx);
    Object.assign(record, { rule: choice.rule, rule_name: choice.ruleName, step_index: choice.stepIndex, step: choice.step });
    delete record.view;
    await this.answer(res, ctx, choice.step, record);
  }

  newRecord(req, url, api, body, rawBody) {
    const view = requestView(api, body ?? {});
    return {
      seq: ++this.seq,
      time: new Date().toISOString(),
      method: req.method,
      path: url.pathname,
      url: req.url,
      api,
      model: typeof body?.model === "string" ? body.model : null,
      headers: req.headers,
      body: body === undefined ? null : body,
      ...(body === undefined ? { raw_body: rawBody } : {}),
      last_user_text: view.lastUserText,
      last_role: view.lastRole,
      tool_results: view.toolResults.map(snakeResult),
      all_tool_results: view.allToolResults.map(snakeResult),
      view,
    };
  }

  /** Logs before answering: a test that sees the answer can rely on the record already existing. */
  log(record) {
    delete record.view;
    this.records.push(record);
    if (this.logFile) fs.appendFileSync(this.logFile, `${JSON.stringify(record)}\n`);
    this.waiters = this.waiters.filter((w) => !w.check());
  }

  /**
   * Logs first (the record already says what will be sent), then waits `delay_ms`, then answers:
   * a test waiting for the Nth request sees it even while its answer is still delayed.
   */
  async answer(res, ctx, step, record) {
    const isError = step.status !== undefined && step.status >= 300;
    const cut = cutOf(step);
    const plan = isError || step.malformed ? null : buildPlan(step, ctx);
    const kind = isError ? "error" : step.malformed ? "malformed" : cut ? cut.mode : "answer";
    record.response = { status: isError ? step.status : 200, kind, ...(plan ? { usage: plan.usage } : {}) };
    this.log(record);
    if (step.delay_ms) await this.sleeper.sleep(step.delay_ms);
    if (res.destroyed) return;
    if (isError) return this.answerError(res, ctx, step);
    const meta = { seq: ctx.seq, model: ctx.model ?? "scripted", created: Math.floor(Date.now() / 1000), chunkSize: step.chunk_bytes ?? DEFAULT_CHUNK_BYTES };
    const list = plan ? frames(ctx.api, plan, meta) : malformedFrames(ctx.api, meta);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "x-request-id": `scripted-${ctx.seq}` });
    res.flushHeaders();
    await this.stream(res, list, step, cut);
  }

  answerError(res, ctx, step) {
    const headers = { "content-type": "application/json", "x-request-id": `scripted-${ctx.seq}` };
    if (step.retry_after !== undefined) headers["retry-after"] = String(step.retry_after);
    const body = step.error_body ?? errorBody(ctx.api, step.status);
    res.writeHead(step.status, headers);
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  }

  /** Sends frames; a cut stops after exactly `cut.bytes` body bytes, then drops or stalls. */
  async stream(res, list, step, cut) {
    let sent = 0;
    for (const frame of list) {
      const buf = Buffer.from(frame, "utf8");
      if (cut && sent + buf.length >= cut.bytes) return this.cutStream(res, buf.subarray(0, cut.bytes - sent), cut);
      await write(res, buf);
      sent += buf.length;
      if (res.destroyed) return;
      if (step.chunk_delay_ms) await this.sleeper.sleep(step.chunk_delay_ms);
    }
    if (cut) return this.cutStream(res, Buffer.alloc(0), cut);
    res.end();
  }

  async cutStream(res, partial, cut) {
    await writeFlushed(res, partial);
    // A stall keeps the socket open: close() or the client's own timeout ends it.
    if (cut.mode === "drop") res.socket?.destroy();
  }

  control(req, res, url, rawBody) {
    const reply = (status, obj) => { res.writeHead(status, { "content-type": "application/json" }); res.end(JSON.stringify(obj)); };
    const what = url.pathname.slice(CONTROL_PREFIX.length);
    try {
      if (what === "requests" && req.method === "GET") return reply(200, this.records);
      if (what === "script" && (req.method === "PUT" || req.method === "POST")) {
        this.setScript(JSON.parse(rawBody));
        return reply(200, { ok: true });
      }
      if (what === "models.json" && req.method === "GET") return reply(200, modelsJson(this.server.address().port));
      return reply(404, { error: `unknown control endpoint ${req.method} ${url.pathname}` });
    } catch (err) {
      return reply(400, { error: err.message });
    }
  }

  setScript(script) {
    this.state.replace(script);
  }

  /**
   * Resolves with the log once it holds at least `count` records. The default wait is 10 s, 30 s
   * in a sanitized build, where each Pi child takes seconds longer to reach its first request.
   */
  waitForRequests(count, timeoutMs = latencyLimitMs(10000)) {
    return new Promise((resolve, reject) => {
      const waiter = { check: () => this.records.length >= count && (clearTimeout(waiter.timer), resolve([...this.records]), true) };
      if (waiter.check()) return;
      waiter.timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`scripted model: ${this.records.length} request(s) after ${timeoutMs} ms, wanted ${count}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Stops listening, cuts every open socket (stalled ones included), cancels delays. Idempotent. */
  close() {
    if (!this.closing) {
      this.closing = new Promise((resolve) => this.server.close(() => resolve()));
      this.sleeper.cancelAll();
      for (const s of this.sockets) s.destroy();
    }
    return this.closing;
  }
}

function snakeResult(r) {
  return { id: r.id, name: r.name, text: r.text, is_error: r.isError };
}

function cutOf(step) {
  if (step.drop_after_bytes !== undefined) return { mode: "drop", bytes: step.drop_after_bytes };
  if (step.stall_after_bytes !== undefined) return { mode: "stall", bytes: step.stall_after_bytes };
  if (step.stall) return { mode: "stall", bytes: 0 };
  return null;
}

/**
 * Starts a scripted model server on 127.0.0.1.
 * @param {{script?: object, logFile?: string, port?: number}} options  port 0 (default) = ephemeral.
 * @returns {Promise<object>} handle; the caller owns it and must `await close()`.
 */
export async function startScriptedModel({ script = null, logFile = null, port = 0 } = {}) {
  const model = new ScriptedModel({ script, logFile });
  const actualPort = await model.listen(port);
  const url = `http://${HOST}:${actualPort}`;
  return {
    port: actualPort,
    url,
    /** Base URL for an API name or a scripted provider id (`scripted`, `scripted-ant`, ...). */
    baseUrl: (apiOrProvider) => baseUrlFor(actualPort, SCRIPTED_PROVIDERS[apiOrProvider]?.api ?? apiOrProvider),
    /** `options`: {billed} (models_json.mjs). */
    modelsJson: (options) => modelsJson(actualPort, options),
    requests: () => [...model.records],
    waitForRequests: (count, timeoutMs) => model.waitForRequests(count, timeoutMs),
    setScript: (s) => model.setScript(s),
    close: () => model.close(),
  };
}

// ---------------------------------------------------------------- CLI

function parseArgs(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${flag} needs a value`);
      return argv[++i];
    };
    if (flag === "--script") opts.script = value();
    else if (flag === "--log") opts.log = value();
    else if (flag === "--port-file") opts.portFile = value();
    else if (flag === "--models-json") opts.modelsJsonFile = value();
    else if (flag === "--port") opts.port = Number(value());
    else if (flag === "--print-models-json") opts.printModelsJson = Number(value());
    else throw new Error(`unknown argument ${flag}`);
  }
  return opts;
}

const readScript = (file) => (file ? JSON.parse(fs.readFileSync(file, "utf8")) : null);

async function main(argv) {
  const opts = parseArgs(argv);
  if (opts.printModelsJson !== undefined) {
    process.stdout.write(`${JSON.stringify(modelsJson(opts.printModelsJson), null, 2)}\n`);
    return;
  }
  const model = await startScriptedModel({ script: readScript(opts.script), logFile: opts.log, port: opts.port ?? 0 });
  if (opts.portFile) fs.writeFileSync(opts.portFile, `${model.port}\n`);
  if (opts.modelsJsonFile) fs.writeFileSync(opts.modelsJsonFile, `${JSON.stringify(model.modelsJson(), null, 2)}\n`);
  process.stdout.write(`${JSON.stringify({ port: model.port })}\n`);
  const stop = () => model.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.on("SIGHUP", () => {
    try {
      model.setScript(readScript(opts.script));
    } catch (err) {
      process.stderr.write(`scripted model: script reload failed: ${err.message}\n`);
    }
  });
}

/** True when this file is the process's entry point (not when imported by a test). */
function isMain() {
  try {
    return !!process.argv[1] && fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`scripted model: ${err.message}\n`);
    process.exit(2);
  });
}
