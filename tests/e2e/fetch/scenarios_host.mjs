// Scenarios that run in the machine's own network namespace, so they run everywhere, root or not.
//
// loopback_alias_refused: every service listening on 0.0.0.0 also answers on any 127/8 alias such
// as 127.0.0.77. The fetcher must refuse such an address however it is spelled or reached, while
// plain Node shows that the server really is reachable there (so the refusal is the fetcher's).
// Each gets ctx = { fetchWith(flags, url) -> parsed JSON result } and throws on failure.
import assert from 'node:assert/strict';
import http from 'node:http';

import { startFakeDns } from '../../support/fake_dns/fake_dns.mjs';
import { startHttpFixtures } from '../../support/http_fixtures/http_fixtures.mjs';
import { assertError } from './fetch_assert.mjs';

const LOOPBACK_ALIAS = '127.0.0.77';
const LOOPBACK_ALIAS_DECIMAL = String((127 << 24 >>> 0) + 77);

function nodeGet(url) {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
}

export const hostScenarios = {
  async loopback_alias_refused({ fetchWith }) {
    const server = await startHttpFixtures({ host: LOOPBACK_ALIAS });
    const dns = await startFakeDns({ zones: { 'alias.test': { A: [LOOPBACK_ALIAS] } } });
    try {
      // The check can see a fetch: the server answers on that address.
      const seen = await nodeGet(`${server.origin}/text`);
      assert.equal(seen.status, 200);
      assert.equal(seen.body, 'hello from the fixture\n');
      assert.equal(server.connections(), 1);
      const { port } = server;
      for (const url of [`${server.origin}/text`, `http://0x7f.0.0.77:${port}/text`,
        `http://${LOOPBACK_ALIAS_DECIMAL}:${port}/text`]) {
        assertError(await fetchWith(['--dns-servers', dns.server], url), 'blocked_address',
          /127\.0\.0\.77 is loopback/);
      }
      assertError(await fetchWith(['--dns-servers', dns.server], `http://alias.test:${port}/text`),
        'blocked_address', /alias\.test resolves to a blocked address: .*127\.0\.0\.77 is loopback/);
      assert.equal(server.connections(), 1, 'pi-fusion fetch connected to the loopback alias');
      assert.equal(server.requests.length, 1);
    } finally {
      await Promise.all([server.close(), dns.close()]);
    }
  },
};
