/**
 * pi-fusion: Fusion for the Pi coding agent.
 *
 * This file only finds the native library and hands it Pi's extension API; every tool, command
 * and lifecycle handler is registered from C++ (src/addon/). The library is looked up in
 * $PI_FUSION_ADDON, then in the build folders that scripts/setup produces, then in the package's
 * prebuilds (lib/native.ts). Pi's TUI components are JavaScript classes, so the native side draws
 * its screens through the small modules it is handed here (they decide nothing).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { showModelsSelector } from "./fusion-models-ui.ts";
import * as render from "./fusion-render.ts";
import { loadNative } from "./lib/native.ts";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * Runs a program without a shell, with an empty environment, and resolves with its exit code and
 * output (never rejects). The native side decides what runs: /fusion-report runs this build's
 * `pi-fusion report`.
 */
function runProgram(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(file, args, { env: {}, timeout: 120_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr || error?.message || "") });
    });
  });
}

export default function piFusion(pi: unknown): void {
  const { addon, path } = loadNative<{
    register(
      pi: unknown,
      options: {
        packageRoot: string;
        addonPath: string;
        showModelsSelector: typeof showModelsSelector;
        render: typeof render;
        runProgram: typeof runProgram;
      },
    ): void;
  }>(packageRoot, "pi_fusion", "PI_FUSION_ADDON", process.env.PI_FUSION_ADDON);
  // Children load the child library built beside this host library (not another build's),
  // unless PI_FUSION_CHILD_ADDON names one; they inherit it through Pi's environment.
  const childBeside = join(dirname(path), "pi_fusion_child.node");
  if (!process.env.PI_FUSION_CHILD_ADDON && existsSync(childBeside)) {
    process.env.PI_FUSION_CHILD_ADDON = childBeside;
  }
  addon.register(pi, { packageRoot, addonPath: path, showModelsSelector, render, runProgram });
}
