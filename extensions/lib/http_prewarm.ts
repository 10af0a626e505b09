/**
 * Pays the HTTP client's first-use cost while a warm Fusion child still waits for its input.
 *
 * The first `fetch` in a Pi process compiles and initialises the request path of Pi's HTTP client
 * (undici: the fetch machinery, the dispatcher, the WebAssembly HTTP parser of its first
 * connection). In a warm evaluator or merger child (docs/workflow.md) that work would sit between
 * its input and its provider request; measured, it is 10–20 ms of the child's share of a warm stage
 * (docs/benchmarks.md). So such a child makes one request to a server of its own on 127.0.0.1 while
 * it waits, and Pi's real request then runs on warm code.
 *
 * Nothing leaves the process: the server listens on the loopback address only for this one
 * request, and is closed after it. Skipped when a proxy variable is set (Pi's dispatcher would send
 * even a loopback request to the proxy) and for candidates, which get their input at once. Never
 * throws; a failure only leaves the first-use cost to Pi's own request.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** The roles whose child the parent starts before its input is known (evaluator repair included). */
const WARM_ROLES = new Set(["evaluator", "merger"]);

/** The variables Pi's proxy-aware dispatcher reads (Pi also sets HTTP(S)_PROXY from its settings). */
const PROXY_VARIABLES = ["http_proxy", "https_proxy", "all_proxy"];

// How long the warm-up may take before it is abandoned (it normally takes a few milliseconds).
const PREWARM_TIMEOUT_MS = 5000;

/** Whether a child of `role` under `env` makes the warm-up request. */
export function shouldPrewarm(role: string | undefined, env: NodeJS.ProcessEnv): boolean {
  if (!role || !WARM_ROLES.has(role)) return false;
  return !PROXY_VARIABLES.some((name) => env[name] || env[name.toUpperCase()]);
}

/**
 * Makes one POST through the global fetch to a one-request server on 127.0.0.1, answered like a
 * streamed completion, and reads the body to its end. Resolves when done or abandoned.
 */
export function prewarmHttpClient(): Promise<void> {
  return new Promise((resolve) => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream", connection: "close" });
      res.end("data: [DONE]\n\n");
    });
    const done = () => {
      server.close();
      resolve();
    };
    server.on("error", done);
    // Neither the server nor the request keeps the child alive.
    server.unref();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      globalThis
        .fetch(`http://127.0.0.1:${port}/`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
          signal: AbortSignal.timeout(PREWARM_TIMEOUT_MS),
        })
        .then((response) => response.arrayBuffer())
        .catch(() => {})
        .finally(done);
    });
  });
}

/** Starts the warm-up in the background when this child is a warm one; never throws. */
export function prewarmHttpClientIfWarm(
  role: string | undefined = process.env.PI_FUSION_CHILD_ROLE,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (!shouldPrewarm(role, env)) return;
  try {
    void prewarmHttpClient();
  } catch {
    // A missing global fetch or server: Pi's own request pays the first use.
  }
}
