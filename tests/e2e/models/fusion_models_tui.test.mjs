/**
 * @file /fusion-models in the real pinned Pi: the TUI selector driven through tmux (a private
 * server socket, killed at the end), and the refusal outside the TUI. Assertions read what a
 * person sees (capture-pane) and the bytes on disk.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { createPiEnv, PINNED_NODE, PI_CLI, REPO_ROOT } from "../../support/pi_harness.mjs";

const PLUGIN = path.join(REPO_ROOT, "extensions", "fusion.ts");
const V1 = "pi-background-tasks.fusion-models.v1";
const WAIT_MS = 30000;

/** One Pi TUI in its own tmux server. */
class TmuxPi {
  constructor(env) {
    this.socket = `pi-fusion-models-${process.pid}-${Date.now()}`;
    // The pane starts from an empty environment: only what the harness gives Pi.
    const vars = Object.entries(env.env({ TERM: "xterm-256color" })).map(([k, v]) => `${k}=${quote(v)}`);
    const argv = [PINNED_NODE, PI_CLI, ...env.argv([], { extensions: [PLUGIN] })].map(quote);
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

  async waitFor(what, pred) {
    const deadline = Date.now() + WAIT_MS;
    let last = "";
    while (Date.now() < deadline) {
      last = this.screen();
      if (pred(last)) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`timed out waiting for ${what}; screen:\n${last}`);
  }

  waitForText(text) {
    return this.waitFor(JSON.stringify(text), (s) => s.includes(text));
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

/** A metered-looking route next to the scripted ones: available (it has a key), but refused. */
function withMeteredModel(env) {
  const models = JSON.parse(fs.readFileSync(path.join(env.agentDir, "models.json"), "utf8"));
  models.providers.metered = {
    baseUrl: `${env.server.url}/v1`,
    api: "openai-completions",
    apiKey: "metered-key",
    models: [{ id: "gpt-4o-mini", name: "Metered GPT", input: ["text"], contextWindow: 128000, maxTokens: 4096 }],
  };
  env.writeAgentFile("models.json", JSON.stringify(models, null, 2));
}

async function openSelector(pi, configPath) {
  pi.type("/fusion-models");
  pi.keys("Enter");
  await pi.waitForText(`Fusion models: ${configPath}`);
}

describe("/fusion-models", () => {
  test("the TUI selector: slots and path, Esc writes nothing, refused models, save, conflict", async () => {
    const env = await createPiEnv({});
    withMeteredModel(env);
    const configPath = path.join(env.agentDir, "fusion-models.json");
    const pi = new TmuxPi(env);
    try {
      await pi.waitForText("scripted-a");  // the footer names the model: Pi is ready

      // Five slots, the absolute path, $current everywhere and the no-diversity note.
      await openSelector(pi, configPath);
      let screen = await pi.waitForText("Merger");
      for (const slot of ["> Candidate 1", "  Candidate 2", "  Candidate 3", "  Evaluator", "  Merger"]) {
        assert.match(screen, new RegExp(`${slot} +\\$current \\(scripted/scripted-a\\)`), screen);
      }
      assert.ok(path.isAbsolute(configPath));
      assert.match(screen, /Five slots, one model: no diversity \(scripted\/scripted-a\)\./);
      assert.match(screen, /Evaluator uses the same model as Candidates 1, 2, 3 .*self-preference risk/);

      // Esc closes without writing anything; with no edits it says nothing.
      pi.keys("Escape");
      screen = await pi.waitFor("the selector to close", (s) => !s.includes("Fusion models:"));
      assert.equal(fs.existsSync(configPath), false);
      assert.doesNotMatch(screen, /Closed without saving/);

      // After an edit, Esc says that nothing was saved.
      await openSelector(pi, configPath);
      pi.type("r");  // resetting Candidate 1 to $current is no change: still silent below
      pi.keys("Down");
      pi.keys("Enter");
      await pi.waitForText("Filter: _");
      pi.type("scripted/scripted-b");
      await pi.waitForText("> scripted/scripted-b  Scripted B");
      pi.keys("Enter");
      await pi.waitForText("> Candidate 2  scripted/scripted-b");
      pi.keys("Escape");
      await pi.waitForText("Closed without saving: your changes");
      assert.equal(fs.existsSync(configPath), false);

      // A refused model is listed with its reason and cannot be picked.
      await openSelector(pi, configPath);
      pi.keys("Enter");
      await pi.waitForText("Filter: _");
      pi.type("gpt");
      await pi.waitForText("Filter: gpt_");
      screen = await pi.waitForText("> metered/gpt-4o-mini  Metered GPT  [refused]");
      assert.match(screen, /metered\/gpt-4o-mini is a frontier route \(model segment "gpt"\)/);
      pi.keys("Enter");
      await pi.waitForText("Cannot pick metered/gpt-4o-mini: it is a frontier route");
      pi.keys("Escape");
      screen = await pi.waitForText("> Candidate 1  $current");

      // Picking a model and `s` writes a valid v1 file; the topology notes follow the picks.
      pi.keys("Enter");
      await pi.waitForText("Filter: _");
      pi.type("scripted/scripted-b");
      await pi.waitForText("Filter: scripted/scripted-b_");
      await pi.waitForText("> scripted/scripted-b  Scripted B");
      pi.keys("Enter");
      screen = await pi.waitForText("> Candidate 1  scripted/scripted-b");
      assert.doesNotMatch(screen, /Five slots, one model/);
      assert.match(screen, /Evaluator uses the same model as Candidates 2, 3 \(scripted\/scripted-a\)/);
      pi.type("s");
      await pi.waitForText(`Saved Fusion's models to ${configPath}`);
      const saved = JSON.parse(fs.readFileSync(configPath, "utf8"));
      assert.deepEqual(saved, {
        schema_version: V1,
        candidates: ["scripted/scripted-b", "$current", "$current"],
        evaluator: "$current",
        merger: "$current",
      });
      assert.equal(fs.statSync(configPath).mode & 0o777, 0o600);

      // A file changed behind the selector is not overwritten; the conflict is on screen.
      await openSelector(pi, configPath);
      screen = await pi.waitForText("> Candidate 1  scripted/scripted-b");
      pi.keys("Down");
      pi.keys("Enter");
      await pi.waitForText("Filter: _");
      pi.type("scripted/scripted-c");
      await pi.waitForText("Filter: scripted/scripted-c_");
      pi.keys("Enter");
      await pi.waitForText("> Candidate 2  scripted/scripted-c");
      const theirs = `${JSON.stringify({ ...saved, merger: "scripted/scripted-a" }, null, 2)}\n`;
      fs.writeFileSync(configPath, theirs);
      pi.type("s");
      screen = await pi.waitForText("Conflict, nothing was written");
      assert.match(screen, /the file changed since \/fusion-models loaded it/);
      assert.equal(fs.readFileSync(configPath, "utf8"), theirs);
      pi.type("q");
      await pi.waitFor("the selector to close", (s) => !s.includes("Fusion models:"));
      assert.equal(fs.readFileSync(configPath, "utf8"), theirs);

      // Showing and saving cost no model call.
      assert.equal(env.requests().length, 0);
    } finally {
      await pi.kill();
      await env.cleanup();
    }
  });

  test("an invalid file is shown with its path and replaced only after y", async () => {
    const env = await createPiEnv({});
    const configPath = env.writeAgentFile("fusion-models.json", '{"schema_version": 3}');
    const pi = new TmuxPi(env);
    try {
      await pi.waitForText("scripted-a");
      await openSelector(pi, configPath);
      await pi.waitForText(`Invalid ${configPath}:`);
      pi.type("s");
      await pi.waitForText(`Fusion models: replace the invalid file ${configPath}?`);
      pi.type("n");
      await pi.waitForText("Saving replaces this file (you will be asked to confirm).");
      assert.equal(fs.readFileSync(configPath, "utf8"), '{"schema_version": 3}');
      pi.type("s");
      await pi.waitForText("y replace the file");
      pi.type("y");
      await pi.waitForText(`Saved Fusion's models to ${configPath}`);
      assert.equal(JSON.parse(fs.readFileSync(configPath, "utf8")).schema_version, V1);
    } finally {
      await pi.kill();
      await env.cleanup();
    }
  });

  test("outside the TUI it refuses with the exact text and a non-zero exit in print mode", async () => {
    const env = await createPiEnv({});
    try {
      const r = await env.print("/fusion-models", { extensions: [PLUGIN] });
      assert.notEqual(r.code, 0);
      assert.ok(r.stderr.split("\n").includes("/fusion-models requires Pi TUI mode"), r.stderr);
      assert.equal(fs.existsSync(path.join(env.agentDir, "fusion-models.json")), false);
      assert.equal(env.requests().length, 0);
    } finally {
      await env.cleanup();
    }
  });

  test("a preflight refusal that points to /fusion-models names the config file", async () => {
    const env = await createPiEnv({});
    try {
      const configPath = env.writeAgentFile("fusion-models.json", JSON.stringify({
        schema_version: V1,
        candidates: ["$current", "gone/model-x", "$current"],
        evaluator: "$current",
        merger: "$current",
      }));
      const r = await env.print("/fusion Why is the sky blue?", { extensions: [PLUGIN] });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Candidate 2 model gone\/model-x is not available/);
      assert.ok(r.stderr.includes(`with /fusion-models. Fusion's model config: ${configPath}.`), r.stderr);

      // Pi expands a leading "~" in PI_CODING_AGENT_DIR; so does Fusion, and the path is absolute.
      fs.cpSync(env.agentDir, path.join(env.home, "agent"), { recursive: true });
      const tilde = await env.print("/fusion Why is the sky blue?", { extensions: [PLUGIN], env: { PI_CODING_AGENT_DIR: "~/agent" } });
      assert.notEqual(tilde.code, 0);
      const homeConfig = path.join(env.home, "agent", "fusion-models.json");
      assert.ok(tilde.stderr.includes(`Fusion's model config: ${homeConfig}.`), tilde.stderr);
    } finally {
      await env.cleanup();
    }
  });
});
