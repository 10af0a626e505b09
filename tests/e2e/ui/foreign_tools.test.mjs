/**
 * @file Another package's bg_* tools. Every supported Pi refuses to start when two extensions
 * register one tool name: it names the tool and both files and exits non-zero before any model
 * request, in every mode. docs/troubleshooting.md explains that message and what to do; this
 * pins that it is what a person sees, so the docs cannot drift from it.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { PLUGIN, REPO_ROOT, withPiEnv } from "../../support/pi_harness.mjs";

const FOREIGN = path.join(REPO_ROOT, "tests", "e2e", "fixtures", "foreign-bg-tools.ts");

test("another package's bg_status and bg_result: Pi names both and starts nothing", async () => {
  await withPiEnv({ script: { rules: [], default: { text: "hello back" } } }, async (env) => {
    for (const mode of [[], ["--mode", "json"]]) {
      const r = await env.print("hello", { extensions: [FOREIGN, PLUGIN], args: mode });
      assert.notEqual(r.code, 0, `Pi ${mode.join(" ")} started despite the conflict`);
      for (const tool of ["bg_status", "bg_result"]) {
        assert.ok(r.stderr.includes(`"${PLUGIN}": Tool "${tool}" conflicts with ${FOREIGN}`), r.stderr);
      }
      assert.equal(r.stdout, "");
    }
    assert.equal(env.requests().length, 0, "no model request");

    // The control: without the other package the same prompt runs.
    const alone = await env.print("hello", { extensions: [PLUGIN] });
    assert.equal(alone.code, 0, alone.stderr);
    assert.equal(alone.stdout, "hello back\n");
  });
});
