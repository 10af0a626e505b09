/**
 * @file /fusion-models in the real pinned Pi: the TUI selector driven through tmux (a private
 * server socket, killed at the end), and the refusal outside the TUI. Assertions read what a
 * person sees (capture-pane) and the bytes on disk.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { FUSION_MODELS_V1 as V1, writeFusionModels } from "../../support/fusion_script.mjs";
import { PLUGIN, withPiEnv } from "../../support/pi_harness.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const WAIT_MS = 30000;

/**
 * Runs `body(pi)` with Pi's TUI in `env`. The selector is asserted on the visible screen alone,
 * so a frame scrolled away is never read as the current one.
 */
function withTui(env, body) {
  return withTmuxPi(env, { scrollback: false }, body);
}

/** Waits until the visible screen holds `text`; returns the screen. */
function waitForText(pi, text) {
  return pi.waitFor((s) => s.includes(text), WAIT_MS, JSON.stringify(text));
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
  await waitForText(pi, `Fusion models: ${configPath}`);
}

describe("/fusion-models", () => {
  test("the TUI selector: slots and path, Esc writes nothing, refused models, save, conflict", () => withPiEnv({ extensions: [PLUGIN] }, async (env) => {
    withMeteredModel(env);
    const configPath = path.join(env.agentDir, "fusion-models.json");
    await withTui(env, async (pi) => {
      await pi.ready();

      // Five slots, the absolute path, $current everywhere and the no-diversity note.
      await openSelector(pi, configPath);
      let screen = await waitForText(pi, "Merger");
      for (const slot of ["> Candidate 1", "  Candidate 2", "  Candidate 3", "  Evaluator", "  Merger"]) {
        assert.match(screen, new RegExp(`${slot} +\\$current \\(scripted/scripted-a\\)`), screen);
      }
      assert.ok(path.isAbsolute(configPath));
      assert.match(screen, /Five slots, one model: no diversity \(scripted\/scripted-a\)\./);
      assert.match(screen, /All three candidates run on one model \(scripted\/scripted-a\), so their agreement/);
      assert.match(screen, /Evaluator uses the same model as Candidates 1, 2, 3 .*self-preference risk/);

      // Esc closes without writing anything; with no edits it says nothing.
      pi.keys("Escape");
      screen = await pi.waitFor((s) => !s.includes("Fusion models:"), WAIT_MS, "the selector to close");
      assert.equal(fs.existsSync(configPath), false);
      assert.doesNotMatch(screen, /Closed without saving/);

      // After an edit, Esc says that nothing was saved.
      await openSelector(pi, configPath);
      pi.type("r");  // resetting Candidate 1 to $current is no change: still silent below
      pi.keys("Down");
      pi.keys("Enter");
      await waitForText(pi, "Filter: _");
      pi.type("scripted/scripted-b");
      await waitForText(pi, "> scripted/scripted-b  Scripted B");
      pi.keys("Enter");
      await waitForText(pi, "> Candidate 2  scripted/scripted-b");
      pi.keys("Escape");
      await waitForText(pi, "Closed without saving: your changes");
      assert.equal(fs.existsSync(configPath), false);

      // A refused model is listed with its reason and cannot be picked.
      await openSelector(pi, configPath);
      pi.keys("Enter");
      await waitForText(pi, "Filter: _");
      pi.type("gpt");
      await waitForText(pi, "Filter: gpt_");
      screen = await waitForText(pi, "> metered/gpt-4o-mini  Metered GPT  [refused]");
      assert.match(screen, /metered\/gpt-4o-mini is a frontier route \(model segment "gpt"\)/);
      pi.keys("Enter");
      await waitForText(pi, "Cannot pick metered/gpt-4o-mini: it is a frontier route");
      pi.keys("Escape");
      screen = await waitForText(pi, "> Candidate 1  $current");

      // Picking a model and `s` writes a valid v1 file; the topology notes follow the picks.
      pi.keys("Enter");
      await waitForText(pi, "Filter: _");
      pi.type("scripted/scripted-b");
      await waitForText(pi, "Filter: scripted/scripted-b_");
      await waitForText(pi, "> scripted/scripted-b  Scripted B");
      pi.keys("Enter");
      screen = await waitForText(pi, "> Candidate 1  scripted/scripted-b");
      assert.doesNotMatch(screen, /Five slots, one model/);
      assert.match(screen, /Evaluator uses the same model as Candidates 2, 3 \(scripted\/scripted-a\)/);
      pi.type("s");
      await waitForText(pi, `Saved Fusion's models to ${configPath}`);
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
      screen = await waitForText(pi, "> Candidate 1  scripted/scripted-b");
      pi.keys("Down");
      pi.keys("Enter");
      await waitForText(pi, "Filter: _");
      pi.type("scripted/scripted-c");
      await waitForText(pi, "Filter: scripted/scripted-c_");
      pi.keys("Enter");
      await waitForText(pi, "> Candidate 2  scripted/scripted-c");
      const theirs = `${JSON.stringify({ ...saved, merger: "scripted/scripted-a" }, null, 2)}\n`;
      fs.writeFileSync(configPath, theirs);
      pi.type("s");
      screen = await waitForText(pi, "Conflict, nothing was written");
      assert.match(screen, /the file changed since \/fusion-models loaded it/);
      assert.equal(fs.readFileSync(configPath, "utf8"), theirs);
      pi.type("q");
      await pi.waitFor((s) => !s.includes("Fusion models:"), WAIT_MS, "the selector to close");
      assert.equal(fs.readFileSync(configPath, "utf8"), theirs);

      // Showing and saving cost no model call.
      assert.equal(env.requests().length, 0);
    });
  }));

  test("an invalid file is shown with its path and replaced only after y", () => withPiEnv({ extensions: [PLUGIN] }, async (env) => {
    const configPath = env.writeAgentFile("fusion-models.json", '{"schema_version": 3}');
    await withTui(env, async (pi) => {
      await pi.ready();
      await openSelector(pi, configPath);
      await waitForText(pi, `Invalid ${configPath}:`);
      pi.type("s");
      await waitForText(pi, `Fusion models: replace the invalid file ${configPath}?`);
      pi.type("n");
      await waitForText(pi, "Saving replaces this file (you will be asked to confirm).");
      assert.equal(fs.readFileSync(configPath, "utf8"), '{"schema_version": 3}');
      pi.type("s");
      await waitForText(pi, "y replace the file");
      pi.type("y");
      await waitForText(pi, `Saved Fusion's models to ${configPath}`);
      assert.equal(JSON.parse(fs.readFileSync(configPath, "utf8")).schema_version, V1);
    });
  }));

  test("outside the TUI it refuses with the exact text and a non-zero exit in print mode", async () => {
    await withPiEnv({ extensions: [PLUGIN] }, async (env) => {
      const r = await env.print("/fusion-models");
      assert.notEqual(r.code, 0);
      assert.ok(r.stderr.split("\n").includes("/fusion-models requires Pi TUI mode"), r.stderr);
      assert.equal(fs.existsSync(path.join(env.agentDir, "fusion-models.json")), false);
      assert.equal(env.requests().length, 0);
    });
  });

  test("a preflight refusal that points to /fusion-models names the config file", async () => {
    await withPiEnv({ extensions: [PLUGIN] }, async (env) => {
      const configPath = writeFusionModels(env, {
        candidates: ["$current", "gone/model-x", "$current"],
        evaluator: "$current",
        merger: "$current",
      });
      const r = await env.print("/fusion Why is the sky blue?");
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Candidate 2 model gone\/model-x is not available/);
      assert.ok(r.stderr.includes(`with /fusion-models. Fusion's model config: ${configPath}.`), r.stderr);

      // Pi expands a leading "~" in PI_CODING_AGENT_DIR; so does Fusion, and the path is absolute.
      fs.cpSync(env.agentDir, path.join(env.home, "agent"), { recursive: true });
      const tilde = await env.print("/fusion Why is the sky blue?", { env: { PI_CODING_AGENT_DIR: "~/agent" } });
      assert.notEqual(tilde.code, 0);
      const homeConfig = path.join(env.home, "agent", "fusion-models.json");
      assert.ok(tilde.stderr.includes(`Fusion's model config: ${homeConfig}.`), tilde.stderr);
    });
  });
});
