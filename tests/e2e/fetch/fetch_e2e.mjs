// Process-level tests of `pi-fusion fetch`: the real binary, libcurl and c-ares, against a fake
// DNS server on 127.0.0.1 and HTTP fixtures on a public address (PUBLIC_V4) that exists only in a
// private network namespace this script re-runs itself in (tests/support/netns/netns.mjs); when
// no namespace can be made it exits with SKIP_EXIT_CODE and says why. Host scenarios
// (scenarios_host.mjs) run in the machine's own namespace.
//   node fetch_e2e.mjs --pi-fusion PATH --scenario NAME [--has-extract 1] [--sanitized 1]
// (--sanitized 1: pi-fusion is an AddressSanitizer build, which sets no address-space limit)
//   node fetch_e2e.mjs --list          (scenario names; CMake registers one ctest test each)
// No traffic leaves the machine: the namespace has no route out, every run passes --dns-servers,
// and proxy variables point at a dead loopback port to prove the fetcher ignores them.
import { spawn } from 'node:child_process';

import { startFakeDns } from '../../support/fake_dns/fake_dns.mjs';
import { startCanary, startHttpFixtures } from '../../support/http_fixtures/http_fixtures.mjs';
import {
  enterNetnsOrExit, PUBLIC_V4, PUBLIC_V4_SECOND, PUBLIC_V4_UNREACHABLE,
} from '../../support/netns/netns.mjs';
import { coreScenarios } from './scenarios_core.mjs';
import { hardeningScenarios } from './scenarios_hardening.mjs';
import { hostScenarios } from './scenarios_host.mjs';

const netnsScenarios = { ...coreScenarios, ...hardeningScenarios };
const allScenarios = { ...hostScenarios, ...netnsScenarios };

// Blocked destinations that exist inside the namespace, each with a canary listening on the
// fixture port: a fetch that wrongly went there would be counted (loopback, the cloud metadata
// address, the Azure platform address).
const CANARY_HOSTS = ['127.0.0.1', '169.254.169.254', '168.63.129.16'];

// Names the fake DNS answers inside the namespace. PUBLIC_V4_SECOND is on lo with nothing
// listening (connection refused); PUBLIC_V4_UNREACHABLE is nowhere (no route).
const ZONES = {
  'example.test': { A: [PUBLIC_V4] },
  'azure.test': { A: ['168.63.129.16'] },
  'metadata.test': { A: ['169.254.169.254'] },
  'isatap.test': { A: [PUBLIC_V4], AAAA: ['2001:4860:1:2:0:5efe:7f00:1'] },
  'multi.test': { A: [PUBLIC_V4_UNREACHABLE, PUBLIC_V4_SECOND, PUBLIC_V4] },
  'down.test': { A: [PUBLIC_V4_UNREACHABLE, PUBLIC_V4_SECOND] },
  'mixed4.test': { A: [PUBLIC_V4, '10.0.0.1'] },
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
    // A fetcher that exits before reading stdin (it only reads with --stdio) closes the pipe.
    child.stdin.on('error', (err) => { if (err.code !== 'EPIPE') reject(err); });
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

async function runInNetns(test, { piFusion, hasExtract, sanitized }) {
  const http = await startHttpFixtures({ host: PUBLIC_V4 });
  const canaries = await Promise.all(CANARY_HOSTS.map((host) => startCanary({ host, port: http.port })));
  // canary.connections(): connections to any blocked destination; canary.hosts to reach them.
  const canary = {
    hosts: CANARY_HOSTS,
    connections: () => canaries.reduce((sum, c) => sum + c.connections(), 0),
  };
  const dns = await startFakeDns({ zones: ZONES });
  const dnsArgs = ['--dns-servers', dns.server];
  const run = (argv, opts) => runFetch(piFusion, argv, opts);
  const fetch = (url, ...flags) => fetchJson(piFusion, [...dnsArgs, ...flags], url);
  try {
    await test({ fetch, run, http, dns, canary, dnsArgs, hasExtract, sanitized, piFusion });
  } finally {
    await Promise.all([http.close(), dns.close(), ...canaries.map((c) => c.close())]);
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
  const sanitized = args.sanitized === '1';
  if (!piFusion || !allScenarios[scenario]) {
    console.error(`usage: fetch_e2e.mjs --pi-fusion PATH --scenario {${Object.keys(allScenarios)}}`);
    process.exit(2);
  }
  if (hostScenarios[scenario]) {
    await hostScenarios[scenario]({ fetchWith: (flags, url) => fetchJson(piFusion, flags, url) });
  } else {
    await enterNetnsOrExit({
      addresses: [PUBLIC_V4, PUBLIC_V4_SECOND, ...CANARY_HOSTS.filter((h) => h !== '127.0.0.1')],
      label: `fetch_e2e.${scenario}`,
    });
    await runInNetns(netnsScenarios[scenario], { piFusion, hasExtract, sanitized });
  }
  console.log(`ok - ${scenario}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
