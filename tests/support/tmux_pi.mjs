/**
 * @file One Pi TUI in its own tmux server (a private socket, ended by kill()), for end-to-end
 * tests that drive the TUI the way a person does: type, press keys, read the screen.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { PINNED_NODE, PI_CLI } from "./pi_harness.mjs";

const WAIT_MS = 30000;

/** One Pi TUI in its own tmux server. */
export class TmuxPi {
  /** Starts Pi's TUI for `env` with `extensions` loaded (`-e` each). */
  constructor(env, extensions = []) {
    this.socket = `pi-fusion-models-${process.pid}-${Date.now()}`;
    // The pane starts from an empty environment: only what the harness gives Pi.
    const vars = Object.entries(env.env({ TERM: "xterm-256color" })).map(([k, v]) => `${k}=${quote(v)}`);
    const argv = [PINNED_NODE, PI_CLI, ...env.argv([], { extensions })].map(quote);
    const script = path.join(env.tmp, "tui.sh");
    fs.writeFileSync(script, `#!/bin/sh\ncd ${quote(env.cwd)} || exit 1\nexec env -i ${vars.join(" ")} ${argv.join(" ")}\n`, { mode: 0o700 });
    this.tmux("new-session", "-d", "-s", "ui", "-x", "160", "-y", "48", script);
    // The pane's process is Pi itself (the script execs it).
    this.pid = Number(this.tmux("display-message", "-p", "-t", "ui", "#{pane_pid}").trim());
  }

  tmux(...args) {
    return execFileSync("tmux", ["-L", this.socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
  }

  screen() {
    return this.tmux("capture-pane", "-p", "-t", "ui");
  }

  keys(...keys) {
    this.tmux("send-keys", "-t", "ui", ...keys);
  }

  type(text) {
    this.tmux("send-keys", "-t", "ui", "-l", text);
  }

  async waitFor(what, pred, timeoutMs = WAIT_MS) {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    while (Date.now() < deadline) {
      last = this.screen();
      if (pred(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`timed out waiting for ${what}; screen:\n${last}`);
  }

  waitForText(text, timeoutMs = WAIT_MS) {
    return this.waitFor(JSON.stringify(text), (s) => s.includes(text), timeoutMs);
  }

  /** Ends the tmux server, then waits until Pi has exited (it may still be writing its caches). */
  async kill() {
    try {
      this.tmux("kill-server");
    } catch {
      // already gone
    }
    const deadline = Date.now() + 5000;
    while (fs.existsSync(`/proc/${this.pid}`)) {
      if (Date.now() > deadline) {
        try {
          process.kill(this.pid, "SIGKILL");
        } catch {
          // exited meanwhile
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function quote(s) {
  return `'${String(s).replaceAll("'", `'\\''`)}'`;
}
