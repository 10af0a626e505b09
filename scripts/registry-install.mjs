/**
 * Driver of scripts/registry-install (not CI): in an isolated Pi environment, `pi install
 * npm:@pi-fusion/pi-fusion` from the local registry in $PI_FUSION_REGISTRY, then `pi -p
 * "/fusion …"` with that installed package (no -e) against the scripted model. Exits non-zero on
 * any deviation.
 */
import assert from "node:assert/strict";
import { createPiEnv } from "../tests/support/pi_harness.mjs";
import { MERGED_TEXT, fusionRules } from "../tests/support/fusion_script.mjs";

const registry = process.env.PI_FUSION_REGISTRY;
assert.ok(registry, "PI_FUSION_REGISTRY names the local registry");
const env = await createPiEnv({ script: { rules: fusionRules() }, timeoutMs: 180000 });
try {
  const npmEnv = {
    npm_config_registry: registry,
    NPM_CONFIG_USERCONFIG: process.env.NPM_CONFIG_USERCONFIG,
    PATH: process.env.PATH,
    PI_FUSION_ADDON: "",
    PI_FUSION_CHILD_ADDON: "",
  };
  const installed = await env.run(["install", "npm:@pi-fusion/pi-fusion"], { env: npmEnv });
  assert.equal(installed.code, 0, installed.stderr);
  console.log(`pi install: ${installed.stdout.trim() || installed.stderr.trim()}`);
  const r = await env.print("/fusion Why is the sky blue?", { noExtensions: false, env: npmEnv });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `${MERGED_TEXT}\n`);
  console.log("registry-install: the installed package ran /fusion end to end");
} finally {
  await env.cleanup();
}
