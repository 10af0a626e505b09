/**
 * @file fusion_research from the installed npm package, end to end through the real pinned Pi:
 * the tarball is installed (outside the namespace: npm may ask the registry about the peer
 * dependency), then the file re-executes itself in a private network namespace
 * (tests/support/netns) where a fixture site listens on a public address and the scripted model
 * on 127.0.0.1. The three candidates load the package's prebuilt child library, whose
 * fusion_web_fetch must find the package's own prebuilt `pi-fusion` (beside the library, in
 * prebuilds/linux-x64/) and fetch the declared page: each candidate's follow-up request to the
 * model carries the page's text, and the site saw one request per candidate.
 * Run directly (`PI_FUSION_TARBALL=… node research.test.mjs`), not under `node --test`: it exits
 * 77 (skipped) saying why when no namespace can be made.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import { MERGED_TEXT } from "../support/fusion_script.mjs";
import { manifestOf, runDirs } from "../support/fusion_runs.mjs";
import { startHttpFixtures, UTF8_TEXT } from "../support/http_fixtures/http_fixtures.mjs";
import { enterNetnsOrExit, inNetns, PUBLIC_V4 } from "../support/netns/netns.mjs";
import { withPiEnv } from "../support/pi_harness.mjs";
import {
  candidateRequests, candidateRules, cleanTaskAgentRules, FIXTURE_FILES, RUN_TIMEOUT_MS,
} from "../e2e/investigate/investigate_support.mjs";
import { installTarball } from "./install_support.mjs";

const INSTALLED = "PI_FUSION_TEST_PACKAGE_ROOT";
if (!inNetns()) {
  // Installed once, here; the namespace's copy of this script finds it through the environment.
  const { folder, pkg } = installTarball();
  process.env[INSTALLED] = pkg;
  process.on("exit", () => fs.rmSync(folder, { recursive: true, force: true }));
}
await enterNetnsOrExit({ addresses: [PUBLIC_V4], label: "package_research" });

const pkg = process.env[INSTALLED];
const http = await startHttpFixtures({ host: PUBLIC_V4, port: 80 });
after(() => http.close());

const PAGE = `http://${PUBLIC_V4}/utf8`;
const RESEARCH_ARGS = {
  objective: "Say what the documentation page says",
  background: ["The page is the project's documentation"],
  deliverable: "One sentence quoting the page",
  sources: [{ url: PAGE, purpose: "the documentation" }],
};

test("package: research candidates fetch the declared page through the package's own pi-fusion", async () => {
  assert.ok(pkg && fs.existsSync(path.join(pkg, "prebuilds", "linux-x64", "pi-fusion")), pkg);
  const firstTurn = [{ tool_calls: [{ name: "fusion_web_fetch", arguments: { url: PAGE, extract: "text" } }] }];
  const rules = cleanTaskAgentRules("research", RESEARCH_ARGS, candidateRules(firstTurn));
  // The env loads no plugin of its own: the run loads the installed package's.
  await withPiEnv({ script: { rules }, files: FIXTURE_FILES, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
    // No override variables: the host and every child load the package's prebuilt libraries.
    const r = await env.print("please research", {
      extensions: [path.join(pkg, "extensions", "fusion.ts")],
      env: { PI_FUSION_ADDON: "", PI_FUSION_CHILD_ADDON: "" },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^FINAL: Fusion research-[0-9a-f]{32} completed \(research\)\./);
    assert.ok(r.stdout.includes(MERGED_TEXT), r.stdout);
    const [dir] = runDirs(env);
    assert.equal(manifestOf(dir).state, "completed");

    // Each candidate's follow-up request carries the fetched page, framed as untrusted content.
    const followUps = candidateRequests(env).filter((q) => q.last_role === "tool");
    assert.equal(followUps.length, 3, "one follow-up request per candidate");
    for (const q of followUps) {
      assert.deepEqual(q.tool_results.map((t) => t.name), ["fusion_web_fetch"]);
      assert.match(q.tool_results[0].text, new RegExp(`^Fetched ${PAGE}\\n[^]*<<<untrusted-page [0-9a-f]{16}\\n${UTF8_TEXT}\\n>>>`),
        q.tool_results[0].text);
    }
    assert.deepEqual(http.requests.map((q) => q.path), ["/utf8", "/utf8", "/utf8"]);
  });
});
