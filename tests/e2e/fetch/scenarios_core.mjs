// The original fetch scenarios, run inside the private network namespace: HTTP fixtures on
// PUBLIC_V4, a canary on 127.0.0.1 at the same port, the zones of fetch_e2e.mjs on the fake DNS.
// Each gets ctx = { fetch(url, ...flags) -> parsed JSON result, run(argv), http, dns, canary,
// dnsArgs, hasExtract } and throws on failure.
import assert from 'node:assert/strict';

import { PUBLIC_V4 } from '../../support/netns/netns.mjs';
import { assertError, sha256Ref, SHORT_DEADLINE_MS } from './fetch_assert.mjs';

export const coreScenarios = {
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
    assertError(await fetch(`http://[::ffff:${PUBLIC_V4}]:${http.port}/text`), 'blocked_address');
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
