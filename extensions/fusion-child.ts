/**
 * pi-fusion child extension: loaded with `-e` into every Fusion child `pi` process.
 *
 * This file only finds the native companion library and hands it Pi's extension API; the
 * metadata/settlement/runtime-guard frames, the provider-request governor and the oversized-answer
 * compression all live in C++ (child/). The library is looked up in $PI_FUSION_CHILD_ADDON, then
 * in the build folders that scripts/setup produces. See docs/protocol.md.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const candidates = [
  process.env.PI_FUSION_CHILD_ADDON,
  join(packageRoot, "build", "dev", "lib", "pi_fusion_child.node"),
  join(packageRoot, "build", "release", "lib", "pi_fusion_child.node"),
].filter((p): p is string => typeof p === "string" && p.length > 0);

export default function piFusionChild(pi: unknown): void {
  const addonPath = candidates.find((p) => existsSync(p));
  if (addonPath === undefined) {
    throw new Error(
      `pi-fusion: native library pi_fusion_child.node is not built; run ${join(packageRoot, "scripts", "setup")}`,
    );
  }
  const addon = createRequire(import.meta.url)(addonPath) as { register(pi: unknown): void };
  addon.register(pi);
}
