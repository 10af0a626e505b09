/**
 * @file The npm package as a user gets it, shared by the package tests: the tarball from
 * scripts/package ($PI_FUSION_TARBALL), checked for its prebuilt files, and `npm install
 * <tarball>` into a fresh folder with only node and npm on PATH (an install that wanted a compiler
 * would fail).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const TARBALL = process.env.PI_FUSION_TARBALL;
export const PREBUILT = ["pi_fusion.node", "pi_fusion_child.node", "pi-fusion"];

/** A PATH holding only node and npm. */
function bareBin(dir) {
  fs.mkdirSync(dir);
  for (const tool of ["node", "npm", "npx"]) {
    const real = execFileSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).trim();
    fs.symlinkSync(fs.realpathSync(real), path.join(dir, tool));
  }
  return dir;
}

/** Checks the tarball's listing: the prebuilt files, no build or source tree. */
export function checkTarball() {
  assert.ok(TARBALL && fs.existsSync(TARBALL), "set PI_FUSION_TARBALL to the output of scripts/package");
  const listing = execFileSync("tar", ["-tzf", TARBALL], { encoding: "utf8" }).split("\n");
  for (const file of PREBUILT) assert.ok(listing.includes(`package/prebuilds/linux-x64/${file}`), file);
  assert.ok(!listing.some((f) => f.startsWith("package/build/") || f.startsWith("package/src/")), "no build or source tree");
}

/**
 * Installs the tarball into a new temp folder. Returns {folder, pkg, bin, npmEnv}: the folder,
 * the installed package's root, the bare PATH folder and the environment npm ran with.
 */
export function installTarball() {
  checkTarball();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pi-fusion-install-"));
  fs.writeFileSync(path.join(folder, "package.json"), '{"private":true}\n');
  const bin = bareBin(path.join(folder, ".bin-only-node-npm"));
  const npmEnv = { PATH: bin, HOME: folder, npm_config_cache: path.join(folder, ".npm-cache") };
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--omit=peer", TARBALL], {
    cwd: folder, env: npmEnv, stdio: ["ignore", "pipe", "pipe"],
  });
  const pkg = path.join(folder, "node_modules", "@pi-fusion", "pi-fusion");
  for (const file of PREBUILT) assert.ok(fs.existsSync(path.join(pkg, "prebuilds", "linux-x64", file)), file);
  assert.ok(!fs.existsSync(path.join(pkg, "build")));
  return { folder, pkg, bin, npmEnv };
}
