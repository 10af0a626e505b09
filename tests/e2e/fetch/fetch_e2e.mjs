// Process-level tests of `pi-fusion fetch`: the real binary, libcurl and c-ares, against a fake
// DNS server on 127.0.0.1 and HTTP fixtures on a public address (PUBLIC_V4) that exists only in a
// private network namespace this script re-runs itself in (tests/support/netns/netns.mjs); when
// no namespace can be made it exits with SKIP_EXIT_CODE and says why. Host scenarios
// (scenarios_host.mjs) run in the machine's own namespace.
//   node fetch_e2e.mjs --pi-fusion PATH --scenario NAME [--has-extract 1]
//   node fetch_e2e.mjs --list          (scenario names; CMake registers one ctest test each)
// No traffic leaves the machine: the namespace has no route out, every run passes --dns-servers,
// and proxy variables point at a dead loopback port to prove the fetcher ignores them.
import { spawn } from 'node:child_process';

import { startFakeDns } from '../../support/fake_dns/fake_dns.mjs';
import { startCanary, startHttpFixtures } from '../../support/http_fixtures/http_fixtures.mjs';
import { enterNetnsOrExit, PUBLIC_V4 } from '../../support/netns/netns.mjs';
import { coreScenarios } from './scenarios_core.mjs';
import { hostScenarios } from './scenarios_host.mjs';

const netnsScenarios = { ...coreScenarios };
const allScenarios = { ...hostScenarios, ...netnsScenarios };

// Names the fake DNS answers inside the namespace.
const ZONES = {
  'example.test': { A: [PUBLIC_V4] },
  'inside.test': { A: ['127.0.0.1'] },
  'rebind.test': { A: (n) => (n === 0 ? [PUBLIC_V4] : ['127.0.0.1']) },
  'mixed.test': { A: [PUBLIC_V4], AAAA: ['::1'] },
  'silent.test': 'silent',
};

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

// `pi-fusion fetch --json FLAGS URL`, its JSON line parsed.
async function fetchJson(piFusion, flags, url) {
  const r = await runFetch(piFusion, ['--json', ...flags, url]);
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout} ${r.stderr}`);
  }
  return { ...r, json, raw: r.stdout };
}

async function runInNetns(test, { piFusion, hasExtract }) {
  const http = await startHttpFixtures({ host: PUBLIC_V4 });
  const canary = await startCanary({ host: '127.0.0.1', port: http.port });
  const dns = await startFakeDns({ zones: ZONES });
  const dnsArgs = ['--dns-servers', dns.server];
  const run = (argv, opts) => runFetch(piFusion, argv, opts);
  const fetch = (url, ...flags) => fetchJson(piFusion, [...dnsArgs, ...flags], url);
  try {
    await test({ fetch, run, http, dns, canary, dnsArgs, hasExtract });
  } finally {
    await Promise.all([http.close(), canary.close(), dns.close()]);
  }
}

async function main() {
  if (process.argv[2] === '--list') {  // CMake registers one ctest test per scenario
    console.log(Object.keys(allScenarios).join(';'));
    return;
  }
  const args = parseArgs(process.argv.slice(2));
  const { 'pi-fusion': piFusion, scenario } = args;
  const hasExtract = args['has-extract'] === '1';
  if (!piFusion || !allScenarios[scenario]) {
    console.error(`usage: fetch_e2e.mjs --pi-fusion PATH --scenario {${Object.keys(allScenarios)}}`);
    process.exit(2);
  }
  if (hostScenarios[scenario]) {
    await hostScenarios[scenario]({ fetchWith: (flags, url) => fetchJson(piFusion, flags, url) });
  } else {
    await enterNetnsOrExit({ addresses: [PUBLIC_V4], label: `fetch_e2e.${scenario}` });
    await runInNetns(netnsScenarios[scenario], { piFusion, hasExtract });
  }
  console.log(`ok - ${scenario}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
