/**
 * @file Self-test of the scripted model server and the Pi harness against the REAL pinned Pi.
 *
 * For each of the three APIs: plain answer, thinking + text, a `read` tool round trip, 429 and
 * 500 followed by success (Pi's agent-level retry), a 200 KB answer, malformed SSE, a dropped
 * stream, and usage numbers as Pi reports them (json mode). A provider's own billed cost as Pi
 * takes it (and ignores it from a provider it does not know to bill). Plus an RPC session, the stall
 * behaviour over raw HTTP, the CLI, and the request normalization. Run:
 *   node --test tests/support/scripted_model/selftest.test.mjs   (with the pinned Node 22)
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createPiEnv, largeText, lastToolResult } from "../pi_harness.mjs";
import { BILLED_PROVIDER, startScriptedModel, requestView, validateScript } from "./server.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** Two cores are common on CI; three Pi processes at once keeps the suite well under a minute. */
const CONCURRENCY = 3;
/** A hung Pi must fail its test, not the whole suite's ctest timeout. */
const RUN_TIMEOUT_MS = 30000;

const MODELS = {
  "openai-completions": "scripted/scripted-a",
  "anthropic-messages": "scripted-ant/scripted-a",
  "openai-responses": "scripted-resp/scripted-a",
};

/** Creates an env for `model`, runs `body(env)`, always cleans up. */
async function withEnv(model, script, body) {
  const env = await createPiEnv({ model, script, timeoutMs: RUN_TIMEOUT_MS });
  try {
    return await body(env);
  } finally {
    await env.cleanup();
  }
}

/** Fails with Pi's stderr and the request log, which is what one needs to debug a red run. */
function explain(env, result) {
  const log = env.requests().map((r) => `#${r.seq} ${r.api} rule=${r.rule_name} step=${r.step_index} -> ${r.response?.kind}`);
  return `code=${result.code} timedOut=${result.timedOut}\nstdout:\n${result.stdout.slice(0, 2000)}\nstderr:\n${result.stderr.slice(0, 2000)}\nrequests:\n${log.join("\n")}`;
}

for (const [api, model] of Object.entries(MODELS)) {
  describe(`scripted model via real Pi: ${api}`, { concurrency: CONCURRENCY }, () => {
    test("plain answer is printed by pi -p", () =>
      withEnv(model, { rules: [{ match: { text: "greet" }, responses: [{ text: "Hello from the script." }] }] }, async (env) => {
        const r = await env.print("please greet me");
        assert.equal(r.code, 0, explain(env, r));
        assert.equal(r.stdout, "Hello from the script.\n");
        const [req] = env.requests();
        assert.equal(req.api, api);
        assert.equal(req.model, "scripted-a");
        assert.equal(req.last_user_text, "please greet me");
        assert.equal(req.rule, 0);
      }));

    test("thinking + text: only the text is printed", () =>
      withEnv(model, { default: { thinking: "SECRET-REASONING", text: "visible answer" } }, async (env) => {
        const r = await env.print("think about it");
        assert.equal(r.code, 0, explain(env, r));
        assert.equal(r.stdout, "visible answer\n");
        assert.ok(!r.stdout.includes("SECRET-REASONING"));
      }));

    test("tool round trip through the built-in read tool", () => {
      const script = {
        rules: [
          { match: { last_role: "user" }, responses: [{ tool_calls: [{ name: "read", arguments: { path: "notes.txt" } }] }] },
          { match: { last_role: "tool" }, responses: [{ text: "The file says: {{tool_results}}" }] },
        ],
      };
      return withEnv(model, script, async (env) => {
        env.writeFile("notes.txt", "zebra-7731 lives here\n");
        const r = await env.print("read the notes");
        assert.equal(r.code, 0, explain(env, r));
        assert.match(r.stdout, /^The file says: zebra-7731 lives here/);
        const reqs = env.requests();
        assert.equal(reqs.length, 2, explain(env, r));
        assert.equal(reqs[0].last_role, "user");
        assert.equal(reqs[1].last_role, "tool");
        assert.equal(reqs[1].last_user_text, "read the notes");
        assert.equal(reqs[1].tool_results.length, 1);
        assert.equal(reqs[1].tool_results[0].name, "read");
        assert.equal(reqs[1].tool_results[0].is_error, false);
        assert.match(lastToolResult(reqs, "read").text, /zebra-7731 lives here/);
      });
    });

    for (const status of [429, 500]) {
      test(`HTTP ${status} then success: Pi retries once`, () =>
        withEnv(model, { rules: [{ responses: [{ status, retry_after: 0 }, { text: `recovered after ${status}` }] }] }, async (env) => {
          const r = await env.print("try hard");
          assert.equal(r.code, 0, explain(env, r));
          assert.equal(r.stdout, `recovered after ${status}\n`);
          assert.deepEqual(env.requests().map((q) => q.response.status), [status, 200]);
        }));
    }

    test("a 200 KB answer arrives intact", () =>
      withEnv(model, { default: { large_text_bytes: 200000 } }, async (env) => {
        const r = await env.print("say a lot");
        assert.equal(r.code, 0, explain(env, r));
        assert.equal(r.stdout.length, 200001);
        assert.ok(r.stdout === `${largeText(200000)}\n`, "large answer differs from the generated text");
      }));

    test("malformed SSE fails loudly and does not hang", () =>
      withEnv(model, { default: { malformed: true } }, async (env) => {
        const r = await env.print("break it");
        assert.equal(r.timedOut, false, explain(env, r));
        assert.notEqual(r.code, 0, explain(env, r));
        assert.match(r.stderr, /pars|JSON/i, explain(env, r));
        assert.equal(r.stdout, "");
      }));

    test("a stream dropped mid-body fails loudly after Pi's retries", () =>
      withEnv(model, { default: { text: "x".repeat(2000), drop_after_bytes: 300 } }, async (env) => {
        const r = await env.print("drop me");
        assert.equal(r.timedOut, false, explain(env, r));
        assert.notEqual(r.code, 0, explain(env, r));
        assert.match(r.stderr, /terminated|closed|socket/i, explain(env, r));
        // One attempt plus the harness's retry.maxRetries (2): the drop counts as transient.
        assert.deepEqual(env.requests().map((q) => q.response.kind), ["drop", "drop", "drop"]);
      }));

    test("json mode: events parse and usage numbers reach Pi", () => {
      const usage = { input: 100, output: 20, cache_read: 30, cache_write: 7 };
      return withEnv(model, { default: { text: "counted", usage } }, async (env) => {
        const r = await env.json("count tokens");
        assert.equal(r.code, 0, explain(env, r));
        assert.equal(r.events[0].type, "session");
        assert.equal(r.events.at(-1).type, "agent_settled");
        assert.equal(r.text, "counted");
        const end = r.events.findLast((e) => e.type === "message_end" && e.message.role === "assistant");
        const u = end.message.usage;
        assert.deepEqual([u.input, u.output, u.cacheRead, u.cacheWrite], [100, 20, 30, 7]);
        assert.ok(u.cost.total > 0, "models.json cost applies");
      });
    });
  });
}

describe("a provider's own billed cost (provider_cost)", { concurrency: CONCURRENCY }, () => {
  const usage = { input: 1000, output: 100, cache_read: 0, cache_write: 0 };
  // At the scripted prices: 1000 × $0.5/M + 100 × $1.5/M.
  const catalog = 0.00065;
  for (const [model, total, fromProvider] of [
    [`${BILLED_PROVIDER}/scripted-a`, 0.0421, true],
    ["scripted/scripted-a", catalog, false],  // Pi reads the figure only from a billing provider
  ]) {
    test(`${model}: Pi's cost total is ${fromProvider ? "the provider's" : "the catalog's"}`, () =>
      withEnv(model, { default: { text: "billed", usage, provider_cost: 0.0421 } }, async (env) => {
        env.writeAgentFile("models.json", JSON.stringify(env.server.modelsJson({ billed: true })));
        const r = await env.json("what did it cost");
        assert.equal(r.code, 0, explain(env, r));
        const end = r.events.findLast((e) => e.type === "message_end" && e.message.role === "assistant");
        const { cost } = end.message.usage;
        assert.ok(Math.abs(cost.total - total) < 1e-12, `${cost.total} vs ${total}`);
        assert.equal(cost.totalFromProvider, fromProvider);
        assert.ok(Math.abs(cost.input + cost.output - catalog) < 1e-12, "the parts stay the catalog's");
        assert.equal(env.requests()[0].path, fromProvider ? "/openrouter.ai/v1/chat/completions" : "/v1/chat/completions");
      }));
  }
});

describe("rpc mode, raw HTTP behaviour, CLI, script and request parsing", { concurrency: true }, () => {
  test("rpc mode: two prompts in one session, state command", () =>
    withEnv(MODELS["openai-completions"], null, async (env) => {
      const rpc = env.rpc();
      const first = await rpc.prompt("first question");
      assert.equal(first.response.data.disposition, "started");
      assert.equal(first.text, "ECHO: first question");
      const second = await rpc.prompt("second question");
      assert.equal(second.text, "ECHO: second question");
      const state = await rpc.send({ type: "get_state" });
      assert.equal(state.success, true);
      const closed = await rpc.close();
      assert.equal(closed.code, 0, closed.stderr);
      const reqs = env.requests();
      assert.equal(reqs.length, 2);
      // The second request carries the whole conversation, first answer included.
      assert.ok(JSON.stringify(reqs[1].body).includes("ECHO: first question"));
    }));

  test("stall: headers arrive, then no byte until close()", async () => {
    const server = await startScriptedModel({ script: { default: { stall: true } } });
    try {
      for (const api of Object.keys(MODELS)) {
        const { status, bytesAfter } = await rawStall(server, api, 300);
        assert.equal(status, 200);
        assert.equal(bytesAfter, 0, `${api}: stalled response sent bytes`);
      }
      assert.equal(server.requests().length, 3);
    } finally {
      const started = Date.now();
      await server.close();
      assert.ok(Date.now() - started < 2000, "close() must not wait for stalled sockets");
    }
  });

  test("stall_after_bytes holds a partial body; close() ends it", async () => {
    const server = await startScriptedModel({ script: { default: { text: "abcdef", stall_after_bytes: 20 } } });
    try {
      const res = await post(server, "openai-completions");
      const got = [];
      res.on("data", (c) => got.push(c));
      res.on("error", () => {}); // close() cuts the socket: expected.
      const ended = new Promise((resolve) => res.on("close", resolve));
      await sleep(200);
      assert.equal(Buffer.concat(got).length, 20);
      await server.close();
      await ended;
    } finally {
      await server.close();
    }
  });

  test("chunk_delay_ms paces deltas; close() cancels a pending delay_ms", async () => {
    const server = await startScriptedModel({ script: { rules: [
      { match: { text: "slow" }, responses: [{ text: "abcd", chunk_bytes: 1, chunk_delay_ms: 60 }] },
      { match: { text: "late" }, responses: [{ text: "never", delay_ms: 60000 }] },
    ] } });
    try {
      const started = Date.now();
      const body = await collect(await post(server, "openai-completions", "slow"));
      assert.ok(Date.now() - started >= 150, "four paced deltas take at least 3 delays");
      assert.equal((body.match(/"content":"[abcd]"/g) ?? []).length, 4);
      const late = post(server, "openai-completions", "late").catch((err) => err);
      await server.waitForRequests(2, 5000);
      const closing = Date.now();
      await server.close();
      assert.ok(Date.now() - closing < 2000, "close() must not wait for delay_ms");
      assert.ok((await late) instanceof Error, "the delayed request is cut, not answered");
    } finally {
      await server.close();
    }
  });

  test("CLI: prints the port, answers, logs, exits 0 on SIGTERM", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "scripted-cli-"));
    let child;
    try {
      const script = path.join(dir, "script.json");
      fs.writeFileSync(script, JSON.stringify({ default: { text: "from the cli" } }));
      child = spawn(process.execPath, [path.join(HERE, "server.mjs"), "--script", script, "--log", path.join(dir, "log.jsonl"),
        "--port-file", path.join(dir, "port"), "--models-json", path.join(dir, "models.json")], { stdio: ["ignore", "pipe", "inherit"] });
      const line = await firstLine(child.stdout);
      const { port } = JSON.parse(line);
      assert.equal(fs.readFileSync(path.join(dir, "port"), "utf8").trim(), String(port));
      const models = JSON.parse(fs.readFileSync(path.join(dir, "models.json"), "utf8"));
      assert.equal(models.providers.scripted.baseUrl, `http://127.0.0.1:${port}/v1`);
      const body = await collect(await post({ url: `http://127.0.0.1:${port}` }, "anthropic-messages"));
      assert.match(body, /from the cli/);
      assert.match(body, /event: message_stop/);
      const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
      const log = fs.readFileSync(path.join(dir, "log.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(log.length, 1);
      assert.equal(log[0].api, "anthropic-messages");
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("steps are consumed in order and the last one repeats; setScript rewinds", async () => {
    const server = await startScriptedModel({ script: { rules: [{ match: { text: "x" }, responses: [{ text: "one" }, { text: "two" }] }] } });
    try {
      const texts = [];
      for (let i = 0; i < 3; i++) texts.push(await collect(await post(server, "openai-responses", "x")));
      assert.deepEqual(texts.map((t) => /"text":"(one|two)"/.exec(t)[1]), ["one", "two", "two"]);
      server.setScript({ rules: [{ match: { text: "x" }, responses: [{ text: "one" }, { text: "two" }] }] });
      assert.match(await collect(await post(server, "openai-responses", "x")), /"text":"one"/);
      assert.deepEqual(server.requests().map((r) => r.step_index), [0, 1, 1, 0]);
    } finally {
      await server.close();
    }
  });

  test("scripts with unknown keys are rejected", () => {
    assert.throws(() => validateScript({ rules: [{ responses: [{ txt: "typo" }] }] }), /unknown key "txt"/);
    assert.throws(() => validateScript({ rules: [{ match: { role: "tool" }, responses: [{ text: "a" }] }] }), /unknown key "role"/);
    assert.throws(() => validateScript({ rules: [{ responses: [] }] }), /non-empty/);
  });

  test("request normalization across the three body formats", () => {
    const completions = { messages: [
      { role: "system", content: "sys" },
      { role: "user", content: [{ type: "text", text: "do it" }] },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "fusion_reason", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "RESULT-1" },
    ] };
    const anthropic = { messages: [
      { role: "user", content: "do it" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "fusion_reason", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "RESULT-1" }], is_error: true }] },
    ] };
    const responses = { input: [
      { role: "user", content: [{ type: "input_text", text: "do it" }] },
      { type: "function_call", call_id: "r1", name: "fusion_reason", arguments: "{}" },
      { type: "function_call_output", call_id: "r1", output: "RESULT-1" },
    ] };
    for (const [api, body] of [["openai-completions", completions], ["anthropic-messages", anthropic], ["openai-responses", responses]]) {
      const v = requestView(api, body);
      assert.equal(v.lastUserText, "do it", api);
      assert.equal(v.lastRole, "tool", api);
      assert.equal(v.toolResults.length, 1, api);
      assert.equal(v.toolResults[0].name, "fusion_reason", api);
      assert.equal(v.toolResults[0].text, "RESULT-1", api);
    }
    assert.equal(requestView("anthropic-messages", anthropic).toolResults[0].isError, true);
  });
});

// ---------------------------------------------------------------- raw HTTP helpers

const PATHS = { "openai-completions": "/v1/chat/completions", "anthropic-messages": "/v1/messages?beta=true", "openai-responses": "/v1/responses" };

function requestBody(api, text) {
  if (api === "openai-responses") return { model: "scripted-a", stream: true, input: [{ role: "user", content: [{ type: "input_text", text }] }] };
  return { model: "scripted-a", stream: true, messages: [{ role: "user", content: text }] };
}

/** POSTs a minimal streaming request and resolves with the response (headers received). */
function post(server, api, text = "hello") {
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}${PATHS[api]}`, { method: "POST", headers: { "content-type": "application/json" } }, resolve);
    req.on("error", reject);
    req.end(JSON.stringify(requestBody(api, text)));
  });
}

function collect(res) {
  return new Promise((resolve, reject) => {
    const parts = [];
    res.on("data", (c) => parts.push(c));
    res.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    res.on("error", reject);
  });
}

/** Opens a stalled stream, counts body bytes over `waitMs`, then abandons it. */
async function rawStall(server, api, waitMs) {
  const res = await post(server, api);
  let bytesAfter = 0;
  res.on("data", (c) => { bytesAfter += c.length; });
  res.on("error", () => {}); // close() destroys the socket under us: expected.
  await sleep(waitMs);
  return { status: res.statusCode, bytesAfter };
}

function firstLine(stream) {
  return new Promise((resolve, reject) => {
    let buf = "";
    stream.on("data", (c) => {
      buf += c;
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve(buf.slice(0, nl));
    });
    stream.on("end", () => reject(new Error(`stream ended before a line: ${buf}`)));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
