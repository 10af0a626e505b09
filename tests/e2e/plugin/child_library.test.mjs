/**
 * @file The plugin hands its children the child library built beside the host library it was
 * loaded from. Here the host library is a copy whose neighbour is not a library at all: the
 * candidates must try that file (and fail, naming it), not quietly load another build's.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fusionRules } from "../../support/fusion_script.mjs";
import { runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { BUILD_DIR } from "../../support/pi_harness.mjs";

test("children load pi_fusion_child.node from beside the host library", async () => {
  const lib = fs.mkdtempSync(path.join(BUILD_DIR, "lib-copy-"));
  try {
    fs.copyFileSync(process.env.PI_FUSION_ADDON ?? path.join(BUILD_DIR, "lib", "pi_fusion.node"), path.join(lib, "pi_fusion.node"));
    const beside = path.join(lib, "pi_fusion_child.node");
    fs.writeFileSync(beside, "not a shared library\n");
    const env = { PI_FUSION_ADDON: path.join(lib, "pi_fusion.node"), PI_FUSION_CHILD_ADDON: "" };
    await withFusionEnv({ script: { rules: fusionRules() }, env }, async (pi) => {
      const r = await pi.print("/fusion Why is the sky blue?");
      assert.notEqual(r.code, 0, "the run cannot succeed with a broken child library");
      const [run] = runDirs(pi);
      const stderr = fs.readdirSync(run).filter((f) => /^candidate-\d\.attempt-\d+\.stderr\.txt$/.test(f))
        .map((f) => fs.readFileSync(path.join(run, f), "utf8")).join("\n");
      assert.ok(stderr.includes(beside), `a candidate tried ${beside}:\n${stderr}\n${r.stderr}`);
    });
  } finally {
    fs.rmSync(lib, { recursive: true, force: true });
  }
});
