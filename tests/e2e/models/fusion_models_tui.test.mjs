/**
 * @file /fusion-models in the real pinned Pi: the TUI selector driven through tmux (a private
 * server socket, killed at the end), and the refusal outside the TUI. Assertions read what a
 * person sees (capture-pane) and the bytes on disk.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fusionRules, MERGED_TEXT, FUSION_MODELS_V1 as V1, FUSION_MODELS_V2 as V2, writeFusionModels } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
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

/**
 * `s` in the selector, then waits until it has closed: the selector writes the file before it
 * closes, so the file is read only after the save. (The "Saved" notice alone is no proof: an
 * earlier save's notice may still be on screen.)
 */
async function saveAndClose(pi, configPath) {
  pi.type("s");
  await pi.waitFor((s) => !s.includes("Fusion models:"), WAIT_MS, "the selector to close");
  await waitForText(pi, `Saved Fusion's models to ${configPath}`);
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

  test("the policy: quorum 2, grace 20 s and a cost cap save as v2, reopen as saved, and defaults save v1 again", () => withPiEnv({ extensions: [PLUGIN] }, async (env) => {
    const configPath = path.join(env.agentDir, "fusion-models.json");
    const slotsV1 = {
      schema_version: V1,
      candidates: ["$current", "scripted/scripted-b", "$current"],
      evaluator: "$current",
      merger: "$current",
    };
    const v1Bytes = `${JSON.stringify(slotsV1, null, 2)}\n`;
    fs.writeFileSync(configPath, v1Bytes);
    await withTui(env, async (pi) => {
      await pi.ready();

      // The v1 file loads; the policy rows follow the slots with their defaults.
      await openSelector(pi, configPath);
      let screen = await waitForText(pi, "Cost cap");
      assert.match(screen, /  Candidate 2 +scripted\/scripted-b/);
      assert.match(screen, /Policy:\s+Quorum +3 of 3: every candidate must answer/);
      assert.match(screen, /  Grace +default rule: the larger of 15 s and half the second answer's time/);
      assert.match(screen, /  Cost cap +none/);
      assert.match(screen, /  Stall +default rule: 600 s without output, tool call or model-stream progress stops a child/);
      assert.match(screen, /Enter choose a model or change the policy row/);

      // Enter on Quorum switches it to 2.
      for (let i = 0; i < 5; i++) pi.keys("Down");
      await waitForText(pi, "> Quorum");
      pi.keys("Enter");
      await waitForText(pi, "> Quorum       2 of 3: two verified answers suffice");

      // Enter on Grace opens the input; 20 applies.
      pi.keys("Down");
      pi.keys("Enter");
      await waitForText(pi, "Grace (seconds): _");
      pi.type("20");
      await waitForText(pi, "Grace (seconds): 20_");
      pi.keys("Enter");
      await waitForText(pi, "> Grace        20 s");

      // A cost cap that is not an amount is refused on screen and nothing is written.
      pi.keys("Down");
      pi.keys("Enter");
      await waitForText(pi, "Cost cap (US dollars): _");
      pi.type("abc");
      await waitForText(pi, "Cost cap (US dollars): abc_");
      pi.keys("Enter");
      await waitForText(pi, 'Not applied: Cost cap must be an amount in US dollars above 0 such as 0.50, or empty for no cap (found "abc").');
      assert.equal(fs.readFileSync(configPath, "utf8"), v1Bytes);
      for (let i = 0; i < 3; i++) pi.keys("BSpace");
      await waitForText(pi, "Cost cap (US dollars): _");
      pi.type("$0.5");
      await waitForText(pi, "Cost cap (US dollars): $0.5_");
      pi.keys("Enter");
      await waitForText(pi, "> Cost cap     $0.5 per run");

      // Enter on Stall opens the input; 90 applies.
      pi.keys("Down");
      pi.keys("Enter");
      await waitForText(pi, "Stall (seconds): _");
      pi.type("90");
      await waitForText(pi, "Stall (seconds): 90_");
      pi.keys("Enter");
      await waitForText(pi, "> Stall        90 s without output");

      // s writes v3 (a stall bound is a v3 key) with the four values, keys in the contract's order.
      await saveAndClose(pi, configPath);
      const v3 = {
        ...slotsV1,
        schema_version: "pi-background-tasks.fusion-models.v3",
        policy: { quorum: 2, grace_seconds: 20, max_cost_usd: 0.5, stall_seconds: 90 },
      };
      assert.equal(fs.readFileSync(configPath, "utf8"), `${JSON.stringify(v3, null, 2)}\n`);

      // Reopened: the values as saved.
      await openSelector(pi, configPath);
      screen = await waitForText(pi, "Cost cap");
      assert.match(screen, /  Quorum +2 of 3: two verified answers suffice/);
      assert.match(screen, /  Grace +20 s/);
      assert.match(screen, /  Cost cap +\$0\.5 per run/);
      assert.match(screen, /  Stall +90 s without output/);

      // r on each policy row restores its default; the save is the v1 file byte for byte.
      for (let i = 0; i < 5; i++) pi.keys("Down");
      await waitForText(pi, "> Quorum");
      pi.type("r");
      await waitForText(pi, "Quorum reset to 3.");
      pi.keys("Down");
      pi.type("r");
      await waitForText(pi, "Grace reset to the default rule.");
      pi.keys("Down");
      pi.type("r");
      await waitForText(pi, "Cost cap removed.");
      pi.keys("Down");
      pi.type("r");
      await waitForText(pi, "Stall reset to the default rule.");
      await saveAndClose(pi, configPath);
      assert.equal(fs.readFileSync(configPath, "utf8"), v1Bytes);
      assert.equal(env.requests().length, 0);
    });
  }));

  test("a hand-written v2 file with a policy loads in the selector; a half-written policy is refused by key", () => withPiEnv({ extensions: [PLUGIN] }, async (env) => {
    const configPath = writeFusionModels(env, {
      schema_version: V2,
      candidates: ["$current", "$current", "$current"],
      evaluator: "$current",
      merger: "$current",
      policy: { quorum: 2, grace_seconds: null, max_cost_usd: 1.25 },
    });
    await withTui(env, async (pi) => {
      await pi.ready();
      await openSelector(pi, configPath);
      const screen = await waitForText(pi, "Cost cap");
      assert.match(screen, /  Quorum +2 of 3/);
      assert.match(screen, /  Grace +default rule/);
      assert.doesNotMatch(screen, /used with quorum 2 only/);
      assert.match(screen, /  Cost cap +\$1\.25 per run/);
      pi.keys("Escape");
      await pi.waitFor((s) => !s.includes("Fusion models:"), WAIT_MS, "the selector to close");

      fs.writeFileSync(configPath, JSON.stringify({ ...JSON.parse(fs.readFileSync(configPath, "utf8")), policy: { quorum: 2 } }));
      await openSelector(pi, configPath);
      await waitForText(pi, `Invalid ${configPath}: policy missing required key(s): grace_seconds, max_cost_usd`);
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

  test("panels: create one from the cast, rename it, set it default, edit its cast and thinking; the saved v3 file shows it", () => withPiEnv({ extensions: [PLUGIN] }, async (env) => {
    const configPath = writeFusionModels(env, {
      schema_version: V1,
      candidates: ["$current", "scripted/scripted-b", "$current"],
      evaluator: "$current",
      merger: "$current",
    });
    await withTui(env, async (pi) => {
      await pi.ready();
      await openSelector(pi, configPath);
      await waitForText(pi, "Editing the top-level cast (what runs use: no default panel)");

      // p lists the casts; n creates a panel from the top-level cast after a refused name.
      pi.type("p");
      await waitForText(pi, `Fusion models: panels in ${configPath}`);
      await waitForText(pi, "> (top-level cast)  (default)");
      pi.type("n");
      await waitForText(pi, "Panel name: _");
      pi.type("Fast");
      await waitForText(pi, "Panel name: Fast_");
      pi.keys("Enter");
      await waitForText(pi, 'Not applied: "Fast" is not a panel name');
      for (let i = 0; i < 4; i++) pi.keys("BSpace");
      await waitForText(pi, "Panel name: _");
      pi.type("fast");
      await waitForText(pi, "Panel name: fast_");
      pi.keys("Enter");
      await waitForText(pi, "Panel fast created from the top-level cast.");
      await waitForText(pi, "> fast  $current, scripted/scripted-b, $current");

      // r renames it; d makes it the default.
      pi.type("r");
      await waitForText(pi, "Panel name: fast_");
      for (let i = 0; i < 4; i++) pi.keys("BSpace");
      await waitForText(pi, "Panel name: _");
      pi.type("quick");
      await waitForText(pi, "Panel name: quick_");
      pi.keys("Enter");
      await waitForText(pi, "Panel fast renamed to quick.");
      pi.type("d");
      await waitForText(pi, "Default panel: quick.");
      await waitForText(pi, "> quick  (default)");

      // Enter edits its cast: the Merger on scripted-c, thinking off for the merger.
      pi.keys("Enter");
      await waitForText(pi, "Editing panel quick (default)");
      pi.keys("Up");
      await waitForText(pi, "> Merger");
      pi.keys("Enter");
      await waitForText(pi, "Filter: _");
      pi.type("scripted/scripted-c");
      await waitForText(pi, "Filter: scripted/scripted-c_");
      pi.keys("Enter");
      await waitForText(pi, "> Merger       scripted/scripted-c  · thinking inherit");
      pi.type("t");
      await waitForText(pi, "> Merger       scripted/scripted-c  · thinking off");

      await saveAndClose(pi, configPath);
      assert.deepEqual(JSON.parse(fs.readFileSync(configPath, "utf8")), {
        schema_version: "pi-background-tasks.fusion-models.v3",
        candidates: ["$current", "scripted/scripted-b", "$current"],
        evaluator: "$current",
        merger: "$current",
        panels: {
          quick: {
            candidates: ["$current", "scripted/scripted-b", "$current"],
            evaluator: "$current",
            merger: "scripted/scripted-c",
            thinking: { merger: "off" },
          },
        },
        default_panel: "quick",
      });
      assert.equal(env.requests().length, 0);
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

  test("runs load v1 and v2 files; the manifest's config records the policy that was loaded", async () => {
    for (const [schema, policy] of [[V1, undefined], [V2, { quorum: 2, grace_seconds: 20, max_cost_usd: 5 }]]) {
      await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
        const models = { schema_version: schema, candidates: ["$current", "$current", "$current"], evaluator: "$current", merger: "$current" };
        writeFusionModels(env, policy ? { ...models, policy } : models);
        const r = await env.print("/fusion Why is the sky blue?");
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, `${MERGED_TEXT}\n`);
        const manifest = manifestOf(runDirs(env)[0]);
        assert.equal(manifest.state, "completed");
        assert.deepEqual(manifest.config.models, policy ? { ...models, policy } : models);
      });
    }
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
