/**
 * @file Pi's interactive TUI inside tmux, for tests that assert on what a person reads. Each
 * session has its own tmux server socket (`tmux -L`) and no configuration file (`-f /dev/null`),
 * so nothing else is touched or read; stop() kills that server and with it Pi. The environment is
 * the harness's isolated one (pi_harness.mjs).
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { PI_CLI, PINNED_NODE } from "./pi_harness.mjs";
import { envProcesses } from "./processes.mjs";

function shellQuote(s) {
  return `'${String(s).replaceAll("'", `'\\''`)}'`;
}

export class TmuxPi {
  /**
   * Starts interactive Pi for `env` (a PiEnv). `opts`: {args, extensions, session, width, height,
   * env} as for PiEnv.argv / PiEnv.env; `scrollback: false` makes screen() the visible screen only;
   * `keepAfterExit: true` keeps the pane (and what Pi wrote on its way out) once Pi has exited.
   */
  constructor(env, opts = {}) {
    this.env = env;
    this.scrollback = opts.scrollback ?? true;
    this.socket = `pi-fusion-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
    const vars = env.env({ TERM: "xterm-256color", ...(opts.env ?? {}) });
    const argv = env.argv([], opts);
    const script = path.join(env.tmp, `${this.socket}.sh`);
    const exports = Object.entries(vars).map(([k, v]) => `export ${k}=${shellQuote(v)}`);
    fs.writeFileSync(script, [
      "#!/bin/sh",
      "unset $(env | cut -d= -f1 | grep -v '^PATH$')",
      ...exports,
      `cd ${shellQuote(env.cwd)}`,
      `exec ${[env.options.node ?? PINNED_NODE, env.options.piCli ?? PI_CLI, ...argv].map(shellQuote).join(" ")}`,
    ].join("\n") + "\n", { mode: 0o700 });
    const keep = opts.keepAfterExit ? [";", "set-option", "-t", "ui", "remain-on-exit", "on"] : [];
    this.tmux("new-session", "-d", "-s", "ui", "-x", String(opts.width ?? 160), "-y", String(opts.height ?? 48), script, ...keep);
  }

  /** Whether Pi has exited (only a pane kept with `keepAfterExit` outlives it). */
  exited() {
    try {
      return this.tmux("display-message", "-p", "-t", "ui", "#{pane_dead}").trim() === "1";
    } catch {
      return true;
    }
  }

  tmux(...args) {
    return execFileSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  }

  /** The screen as text, with the scrollback (the transcript above the editor) unless turned off. */
  screen() {
    try {
      return this.scrollback ? this.tmux("capture-pane", "-p", "-J", "-S", "-3000", "-t", "ui") : this.tmux("capture-pane", "-p", "-t", "ui");
    } catch {
      return "";
    }
  }

  /** Waits until Pi's footer names the default model: the TUI is ready for input. */
  ready() {
    return this.waitFor(/scripted-a/, 30000, "Pi's footer");
  }

  /**
   * Waits until `test(screen)` holds (a RegExp or a function) on two captures 100 ms apart and
   * returns the later one: tmux may be captured while it is still drawing a large frame (a loaded
   * machine splits Pi's write), so the first capture can hold the test with the frame's tail missing.
   */
  async waitFor(test, timeoutMs = 30000, what = String(test)) {
    const deadline = Date.now() + timeoutMs;
    const holds = typeof test === "function" ? test : (s) => test.test(s);
    for (;;) {
      const s = this.screen();
      if (holds(s)) {
        await sleep(100);
        const settled = this.screen();
        if (holds(settled)) return settled;
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${s}`);
      await sleep(150);
    }
  }

  /** Types `text` literally, then Enter. */
  async submit(text) {
    this.type(text);
    await sleep(150);
    this.tmux("send-keys", "-t", "ui", "Enter");
  }

  /** Types `text` literally. */
  type(text) {
    this.tmux("send-keys", "-t", "ui", "-l", text);
  }

  keys(...keys) {
    this.tmux("send-keys", "-t", "ui", ...keys);
  }

  /**
   * Kills this tmux server, then every process still running in this env's Pi environment (the
   * TUI Pi and Fusion children, which live in process groups of their own), and waits up to 5 s
   * for them to be gone, so the env's temp dir can be removed. Idempotent.
   */
  stop() {
    try {
      this.tmux("kill-server");
    } catch {
      // already gone
    }
    const ours = () => [...envProcesses(this.env).keys()];
    const deadline = Date.now() + 5000;
    for (let left = ours(); left.length > 0 && Date.now() < deadline; left = ours()) {
      for (const pid of left) {
        try { process.kill(Number(pid), "SIGKILL"); } catch { /* gone */ }
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
}

/** Runs `body(ui)` with interactive Pi for `env` (`opts` as for TmuxPi) and always stops it. */
export async function withTmuxPi(env, opts, body) {
  const ui = new TmuxPi(env, opts);
  try {
    return await body(ui);
  } finally {
    ui.stop();
  }
}

/**
 * The first expanded block of candidate `slot` on a captured `screen` of a finished run (a run on
 * the scripted routes): from its heading to the next candidate's.
 */
export function candidateSection(screen, slot) {
  const start = screen.search(new RegExp(`Candidate ${slot} \\([ABC]\\) scripted/`));
  if (start < 0) throw new Error(`candidate ${slot} is not shown:\n${screen}`);
  const rest = screen.slice(start + 1);
  const end = rest.search(/Candidate \d \([ABC]\) scripted\//);
  return end < 0 ? rest : rest.slice(0, end);
}
