// Process-level tests of `pi-fusion fetch`: the real binary, libcurl and c-ares, against a fake
// DNS server on 127.0.0.1 and HTTP fixtures on 127.0.0.77 (the test build's one public loopback
// address).
//   node fetch_e2e.mjs --pi-fusion PATH --scenario NAME [--has-extract 1]
//   node fetch_e2e.mjs --list          (scenario names; CMake registers one ctest test each)
// No traffic leaves 127.0.0.0/8: every run passes --dns-servers, and every other address a
// scenario names is one the fetcher refuses before connecting. Proxy variables point at a dead
// loopback port to prove the fetcher ignores them.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';

import { startFakeDns } from '../../support/fake_dns/fake_dns.mjs';
import { startCanary, startHttpFixtures } from '../../support/http_fixtures/http_fixtures.mjs';

const PUBLIC_LOOPBACK = '127.0.0.77';
const SHORT_DEADLINE_MS = '1000';

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  return out;
}

function runFetch(piFusion, argv, { input = '', timeoutMs = 15000 } = {}) {
  const deadProxy = 'http://127.0.0.1:9';
  const env = { ...process.env, http_proxy: deadProxy, https_proxy: deadProxy,
    HTTP_PROXY: deadProxy, HTTPS_PROXY: deadProxy, ALL_PROXY: deadProxy, NO_PROXY: '' };
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(piFusion, ['fetch', ...argv], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr, elapsedMs: Date.now() - started });
    });
    child.stdin.end(input);
  });
}

function sha256Ref(text) {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

// Each scenario gets ctx = { fetch(url, ...flags) -> parsed JSON result, run(argv), http, dns,
// canary } and throws on failure.
const scenarios = {
  async fetch_literal_ok({ fetch, http }) {
    const r = await fetch(`${http.origin}/text`);
    assert.equal(r.json.ok, true, r.raw);
    assert.equal(r.json.url, `${http.origin}/text`);
    assert.equal(r.json.final_url, `${http.origin}/text`);
    assert.equal(r.json.http_status, 200);
    assert.equal(r.json.content_type, 'text/plain');
    // The HTML extractor, when built in, also tidies plain text (no trailing newline).
    assert.equal(r.json.text.trimEnd(), 'hello from the fixture');
    assert.equal(r.json.response_bytes, 23);
    assert.equal(r.json.content_sha256, sha256Ref('hello from the fixture\n'));
    assert.equal(r.json.truncated, false);
    assert.equal(r.code, 0);
  },
  async fetch_name_ok({ fetch, http, dns }) {
    const r = await fetch(`http://Example.TEST:${http.port}/markdown#x`);
    assert.equal(r.json.ok, true, r.raw);
    assert.equal(r.json.url, `http://example.test:${http.port}/markdown`);
    assert.equal(r.json.text.trimEnd(), '# Title\n\nbody');
    assert.deepEqual(dns.queries.filter((q) => q.name === 'example.test').map((q) => q.type).sort(),
      ['A', 'AAAA']);
    assert.equal(http.requests[0].host, `example.test:${http.port}`);
  },
  async text_mode_output({ run, http, dnsArgs }) {
    const ok = await run([...dnsArgs, `${http.origin}/text`]);
    assert.equal(ok.code, 0);
    assert.equal(ok.stdout, 'hello from the fixture\n');
    const bad = await run([...dnsArgs, `${http.origin}/404`]);
    assert.equal(bad.code, 1);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /^error: http_error: HTTP status 404\n$/);
  },
  async html_extraction({ fetch, http, hasExtract }) {
    const r = await fetch(`${http.origin}/html`, '--extract', 'text');
    if (hasExtract) {
      assert.equal(r.json.ok, true, r.raw);
      assert.equal(r.json.text.trim(), 'hi');
    } else {
      assertError(r, 'extraction_failed');
    }
  },
  async five_redirects_succeed({ fetch, http }) {
    const r = await fetch(`${http.origin}/redirect/5`);
    assert.equal(r.json.ok, true, r.raw);
    assert.equal(r.json.final_url, `${http.origin}/text`);
    assert.equal(http.requests.length, 6);
  },
  async six_redirects_fail({ fetch, http }) {
    const r = await fetch(`${http.origin}/redirect/6`);
    assertError(r, 'redirect_limit');
    assert.equal(http.requests.length, 6);
  },
  async redirect_to_private_address({ fetch, http, canary }) {
    const r = await fetch(`${http.origin}/to?url=http://127.0.0.1:${http.port}/text`);
    assertError(r, 'redirect_blocked', /127\.0\.0\.1 is loopback/);
    assert.equal(canary.connections(), 0);
  },
  async redirect_to_private_name({ fetch, http, canary }) {
    const r = await fetch(`${http.origin}/to?url=http://inside.test:${http.port}/text`);
    assertError(r, 'redirect_blocked', /inside\.test resolves to a blocked address/);
    assert.equal(canary.connections(), 0);
  },
  async redirect_to_file({ fetch, http }) {
    assertError(await fetch(`${http.origin}/to?url=file:///etc/passwd`), 'redirect_blocked',
      /"file"/);
  },
  async oversized_body({ fetch, http }) {
    assertError(await fetch(`${http.origin}/big`), 'response_too_large');
  },
  async gzip_bomb({ fetch, http }) {
    assertError(await fetch(`${http.origin}/bomb`), 'response_too_large');
  },
  async slow_drip_times_out({ fetch, http }) {
    const r = await fetch(`${http.origin}/drip`, '--deadline-ms', SHORT_DEADLINE_MS);
    assertError(r, 'request_timeout');
    assert.ok(r.elapsedMs < 5000, `took ${r.elapsedMs} ms`);
  },
  async wrong_content_type({ fetch, http }) {
    assertError(await fetch(`${http.origin}/json`), 'unsupported_content_type',
      /application\/json/);
  },
  async not_found({ fetch, http }) {
    assertError(await fetch(`${http.origin}/404`), 'http_error', /404/);
  },
  async dns_rebinding_is_pinned({ fetch, http, canary, dns }) {
    // First answer public, every later one loopback: the fetch must use the vetted answer.
    const r = await fetch(`http://rebind.test:${http.port}/text`);
    assert.equal(r.json.ok, true, r.raw);
    assert.equal(http.requests.length, 1);
    assert.equal(canary.connections(), 0);
    assert.equal(dns.queries.filter((q) => q.name === 'rebind.test' && q.type === 'A').length, 1);
  },
  async dns_rebinding_across_redirect({ fetch, http, canary }) {
    const target = `http://rebind.test:${http.port}/text`;
    const r = await fetch(`http://rebind.test:${http.port}/to?url=${encodeURIComponent(target)}`);
    assertError(r, 'redirect_blocked', /127\.0\.0\.1 is loopback/);
    assert.equal(http.requests.length, 1);
    assert.equal(canary.connections(), 0);
  },
  async mixed_answers_one_blocked({ fetch, http }) {
    assertError(await fetch(`http://mixed.test:${http.port}/text`), 'blocked_address',
      /::1 is loopback/);
    assert.equal(http.requests.length, 0);
  },
  async nxdomain({ fetch, http }) {
    assertError(await fetch(`http://missing.test:${http.port}/text`), 'dns_failure', /NXDOMAIN/);
  },
  async dns_never_answers({ fetch, http }) {
    const r = await fetch(`http://silent.test:${http.port}/text`, '--deadline-ms',
      SHORT_DEADLINE_MS);
    assertError(r, 'request_timeout');
    assert.ok(r.elapsedMs < 5000, `took ${r.elapsedMs} ms`);
  },
  async blocked_literal_without_traffic({ fetch, canary, http }) {
    assertError(await fetch(`http://127.0.0.1:${http.port}/text`), 'blocked_address');
    assertError(await fetch(`http://0x7f.1:${http.port}/text`), 'blocked_address');
    assertError(await fetch(`http://[::ffff:127.0.0.77]:${http.port}/text`), 'blocked_address');
    assert.equal(canary.connections(), 0);
    assert.equal(http.requests.length, 0);
  },
  async stdio_json_lines({ run, http, dnsArgs }) {
    const input = [
      JSON.stringify({ url: `${http.origin}/text`, extract: 'text' }),
      JSON.stringify({ url: `${http.origin}/404` }),
      '{"url": 5}',
      JSON.stringify({ url: `${http.origin}/markdown`, extract: 'markdown' }),
    ].join('\n');
    const r = await run([...dnsArgs, '--stdio'], { input });
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.ok ? 'ok' : l.error.code),
      ['ok', 'http_error', 'invalid_request', 'ok']);
    assert.equal(lines[3].text.trimEnd(), '# Title\n\nbody');
  },
};

function assertError(r, code, messagePattern) {
  assert.equal(r.json.ok, false, r.raw);
  assert.equal(r.json.error.code, code, r.raw);
  if (messagePattern) assert.match(r.json.error.message, messagePattern);
  assert.notEqual(r.code, 0);
}

async function main() {
  if (process.argv[2] === '--list') {  // CMake registers one ctest test per scenario
    console.log(Object.keys(scenarios).join(';'));
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  const { 'pi-fusion': piFusion, scenario } = args;
  const hasExtract = args['has-extract'] === '1';
  const test = scenarios[scenario];
  if (!piFusion || !test) {
    console.error(`usage: fetch_e2e.mjs --pi-fusion PATH --scenario {${Object.keys(scenarios)}}`);
    process.exit(2);
  }
  const http = await startHttpFixtures({ host: PUBLIC_LOOPBACK });
  const canary = await startCanary({ host: '127.0.0.1', port: http.port });
  const dns = await startFakeDns({
    zones: {
      'example.test': { A: [PUBLIC_LOOPBACK] },
      'inside.test': { A: ['127.0.0.1'] },
      'rebind.test': { A: (n) => (n === 0 ? [PUBLIC_LOOPBACK] : ['127.0.0.1']) },
      'mixed.test': { A: [PUBLIC_LOOPBACK], AAAA: ['::1'] },
      'silent.test': 'silent',
    },
  });
  const dnsArgs = ['--dns-servers', dns.server];
  const run = (argv, opts) => runFetch(piFusion, argv, opts);
  const fetch = async (url, ...flags) => {
    const r = await run([...dnsArgs, '--json', ...flags, url]);
    let json;
    try {
      json = JSON.parse(r.stdout);
    } catch {
      throw new Error(`not JSON (exit ${r.code}): ${r.stdout} ${r.stderr}`);
    }
    return { ...r, json, raw: r.stdout };
  };
  try {
    await test({ fetch, run, http, dns, canary, dnsArgs, hasExtract });
    console.log(`ok - ${scenario}`);
  } finally {
    await Promise.all([http.close(), canary.close(), dns.close()]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
