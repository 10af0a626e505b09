/**
 * @file A Fusion child prepares its first provider request while it waits for its input: it starts
 * loading its provider's module (extensions/lib/provider_preload.ts, PI_FUSION_PROVIDER_API), and a
 * warm evaluator or merger warms Pi's HTTP client up on a server of its own on 127.0.0.1
 * (extensions/lib/http_prewarm.ts). Proved with the real pinned Pi as the child: Node's own logs
 * (NODE_DEBUG=esm, NODE_DEBUG=undici) name the module and the loopback connection before any input
 * is written, and, where the child must not do it, only after or never. Plus the rules themselves.
 * And no child leaves an optimizing WebAssembly compile behind its answer
 * (extensions/lib/wasm_tiering.ts): V8's own compile trace shows none, where a bare Pi has one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {
  BUILD_DIR, CHILD_ADDON, CHILD_EXTENSION, PI_CLI, PINNED_NODE, withPiEnv,
} from "../../support/pi_harness.mjs";
import { providerModulePath } from "../../../extensions/lib/provider_preload.ts";
import { shouldPrewarm } from "../../../extensions/lib/http_prewarm.ts";

const API = "openai-completions"; // the scripted model's api (tests/support/scripted_model)
const MODULE_LOADED = new RegExp(`Translating StandardModule file://\\S*/chunks/${API}-[A-Z0-9]{8}\\.js`);

test("the pinned Pi's bundled provider modules are found, and nothing else is", () => {
  for (const api of ["openai-completions", "anthropic-messages"]) {
    const file = providerModulePath(PI_CLI, api);
    assert.ok(file && fs.existsSync(file), `${api}: ${file}`);
    assert.match(path.basename(file), new RegExp(`^${api}-[A-Z0-9]{8}\\.js$`));
  }
  for (const api of [undefined, "", "../chunks/x", "openai-completions/..", "no-such-api", "OPENAI"]) {
    assert.equal(providerModulePath(PI_CLI, api), undefined, String(api));
  }
  assert.equal(providerModulePath(undefined, API), undefined);
  // Another layout (Pi before 0.87: dist/cli.js, no chunks) and an ambiguous one: left to Pi.
  const dir = fs.mkdtempSync(path.join(path.dirname(BUILD_DIR), "preload-layout-"));
  try {
    fs.writeFileSync(path.join(dir, "cli.js"), "");
    assert.equal(providerModulePath(path.join(dir, "cli.js"), API), undefined);
    fs.mkdirSync(path.join(dir, "chunks"));
    fs.writeFileSync(path.join(dir, "chunks", `${API}-AAAAAAAA.js`), "");
    assert.equal(providerModulePath(path.join(dir, "cli.js"), API), path.join(dir, "chunks", `${API}-AAAAAAAA.js`));
    fs.writeFileSync(path.join(dir, "chunks", `${API}-BBBBBBBB.js`), "");
    assert.equal(providerModulePath(path.join(dir, "cli.js"), API), undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * Starts a Fusion child Pi whose stdin stays open (as a warm child's does) and collects its
 * stderr. Resolves {child, stderr(), waitFor(re, ms), quiet(ms), closed}.
 */
function startChild(env, extraEnv, nodeDebug = "esm") {
  const args = ["--mode", "text", "--no-session", "--no-tools", "--no-extensions", "--no-skills",
    "--no-prompt-templates", "--no-themes", "--no-context-files", "--extension", CHILD_EXTENSION,
    "--provider", "scripted", "--model", "scripted-a"];
  const child = spawn(PINNED_NODE, [PI_CLI, ...args], {
    cwd: env.cwd,
    env: env.env({ PI_FUSION_CHILD_ROLE: "evaluator", PI_FUSION_CHILD_ADDON: CHILD_ADDON, NODE_DEBUG: nodeDebug, ...extraEnv }),
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
  });
  env.track(child);
  let err = "";
  let lastData = Date.now();
  child.stderr.on("data", (c) => { err += c.toString("utf8"); lastData = Date.now(); });
  child.stdout.resume();
  const closed = new Promise((resolve) => child.on("close", (code) => resolve(code)));
  const poll = (done, ms, what) => new Promise((resolve, reject) => {
    const started = Date.now();
    const timer = setInterval(() => {
      if (done()) { clearInterval(timer); resolve(); }
      else if (Date.now() - started > ms) { clearInterval(timer); reject(new Error(`${what} within ${ms} ms\nstderr tail:\n${err.slice(-2000)}`)); }
    }, 50);
  });
  return {
    child,
    closed,
    stderr: () => err,
    waitFor: (re, ms) => poll(() => re.test(err), ms, `no ${re}`),
    // The child has gone quiet: nothing on stderr for `ms` (it waits for its input).
    quiet: (ms) => poll(() => err.length > 0 && Date.now() - lastData >= ms, 60000, "never quiet"),
  };
}

test("a waiting child loads its provider module before its input, and only with PI_FUSION_PROVIDER_API", async () => {
  await withPiEnv({ script: { default: { text: "fine" } } }, async (env) => {
    // With the variable: the module is loaded while stdin is still open and no request was made.
    const warm = startChild(env, { PI_FUSION_PROVIDER_API: API });
    await warm.waitFor(MODULE_LOADED, 60000);
    assert.equal(env.requests().length, 0);
    warm.child.stdin.end("Please answer.");
    assert.equal(await warm.closed, 0, warm.stderr().slice(-2000));
    assert.equal(env.requests().length, 1);

    // Without it: idle and waiting, the module is not loaded; Pi loads it once the input comes,
    // which shows the check above can see the difference.
    const cold = startChild(env, {});
    await cold.quiet(1500);
    assert.doesNotMatch(cold.stderr(), MODULE_LOADED);
    cold.child.stdin.end("Please answer.");
    assert.equal(await cold.closed, 0, cold.stderr().slice(-2000));
    assert.match(cold.stderr(), MODULE_LOADED);
    assert.equal(env.requests().length, 2);
  });
});

test("only a warm role warms the HTTP client up, and never through a proxy", () => {
  assert.equal(shouldPrewarm("evaluator", {}), true);
  assert.equal(shouldPrewarm("merger", {}), true);
  for (const role of ["candidate", undefined, "", "Evaluator"]) assert.equal(shouldPrewarm(role, {}), false, String(role));
  for (const name of ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]) {
    assert.equal(shouldPrewarm("merger", { [name]: "http://proxy.invalid:3128" }), false, name);
  }
  assert.equal(shouldPrewarm("merger", { HTTP_PROXY: "" }), true);
});

/** undici's debug log line for a connection to 127.0.0.1 on a port other than `modelPort`. */
function loopbackConnection(log, modelPort) {
  const ports = [...log.matchAll(/connecting to 127\.0\.0\.1:(\d+)/g)].map((m) => Number(m[1]));
  return ports.find((port) => port !== modelPort);
}

test("a waiting evaluator makes its warm-up request to itself before its input; a candidate does not", async () => {
  await withPiEnv({ script: { default: { text: "fine" } } }, async (env) => {
    const modelPort = env.server.port;
    // A warm role: the loopback connection is in the log while stdin is still open, no model
    // request was made, and the request then goes to the model as usual.
    const warm = startChild(env, { PI_FUSION_PROVIDER_API: API }, "undici");
    await warm.waitFor(/connecting to 127\.0\.0\.1:\d+/, 60000);
    await warm.quiet(500);
    assert.ok(loopbackConnection(warm.stderr(), modelPort), warm.stderr().slice(-2000));
    assert.doesNotMatch(warm.stderr(), new RegExp(`connecting to 127\\.0\\.0\\.1:${modelPort}\\b`));
    assert.equal(env.requests().length, 0);
    warm.child.stdin.end("Please answer.");
    assert.equal(await warm.closed, 0, warm.stderr().slice(-2000));
    assert.equal(env.requests().length, 1);
    assert.match(warm.stderr(), new RegExp(`connecting to 127\\.0\\.0\\.1:${modelPort}\\b`));

    // A candidate gets its input at once: no warm-up, its only connection is the model's, which
    // shows the check above can see the difference.
    // (esm too: its module log shows the child has started and gone quiet.)
    const candidate = startChild(env, {
      PI_FUSION_CHILD_ROLE: "candidate",
      PI_FUSION_PROVIDER_API: API,
      PI_FUSION_OVERSIZE_PATH: path.join(env.tmp, "candidate.oversized.md"),
    }, "esm,undici");
    await candidate.quiet(1500);
    assert.doesNotMatch(candidate.stderr(), /connecting to/);
    candidate.child.stdin.end("Please answer.");
    assert.equal(await candidate.closed, 0, candidate.stderr().slice(-2000));
    assert.equal(loopbackConnection(candidate.stderr(), modelPort), undefined);
    assert.match(candidate.stderr(), /connecting to 127\.0\.0\.1/);
    assert.equal(env.requests().length, 2);
  });
});

/** Runs one Pi child with V8's WebAssembly compile trace on; resolves {code, out, err}. */
function tracedChild(env, args, extraEnv) {
  return new Promise((resolve) => {
    const child = spawn(PINNED_NODE, ["--trace-wasm-compilation-times", PI_CLI, ...args], {
      cwd: env.cwd, env: env.env(extraEnv), detached: true, stdio: ["pipe", "pipe", "pipe"],
    });
    env.track(child);
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => { out += c.toString("utf8"); });
    child.stderr.on("data", (c) => { err += c.toString("utf8"); });
    child.stdin.end("Please answer at length.");
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

test("a child compiles no WebAssembly with the optimizing compiler, even after a long streamed answer", async () => {
  // 40 KB (under the output cap) streamed in small chunks: enough for V8 to tier llhttp's parser
  // up in a bare Pi.
  const script = { default: { text: "word ".repeat(8000), chunk_bytes: 100 } };
  await withPiEnv({ script }, async (env) => {
    const bareArgs = ["--mode", "text", "--no-session", "--no-tools", "--no-extensions", "--no-skills",
      "--no-prompt-templates", "--no-themes", "--no-context-files", "--provider", "scripted", "--model", "scripted-a"];
    const optimized = (r) => r.out.split("\n").filter((line) => /^Compiled function .* using TurboFan/.test(line));

    // A bare Pi does tier up: the check can see it.
    const bare = await tracedChild(env, bareArgs, {});
    assert.equal(bare.code, 0, bare.err.slice(-2000));
    assert.ok(optimized(bare).length >= 1, bare.out.split("\n").filter((l) => l.startsWith("Compiled")).join("\n"));

    for (const role of ["candidate", "evaluator"]) {
      const ours = await tracedChild(env, [...bareArgs, "--extension", CHILD_EXTENSION], {
        PI_FUSION_CHILD_ROLE: role,
        PI_FUSION_CHILD_ADDON: CHILD_ADDON,
        PI_FUSION_PROVIDER_API: API,
        PI_FUSION_OVERSIZE_PATH: path.join(env.tmp, `${role}.oversized.md`),
      });
      assert.equal(ours.code, 0, ours.err.slice(-2000));
      assert.match(ours.out, /^Compiled function .* using Liftoff/m, role);
      assert.deepEqual(optimized(ours), [], role);
      assert.ok(ours.out.includes("word ".repeat(100)), `${role}: the answer was printed`);
    }
  });
});
