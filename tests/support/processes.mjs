/**
 * @file Finding the processes a test's Pi environment started, reliably. Never by command line:
 * Pi rewrites its process title to `pi`, so a child Pi's `/proc/<pid>/cmdline` does not show its
 * flags. Instead:
 *   - environment: every Pi the harness starts, every child Pi and every tool they run (ripgrep,
 *     fd) inherits `PI_CODING_AGENT_DIR=<the env's agent dir>`, which is unique to the test;
 *   - the process tree: a snapshot of a root pid's descendants, taken while they still hang under
 *     it, covers processes started with a clean environment (the research fetcher).
 * A pid is compared together with its start time, so a reused pid is never mistaken for ours.
 */
import fs from "node:fs";

/** {state, ppid, start} of `pid` from /proc/<pid>/stat, or null when it is gone. */
export function procStat(pid) {
  let line;
  try {
    line = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // The command name may itself contain ") ": split after the last one.
  const rest = line.slice(line.lastIndexOf(")") + 2).split(" ");
  return { state: rest[0], ppid: Number(rest[1]), start: rest[19] };
}

function allPids() {
  return fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
}

function alive(stat) {
  return stat !== null && stat.state !== "Z" && stat.state !== "X";
}

/** Live processes (pid -> start time) whose environment holds PI_CODING_AGENT_DIR=<env.agentDir>. */
export function envProcesses(env) {
  const marker = `PI_CODING_AGENT_DIR=${env.agentDir}`;
  const found = new Map();
  for (const pid of allPids()) {
    if (pid === process.pid) continue;
    try {
      if (!fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(marker)) continue;
    } catch {
      continue;  // not ours to read, or gone
    }
    const stat = procStat(pid);
    if (alive(stat)) found.set(pid, stat.start);
  }
  return found;
}

/** `root` and its live descendants now (pid -> start time). */
export function processTree(root) {
  const children = new Map();
  const stats = new Map();
  for (const pid of allPids()) {
    const stat = procStat(pid);
    if (!alive(stat)) continue;
    stats.set(pid, stat);
    if (!children.has(stat.ppid)) children.set(stat.ppid, []);
    children.get(stat.ppid).push(pid);
  }
  const found = new Map();
  const queue = stats.has(root) ? [root] : [];
  while (queue.length > 0) {
    const pid = queue.shift();
    found.set(pid, stats.get(pid).start);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

/** The processes of a snapshot (pid -> start time) that still run: same pid, same start time. */
export function stillRunning(snapshot) {
  return [...snapshot].filter(([pid, start]) => {
    const stat = procStat(pid);
    return alive(stat) && stat.start === start;
  }).map(([pid]) => pid);
}

/** Polls until nothing of `snapshot` runs, for up to `ms`; returns what still runs (empty = all gone). */
export async function waitAllGone(snapshot, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = stillRunning(snapshot);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `pid: comm` lines, for assertion messages. */
export function describePids(pids) {
  return pids.map((pid) => {
    try {
      return `${pid}: ${fs.readFileSync(`/proc/${pid}/comm`, "utf8").trim()}`;
    } catch {
      return `${pid}: (gone)`;
    }
  }).join(", ");
}
