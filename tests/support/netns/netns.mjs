// A private network namespace for tests and benchmarks that need a "public" address.
//
// The fetcher refuses every non-public address in every build, so a fixture server on loopback is
// unreachable for it by design. Instead the calling script re-runs itself inside a fresh network
// namespace (`unshare -n`), where it brings `lo` up and gives it globally routable addresses that
// exist only there. Nothing in that namespace can reach beyond the machine: it has no other
// interface and no route, so an address the code wrongly let through fails to connect instead of
// leaving. Everything the script starts (fixture servers, fake DNS, pi-fusion, Pi) inherits the
// namespace, and the namespace disappears with the last of those processes.
//
//   const ns = await enterNetnsOrExit({ addresses: [PUBLIC_V4] });   // first statement of main()
//
// With `privateResolvConf: true` the namespace also gets a mount namespace of its own, where
// /etc/resolv.conf is replaced (bind mount) by one naming only 127.0.0.1: a fake DNS server on
// 127.0.0.1:53 then answers every process that reads the system resolver configuration, such as
// `pi-fusion fetch` started by Pi without --dns-servers. The host's file is untouched.
//
// Outside the namespace enterNetnsOrExit() re-executes `process.argv` under `unshare -n` (as
// root; otherwise `unshare -rn`, an unprivileged user namespace, where the kernel allows it),
// waits, and exits with the child's status; it never returns there. When no namespace can be
// made it prints why and exits with SKIP_EXIT_CODE (registered as ctest's SKIP_RETURN_CODE), so a
// skip is always visible. Inside, it configures the addresses and returns.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { plainToolEnv } from '../sanitizer_env.mjs';

// Globally routable addresses (not in any special-purpose registry), used only inside the
// namespace. The "unreachable" one is public but configured nowhere: connecting to it fails at
// once (no route), like an IPv6 answer on an IPv4-only network.
export const PUBLIC_V4 = '93.184.215.14';
export const PUBLIC_V4_SECOND = '93.184.215.15';
export const PUBLIC_V4_UNREACHABLE = '93.184.215.99';
export const SKIP_EXIT_CODE = 77;
const MARKER = 'PI_FUSION_IN_NETNS';

function unshareArgs(mount) {
  return [...(process.getuid?.() === 0 ? [] : ['-r']), '-n', ...(mount ? ['-m'] : [])];
}

// Why no namespace can be made here, or null when one can.
function whyNoNetns(mount) {
  if (process.platform !== 'linux') return `network namespaces need Linux (this is ${process.platform})`;
  const probe = spawnSync('unshare', [...unshareArgs(mount), 'ip', 'link', 'set', 'lo', 'up'],
    { encoding: 'utf8', env: plainToolEnv() });
  if (probe.error?.code === 'ENOENT') return 'the unshare command is missing (Debian: util-linux)';
  if (probe.error) return `unshare failed: ${probe.error.message}`;
  if (probe.status === 0) return null;
  const detail = probe.stderr.trim() || `exit ${probe.status}`;
  if (/ip: (command )?not found|No such file or directory/.test(detail)) {
    return `the ip command is missing (Debian: iproute2, installed by scripts/setup): ${detail}`;
  }
  const who = process.getuid?.() === 0 ? 'root' : 'a non-root user (try as root)';
  return `cannot create a network namespace as ${who}: ${detail}`;
}

// ip and mount run without the sanitizer runtime of a sanitized test (sanitizer_env.mjs).
function configure(addresses, privateResolvConf) {
  const env = plainToolEnv();
  execFileSync('ip', ['link', 'set', 'lo', 'up'], { env });
  for (const address of addresses) {
    const prefix = address.includes(':') ? 128 : 32;
    execFileSync('ip', ['addr', 'add', `${address}/${prefix}`, 'dev', 'lo'], { env });
  }
  if (privateResolvConf) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-fusion-netns-'));
    const file = path.join(dir, 'resolv.conf');
    fs.writeFileSync(file, 'nameserver 127.0.0.1\noptions timeout:1 attempts:1\n');
    execFileSync('mount', ['--bind', file, '/etc/resolv.conf'], { env });
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
}

export function inNetns() {
  return process.env[MARKER] === '1';
}

// See the file comment. `addresses` are added to lo inside the namespace.
export async function enterNetnsOrExit({ addresses = [PUBLIC_V4], label = 'test',
  privateResolvConf = false } = {}) {
  if (inNetns()) {
    configure(addresses, privateResolvConf);
    return { addresses };
  }
  const reason = whyNoNetns(privateResolvConf);
  if (reason) {
    console.error(`SKIPPED ${label}: needs a private network namespace for a public address; ${reason}`);
    process.exit(SKIP_EXIT_CODE);
  }
  const child = spawn('unshare',
    [...unshareArgs(privateResolvConf), '--', process.execPath, ...process.execArgv,
      ...process.argv.slice(1)],
    { stdio: 'inherit', env: { ...process.env, [MARKER]: '1' } });
  const forward = (signal) => child.kill(signal);
  process.on('SIGTERM', forward);
  process.on('SIGINT', forward);
  const [code, signal] = await new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
  process.exit(code ?? (signal ? 128 + 15 : 1));
}
