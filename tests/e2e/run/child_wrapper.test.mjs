/**
 * @file PI_FUSION_CHILD_WRAPPER, the debugging aid, inside the real pinned Pi. A relative value
 * is refused before anything exists, so a repository cannot get its own script run by naming it
 * (it would otherwise be resolved against the project, the children's working directory). An
 * absolute one runs every child through it, and the run says so: in the receipt the agent reads,
 * and in the result details.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { agentRules, fusionRules } from "../../support/fusion_script.mjs";
import { artifactJson, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";

/** A wrapper that leaves a marker, then runs the child. */
function wrapperScript(marker) {
  return ["#!/bin/sh", `echo "$PI_FUSION_CHILD_ROLE" >> '${marker}'`, 'exec "$@"', ""].join("\n");
}

describe("PI_FUSION_CHILD_WRAPPER", () => {
  test("a relative value is refused at preflight: the project's script never runs, nothing is created", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const marker = path.join(env.root, "ran.log");
      fs.writeFileSync(path.join(env.cwd, "wrap.sh"), wrapperScript(marker), { mode: 0o755 });
      const r = await env.print("/fusion Why is the sky blue?", { env: { PI_FUSION_CHILD_WRAPPER: "wrap.sh" } });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /PI_FUSION_CHILD_WRAPPER='wrap\.sh' is not an absolute path/);
      assert.match(r.stderr, /config_invalid/);
      assert.ok(!fs.existsSync(marker), "the project's wrap.sh never ran");
      assert.ok(!fs.existsSync(path.join(env.cwd, ".pi", "fusion")), "no run directory");
      assert.equal(env.requests().length, 0, "no model request");
    });
  });

  test("an absolute value: every child runs through it, and the receipt and result details say so", async () => {
    await withFusionEnv({ script: { rules: agentRules({ final: "FINAL" }) } }, async (env) => {
      const marker = path.join(env.root, "ran.log");
      const wrapper = path.join(env.root, "wrap.sh");
      fs.writeFileSync(wrapper, wrapperScript(marker), { mode: 0o755 });
      const r = await env.print("please fuse", { env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, "FINAL\n");
      assert.deepEqual(fs.readFileSync(marker, "utf8").trim().split("\n").sort(),
        ["candidate", "candidate", "candidate", "evaluator", "merger"]);
      const notice = `every child of this run runs through PI_FUSION_CHILD_WRAPPER=${wrapper} (a debugging aid): ` +
        "its answers and tool-call audit logs are not trustworthy";
      const receipt = env.requests().find((q) => q.rule_name === "after-receipt").tool_results[0].text;
      assert.ok(receipt.includes(`\nWarning: ${notice}.\n`), receipt);
      const [dir] = runDirs(env);
      const { details } = artifactJson(dir, "result.json");
      assert.equal(details.child_wrapper, wrapper);
      assert.deepEqual(details.warnings.at(-1), { kind: "child_wrapper", message: notice });
    });
  });
});
