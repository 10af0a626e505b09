/**
 * pi-fusion: Fusion for the Pi coding agent.
 *
 * This file only finds the native library and hands it Pi's extension API; every tool, command
 * and lifecycle handler is registered from C++ (src/addon/). The library is looked up in
 * $PI_FUSION_ADDON, then in the build folders that scripts/setup produces. Pi's TUI components are
 * JavaScript classes, so the native side draws its screens through the small modules it is
 * handed here (they decide nothing).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { showModelsSelector } from "./fusion-models-ui.ts";
import * as render from "./fusion-render.ts";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const candidates = [
  process.env.PI_FUSION_ADDON,
  join(packageRoot, "build", "dev", "lib", "pi_fusion.node"),
  join(packageRoot, "build", "release", "lib", "pi_fusion.node"),
].filter((p): p is string => typeof p === "string" && p.length > 0);

export default function piFusion(pi: unknown): void {
  const addonPath = candidates.find((p) => existsSync(p));
  if (addonPath === undefined) {
    throw new Error(
      `pi-fusion: native library pi_fusion.node is not built; run ${join(packageRoot, "scripts", "setup")}`,
    );
  }
  const addon = createRequire(import.meta.url)(addonPath) as {
    register(
      pi: unknown,
      options: {
        packageRoot: string;
        addonPath: string;
        showModelsSelector: typeof showModelsSelector;
        render: typeof render;
      },
    ): void;
  };
  addon.register(pi, { packageRoot, addonPath, showModelsSelector, render });
}
