/**
 * @file The npm package as a user gets it: `npm install <tarball>` into a fresh folder with no
 * compiler on PATH, then the real pinned Pi loads `<folder>/node_modules/@pi-fusion/pi-fusion/
 * extensions/fusion.ts` and runs /fusion end to end on the package's prebuilt libraries (the
 * children load its prebuilt child library too). The tarball comes from scripts/package
 * ($PI_FUSION_TARBALL); scripts/test runs this in its packaging stage.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { createPiEnv } from "../support/pi_harness.mjs";
import { MERGED_TEXT, fusionRules } from "../support/fusion_script.mjs";

const TARBALL = process.env.PI_FUSION_TARBALL;
const PREBUILT = ["pi_fusion.node", "pi_fusion_child.node", "pi-fusion"];

/** A PATH holding only node and npm: an install that wanted a compiler would fail. */
function bareBin(dir) {
  fs.mkdirSync(dir);
  for (const tool of ["node", "npm"]) {
    const real = execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
    fs.symlinkSync(fs.realpathSync(real), path.join(dir, tool));
  }
  return dir;
}

test("the npm package installs without a compiler and runs a Fusion run end to end", async () => {
  assert.ok(TARBALL && fs.existsSync(TARBALL), "set PI_FUSION_TARBALL to the output of scripts/package");
  const listing = execFileSync("tar", ["-tzf", TARBALL], { encoding: "utf8" }).split("\n");
  for (const file of PREBUILT) assert.ok(listing.includes(`package/prebuilds/linux-x64/${file}`), file);
  assert.ok(!listing.some((f) => f.startsWith("package/build/") || f.startsWith("package/src/")), "no build or source tree");

  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-fusion-install-"));
  const env = await createPiEnv({ script: { rules: fusionRules() }, timeoutMs: 120000 });
  try {
    fs.writeFileSync(path.join(folder, "package.json"), '{"private":true}\n');
    const bin = bareBin(path.join(folder, ".bin-only-node-npm"));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--omit=peer", TARBALL], {
      cwd: folder,
      env: { PATH: bin, HOME: folder, npm_config_cache: path.join(folder, ".npm-cache") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pkg = path.join(folder, "node_modules", "@pi-fusion", "pi-fusion");
    for (const file of PREBUILT) assert.ok(fs.existsSync(path.join(pkg, "prebuilds", "linux-x64", file)), file);
    assert.ok(!fs.existsSync(path.join(pkg, "build")));
    assert.match(execFileSync(path.join(pkg, "prebuilds", "linux-x64", "pi-fusion"), ["--help"], { encoding: "utf8" }), /pi-fusion: Fusion's helper tool/);

    // No override variables: the loaders must find the package's own prebuilt libraries.
    const r = await env.print("/fusion Why is the sky blue?", {
      extensions: [path.join(pkg, "extensions", "fusion.ts")],
      env: { PI_FUSION_ADDON: "", PI_FUSION_CHILD_ADDON: "" },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${MERGED_TEXT}\n`);
    assert.equal(env.requests().length, 5, "three candidates, the evaluator and the merger");
    const root = path.join(env.cwd, ".pi", "fusion");
    const [session] = fs.readdirSync(root);
    const [run] = fs.readdirSync(path.join(root, session));
    const manifest = JSON.parse(fs.readFileSync(path.join(root, session, run, "manifest.json"), "utf8"));
    assert.equal(manifest.state, "completed");
  } finally {
    await env.cleanup();
    fs.rmSync(folder, { recursive: true, force: true });
  }
});
