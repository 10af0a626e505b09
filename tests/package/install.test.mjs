/**
 * @file The npm package as a user gets it: `npm install <tarball>` into a fresh folder with no
 * compiler on PATH, then the real pinned Pi loads `<folder>/node_modules/@pi-fusion/pi-fusion/
 * extensions/fusion.ts` and runs /fusion end to end on the package's prebuilt libraries (the
 * children load its prebuilt child library too). The CLI the README documents is the package's
 * `bin`: node_modules/.bin/pi-fusion and `npx pi-fusion` run the prebuilt executable, and
 * /fusion-report writes the run's HTML report through it. The tarball
 * comes from scripts/package ($PI_FUSION_TARBALL); scripts/test runs this in its packaging stage,
 * with research.test.mjs.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createPiEnv } from "../support/pi_harness.mjs";
import { MERGED_TEXT, fusionRules } from "../support/fusion_script.mjs";
import { manifestOf, runDirs } from "../support/fusion_runs.mjs";
import { installTarball } from "./install_support.mjs";

test("the npm package installs without a compiler and runs a Fusion run end to end", async () => {
  const { folder, pkg, npmEnv } = installTarball();
  const env = await createPiEnv({ script: { rules: fusionRules() }, timeoutMs: 120000 });
  try {
    assert.match(execFileSync(path.join(pkg, "prebuilds", "linux-x64", "pi-fusion"), ["--help"], { encoding: "utf8" }), /pi-fusion: Fusion's helper tool/);
    // package.json "bin": the CLI the README documents, as npm links it and as npx finds it.
    const linked = path.join(folder, "node_modules", ".bin", "pi-fusion");
    assert.equal(fs.realpathSync(linked), path.join(pkg, "prebuilds", "linux-x64", "pi-fusion"));
    assert.match(execFileSync(linked, ["--help"], { encoding: "utf8" }), /pi-fusion: Fusion's helper tool/);
    // npx runs a bin through sh, which the node-and-npm-only PATH of the install lacks.
    const npxEnv = { ...npmEnv, PATH: `${npmEnv.PATH}:/usr/bin:/bin` };
    assert.match(execFileSync("npx", ["--offline", "pi-fusion", "--help"], { cwd: folder, env: npxEnv, encoding: "utf8" }),
      /pi-fusion: Fusion's helper tool/);

    // No override variables: the loaders must find the package's own prebuilt libraries.
    const r = await env.print("/fusion Why is the sky blue?", {
      extensions: [path.join(pkg, "extensions", "fusion.ts")],
      env: { PI_FUSION_ADDON: "", PI_FUSION_CHILD_ADDON: "" },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${MERGED_TEXT}\n`);
    assert.equal(env.requests().length, 5, "three candidates, the evaluator and the merger");
    const [dir] = runDirs(env);
    assert.equal(manifestOf(dir).state, "completed");

    // /fusion-report runs the package's own prebuilt pi-fusion (cmark-gfm linked in statically).
    const report = await env.print("/fusion-report", {
      extensions: [path.join(pkg, "extensions", "fusion.ts")],
      env: { PI_FUSION_ADDON: "", PI_FUSION_CHILD_ADDON: "" },
    });
    assert.equal(report.code, 0, report.stderr);
    const page = path.join(env.cwd, ".pi", "fusion-reports", `${path.basename(dir)}.html`);
    assert.match(report.stderr, /Fusion report written: /);
    assert.match(fs.readFileSync(page, "utf8"), /<h1>Why the sky is blue<\/h1>/);
  } finally {
    await env.cleanup();
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
