// Fetcher hardening beyond the original, run inside the private network namespace (see
// fetch_e2e.mjs for the context, the zones and the canaries on the blocked destinations):
// the Azure platform address and ISATAP answers refused, a name's public answers tried in turn,
// the 4 MiB cap on decoded bytes for every content coding, content types and character sets.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import { UTF8_TEXT, WINDOWS_1252_TEXT } from '../../support/http_fixtures/http_fixtures.mjs';
import { assertError } from './fetch_assert.mjs';

const MIB = 1024 * 1024;

function nodeGet(url) {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); })
      .on('error', reject);
  });
}

const redirectTo = (http, target) => `${http.origin}/to?url=${encodeURIComponent(target)}`;

const decodedCapScenarios = Object.fromEntries(['gzip', 'deflate', 'br', 'zstd'].map((encoding) => [
  `decoded_cap_${encoding}`,
  async ({ fetch, http }) => {
    // Exactly 4 MiB after decoding is accepted (the cap is on decoded bytes, not on the wire)...
    const at = await fetch(`${http.origin}/encoded/${encoding}/at`, '--extract', 'text');
    assert.equal(at.json.ok, true, at.raw);
    assert.equal(at.json.response_bytes, 4 * MIB);
    assert.equal(at.json.truncated, true);
    // ...one byte more is not, although it is a few KiB on the wire.
    assertError(await fetch(`${http.origin}/encoded/${encoding}/over`), 'response_too_large',
      /exceeds 4194304 bytes/);
  },
]));

export const hardeningScenarios = {
  async canaries_see_connections({ canary, http }) {
    // The checks below that no connection reached a blocked destination can fail: plain Node
    // reaches every canary.
    for (const host of canary.hosts) assert.equal(await nodeGet(`http://${host}:${http.port}/`), 200);
    assert.equal(canary.connections(), canary.hosts.length);
  },
  async azure_platform_refused({ fetch, http, canary }) {
    const literal = `http://168.63.129.16:${http.port}/text`;
    assertError(await fetch(literal), 'blocked_address', /168\.63\.129\.16 is the Azure platform/);
    assertError(await fetch(`http://azure.test:${http.port}/text`), 'blocked_address',
      /azure\.test resolves to a blocked address: .*Azure platform/);
    assertError(await fetch(redirectTo(http, literal)), 'redirect_blocked', /Azure platform/);
    assertError(await fetch(redirectTo(http, `http://azure.test:${http.port}/text`)),
      'redirect_blocked', /Azure platform/);
    assert.equal(canary.connections(), 0);
    assert.equal(http.requests.length, 2);  // the two public first hops only
  },
  async metadata_and_loopback_redirects_refused({ fetch, http, canary }) {
    for (const target of [`http://169.254.169.254:${http.port}/latest/meta-data/`,
      `http://metadata.test:${http.port}/latest/meta-data/`, `http://127.0.0.1:${http.port}/`,
      `http://[::1]:${http.port}/`]) {
      assertError(await fetch(redirectTo(http, target)), 'redirect_blocked',
        /link-local|loopback/);
    }
    assert.equal(canary.connections(), 0);
  },
  async isatap_answer_refused({ fetch, http, canary }) {
    assertError(await fetch(`http://isatap.test:${http.port}/text`), 'blocked_address',
      /ISATAP embedding a non-public IPv4 address \(127\.0\.0\.1 is loopback\)/);
    assertError(await fetch(`http://[2001:4860:1:2:200:5efe:a9fe:a9fe]:${http.port}/text`),
      'blocked_address', /169\.254\.169\.254 is link-local/);
    assert.equal(http.requests.length, 0);
    assert.equal(canary.connections(), 0);
  },
  async mixed_public_private_refused({ fetch, http }) {
    assertError(await fetch(`http://mixed4.test:${http.port}/text`), 'blocked_address',
      /10\.0\.0\.1 is private/);
    assert.equal(http.requests.length, 0);
  },
  async answers_tried_in_turn({ fetch, http, dns }) {
    // First answer has no route, the second refuses the connection, the third serves.
    const r = await fetch(`http://multi.test:${http.port}/text`);
    assert.equal(r.json.ok, true, r.raw);
    assert.equal(r.json.text.trimEnd(), 'hello from the fixture');
    assert.equal(http.requests.length, 1);
    assert.equal(http.requests[0].host, `multi.test:${http.port}`);
    assert.equal(dns.queries.filter((q) => q.name === 'multi.test' && q.type === 'A').length, 1);
  },
  async no_answer_connects({ fetch, http }) {
    const r = await fetch(`http://down.test:${http.port}/text`);
    assertError(r, 'network_error', /could not connect to any of the 2 addresses of down\.test/);
    assert.equal(http.requests.length, 0);
  },
  ...decodedCapScenarios,
  async process_limits({ piFusion, dnsArgs, http, sanitized }) {
    // The fetcher limits itself before fetching: read its limits while it waits on a drip. Its
    // request to /drip is the sign it got that far; a slow start (a sanitizer build on a busy
    // machine) only waits longer, and never seeing the request fails the test as such.
    const child = spawn(piFusion, ['fetch', ...dnsArgs, '--json', '--deadline-ms', '60000',
      `${http.origin}/drip`], { stdio: 'ignore' });
    try {
      const deadline = Date.now() + 30000;
      while (!http.requests.some((r) => r.path === '/drip')) {
        assert.ok(Date.now() < deadline, 'the fetcher never requested /drip');
        await sleep(50);
      }
      const limits = readFileSync(`/proc/${child.pid}/limits`, 'utf8');
      const row = (name) => limits.split('\n').find((l) => l.startsWith(name))?.split(/\s{2,}/);
      assert.deepEqual(row('Max cpu time').slice(1, 3), ['100', '100']);
      // AddressSanitizer's shadow memory alone exceeds 1 GiB: its builds keep no address-space
      // limit (src/cli/fetch_rlimits.h).
      const space = sanitized ? ['unlimited', 'unlimited'] : ['1073741824', '1073741824'];
      assert.deepEqual(row('Max address space').slice(1, 3), space);
      assert.deepEqual(row('Max core file size').slice(1, 3), ['0', '0']);
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  },
  async failure_reports_trace({ fetch, http }) {
    const r = await fetch(`${http.origin}/to?url=/404`);
    assertError(r, 'http_error', /404/);
    assert.equal(r.json.url, `${http.origin}/to?url=/404`);
    assert.equal(r.json.final_url, `${http.origin}/404`);
    assert.equal(r.json.http_status, 404);
    const refused = await fetch(`http://127.0.0.1:${http.port}/secret`);
    assertError(refused, 'blocked_address');
    assert.deepEqual(Object.keys(refused.json), ['ok', 'error']);  // a refused URL is not echoed
  },
  async pdf_refused({ fetch, http }) {
    assertError(await fetch(`${http.origin}/pdf`), 'unsupported_content_type', /application\/pdf/);
  },
  async windows_1252_pages({ fetch, http, hasExtract }) {
    for (const path of ['/cp1252', '/cp1252-meta']) {
      const r = await fetch(`${http.origin}${path}`, '--extract', 'text');
      if (!hasExtract) { assertError(r, 'extraction_failed'); continue; }
      assert.equal(r.json.ok, true, r.raw);
      assert.equal(r.json.text.trim(), WINDOWS_1252_TEXT, path);
    }
  },
  async utf8_page({ fetch, http, hasExtract }) {
    const r = await fetch(`${http.origin}/utf8`, '--extract', 'text');
    if (!hasExtract) return assertError(r, 'extraction_failed');
    assert.equal(r.json.ok, true, r.raw);
    assert.equal(r.json.text.trim(), UTF8_TEXT);
    return undefined;
  },
};
