#!/usr/bin/env node
/**
 * @file Fetch benchmark: `pi-fusion fetch --json URL` against `curl -s -o /dev/null URL` for the same
 * loopback page. Writes bench/results/fetch.md with RATIOS ours/curl measured in the same process
 * (never a pass/fail on wall time).
 *
 *   node bench/fetch/fetch_bench.mjs [--runs N] [--out FILE]
 *     --runs N   fetches per tool and page (default 20)
 *     --out FILE report path (default bench/results/fetch.md)
 *   Build dir: $PI_FUSION_BUILD_DIR (default build/dev); runs <build>/bin/pi-fusion.
 *
 * The pages are served by a Node HTTP server bound to a public address that exists only in a private
 * network namespace the script re-runs itself in (tests/support/netns/netns.mjs; exit 77 with the
 * reason when none can be made). The fetcher refuses every non-public address, so there is no other
 * way to serve it a page locally. The URL is an IP literal, so no DNS query is made; --dns-servers
 * still points at a dead loopback port and every proxy variable at a dead loopback proxy, and the
 * namespace has no route out. curl gets --noproxy '*'.
 * Plain Node ESM, built-ins only; the server is closed on every path.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { enterNetnsOrExit, PUBLIC_V4 } from "../../tests/support/netns/netns.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..");
const HOST = PUBLIC_V4;
const DEAD = "http://127.0.0.1:9";
const TIMEOUT_MS = 30000;

function parseArgs(argv) {
  const opts = { runs: 20, out: path.join(ROOT, "bench", "results", "fetch.md") };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--runs") opts.runs = Number(argv[++i]);
    else if (argv[i] === "--out") opts.out = path.resolve(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]} (usage: fetch_bench.mjs [--runs N] [--out FILE])`);
  }
  if (!Number.isInteger(opts.runs) || opts.runs < 1 || opts.runs > 1000) throw new Error("--runs must be 1..1000");
  return opts;
}

// ---- pages ------------------------------------------------------------------------------------

const WORDS = "the quick brown fox jumps over a lazy dog while light scatters through air and blue wavelengths dominate the daytime sky".split(" ");
function sentence(seed, n) {
  const w = [];
  for (let i = 0; i < n; i++) w.push(WORDS[(seed * 7 + i * 13) % WORDS.length]);
  w[0] = w[0][0].toUpperCase() + w[0].slice(1);
  return `${w.join(" ")}.`;
}

/** A deterministic article page: head with scripts/styles, nav, article with headings, paragraphs,
 * lists, a table, a code block and links, a footer. `sections` scales it. */
function articlePage(sections) {
  const parts = [
    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Why the sky is blue</title>",
    "<meta name=\"viewport\" content=\"width=device-width\"><link rel=\"stylesheet\" href=\"/s.css\">",
    `<style>${"body{font:16px/1.5 sans-serif;margin:0}.nav a{padding:4px}".repeat(20)}</style>`,
    `<script>${"window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}".repeat(20)}</script>`,
    "</head><body><header class=\"nav\"><a href=\"/\">Home</a> <a href=\"/science\">Science</a> <a href=\"/about\">About</a></header>",
    "<main><article><h1>Why the sky is blue</h1><p class=\"byline\">By A. Writer, <time>2024-05-01</time></p>",
  ];
  for (let s = 0; s < sections; s++) {
    parts.push(`<section id="s${s}"><h2>Section ${s + 1}: ${sentence(s, 4)}</h2>`);
    for (let p = 0; p < 4; p++) {
      parts.push(`<p>${sentence(s * 10 + p, 18)} <a href="/ref/${s}-${p}">${sentence(p, 3)}</a> <em>${sentence(s + p, 5)}</em> ${sentence(s + 2 * p, 22)}</p>`);
    }
    parts.push(`<ul>${[0, 1, 2, 3].map((i) => `<li>${sentence(s + i, 8)}</li>`).join("")}</ul>`);
    if (s % 3 === 0) {
      parts.push(`<table><thead><tr><th>wavelength</th><th>colour</th><th>relative scattering</th></tr></thead><tbody>${
        [400, 450, 500, 550, 600, 650, 700].map((nm) => `<tr><td>${nm} nm</td><td>${sentence(nm, 1)}</td><td>${((400 / nm) ** 4).toFixed(3)}</td></tr>`).join("")}</tbody></table>`);
    }
    if (s % 4 === 1) parts.push(`<pre><code>intensity = k / wavelength ** 4  # section ${s}\n</code></pre>`);
    parts.push("</section>");
  }
  parts.push("</article></main><footer><p>&copy; 2024 Example. <a href=\"/privacy\">Privacy</a></p></footer></body></html>\n");
  return Buffer.from(parts.join("\n"));
}

function makePages() {
  const small = articlePage(6);
  let n = 300;
  let big = articlePage(n);
  while (big.length < 1000 * 1000) big = articlePage((n = Math.ceil(n * 1.1)));
  return { "/page.html": small, "/big.html": big };
}

function startServer(pages) {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    const body = pages[new URL(req.url, "http://x").pathname];
    if (!body) { res.writeHead(404, { "content-type": "text/plain" }); res.end("no\n"); return; }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-length": body.length });
    res.end(body);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, () => resolve({
      origin: `http://${HOST}:${server.address().port}`,
      requests: () => requests,
      close: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
    }));
  });
}

// ---- runs --------------------------------------------------------------------------------------

const CHILDREN = new Set();

/** Async spawn (the server lives in this process, so spawnSync would deadlock it). */
function timed(command, args) {
  const env = { ...process.env, http_proxy: DEAD, https_proxy: DEAD, HTTP_PROXY: DEAD, HTTPS_PROXY: DEAD, ALL_PROXY: DEAD, all_proxy: DEAD, NO_PROXY: "", no_proxy: "" };
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    CHILDREN.add(child);
    const out = [];
    const err = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    child.on("error", (e) => { clearTimeout(timer); CHILDREN.delete(child); reject(e); });
    child.on("close", (code, signal) => {
      const ms = performance.now() - t0;
      clearTimeout(timer);
      CHILDREN.delete(child);
      resolve({ code, signal, ms, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
    });
  });
}

async function ours(piFusion, url) {
  const r = await timed(piFusion, ["fetch", "--json", "--dns-servers", "127.0.0.1:9", url]);
  let j = null;
  try { j = JSON.parse(r.stdout); } catch { /* reported below */ }
  if (r.code !== 0 || !j?.ok) throw new Error(`pi-fusion fetch ${url} failed (exit ${r.code ?? r.signal}): ${r.stdout.slice(0, 500)} ${r.stderr.slice(0, 500)}`);
  return { ms: r.ms, json: j };
}

async function curl(url) {
  const r = await timed("curl", ["-s", "-o", "/dev/null", "--noproxy", "*", "-w", "%{http_code} %{size_download}", url]);
  if (r.code !== 0 || !r.stdout.startsWith("200 ")) throw new Error(`curl ${url} failed (exit ${r.code ?? r.signal}): ${r.stdout} ${r.stderr}`);
  return { ms: r.ms, bytes: Number(r.stdout.split(" ")[1]) };
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => { const s = sorted(xs); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const p90 = (xs) => sorted(xs)[Math.min(xs.length - 1, Math.ceil(0.9 * xs.length) - 1)];  // nearest rank
const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : "n/a");
const ratio = (a, b) => (b > 0 ? (a / b).toFixed(2) : "n/a");

function machine(build, piFusion) {
  const cpuinfo = fs.readFileSync("/proc/cpuinfo", "utf8");
  let buildType = "?";
  try { buildType = /^CMAKE_BUILD_TYPE:\w+=(.*)$/m.exec(fs.readFileSync(path.join(build, "CMakeCache.txt"), "utf8"))?.[1] || "(empty)"; } catch { /* no cache */ }
  return {
    cpu: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? "?",
    cores: os.availableParallelism(),
    load: fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
    build: path.relative(ROOT, build) || build,
    buildType,
    piFusion: path.relative(ROOT, piFusion) || piFusion,
  };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  await enterNetnsOrExit({ addresses: [HOST], label: "fetch benchmark" });
  const build = path.resolve(process.env.PI_FUSION_BUILD_DIR ?? path.join(ROOT, "build", "dev"));
  const piFusion = path.join(build, "bin", "pi-fusion");
  if (!fs.existsSync(piFusion)) throw new Error(`missing ${piFusion}: build first`);
  const curlVersion = (await timed("curl", ["--version"])).stdout.split("\n")[0];
  const m = machine(build, piFusion);
  const started = new Date().toISOString();
  const pages = makePages();
  const server = await startServer(pages);
  const results = [];
  try {
    for (const [name, label] of [["/page.html", "article page"], ["/big.html", "~1 MB page"]]) {
      const url = `${server.origin}${name}`;
      const first = await ours(piFusion, url);  // warm-up of both, untimed; also checks the answer
      await curl(url);
      const row = { name, label, bytes: pages[name].length, ours: [], curl: [], first: first.json };
      for (let i = 0; i < opts.runs; i++) {
        // Alternate which goes first, so neither always gets the warmer cache.
        if (i % 2) { row.curl.push((await curl(url)).ms); row.ours.push((await ours(piFusion, url)).ms); }
        else { row.ours.push((await ours(piFusion, url)).ms); row.curl.push((await curl(url)).ms); }
      }
      console.error(`[fetch_bench] ${name}: ours median ${fmt(median(row.ours))} ms, curl median ${fmt(median(row.curl))} ms`);
      results.push(row);
    }
  } finally {
    for (const c of CHILDREN) c.kill("SIGKILL");
    await server.close();
  }
  const requests = server.requests();
  fs.mkdirSync(path.dirname(opts.out), { recursive: true });
  fs.writeFileSync(opts.out, report({ runs: opts.runs, m, curlVersion, started, results, requests }));
  console.error(`[fetch_bench] wrote ${opts.out}`);
}

function report({ runs, m, curlVersion, started, results, requests }) {
  const summary = results.map((r) => `| ${r.label} (\`${r.name}\`, ${r.bytes.toLocaleString("en")} B) | ${fmt(median(r.ours))} | ${fmt(p90(r.ours))} | ${fmt(median(r.curl))} | ${fmt(p90(r.curl))} | **${ratio(median(r.ours), median(r.curl))}** | ${ratio(p90(r.ours), p90(r.curl))} |`).join("\n");
  const samples = results.map((r) => `| \`${r.name}\` pi-fusion | ${r.ours.map((x) => fmt(x)).join(", ")} |\n| \`${r.name}\` curl | ${r.curl.map((x) => fmt(x)).join(", ")} |`).join("\n");
  const checks = results.map((r) => `| \`${r.name}\` | ${r.first.http_status} | ${r.first.content_type} | ${r.first.response_bytes} | ${r.first.extracted_bytes} | ${r.first.truncated} |`).join("\n");
  return `# Fetch benchmark: \`pi-fusion fetch\` vs curl

Generated by \`bench/fetch/fetch_bench.mjs\` (\`scripts/bench\`) on ${started}; ${runs} timed runs per tool and
page after one untimed warm-up each, alternating which tool goes first. **Only the ratios are
meaningful**: both tools fetch the same URL from the same server in the same process, so machine speed
and load cancel out; absolute milliseconds do not transfer to other machines.

| machine | |
| --- | --- |
| CPU | ${m.cpu} |
| cores (nproc) | ${m.cores} |
| load at start / end | ${m.load} / ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} |
| pi-fusion | \`${m.piFusion}\` (${m.buildType}) |
| curl | ${curlVersion} |

## Summary (wall time per process, ms)

| page | pi-fusion median | pi-fusion p90 | curl median | curl p90 | ratio median ours/curl | ratio p90 |
| --- | --- | --- | --- | --- | --- | --- |
${summary}

## What is compared

- **ours**: \`pi-fusion fetch --json --dns-servers 127.0.0.1:9 http://${HOST}:PORT/PAGE\` — a whole process:
  start-up, URL canonicalization and address vetting, libcurl transfer, content-type check, HTML
  extraction to Markdown (capped at 32 KiB of output) and one JSON line on stdout.
- **baseline**: \`curl -s -o /dev/null --noproxy '*' URL\` — start-up and the transfer only, no parsing.
  The ratio therefore prices everything pi-fusion does beyond downloading; for the ~1 MB page that is
  mostly parsing 1 MB of HTML with gumbo.
- Server: Node \`http\` on ${HOST}, a public address given to lo inside a private network namespace
  (both tools and the server run in it), \`text/html; charset=utf-8\` with \`content-length\`, a fresh connection per process. Pages are
  generated deterministically: an article with head scripts/styles, navigation, headings, paragraphs
  with links, lists, tables, code and a footer; the big page is the same structure repeated.
- No traffic leaves the machine: the namespace has no route out, the URL is an IP literal (no DNS),
  \`--dns-servers\` names a dead loopback port, proxy variables point at a dead loopback proxy. Server requests served: ${requests}.
- p90 is nearest-rank over the ${runs} samples.

Checked on the warm-up fetch of each page:

| page | http_status | content_type | response_bytes | extracted_bytes | truncated |
| --- | --- | --- | --- | --- | --- |
${checks}

## Samples (ms)

| | samples |
| --- | --- |
${samples}
`;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
