/**
 * pi-fusion child extension: loaded with `-e` into every Fusion child `pi` process.
 *
 * This file only finds the native companion library and hands it Pi's extension API; the
 * metadata/settlement/runtime-guard frames, the provider-request governor and the oversized-answer
 * compression all live in C++ (child/). The library is looked up in $PI_FUSION_CHILD_ADDON, then
 * in the build folders that scripts/setup produces, then in the package's prebuilds
 * (lib/native.ts). It also starts loading the provider's module early (lib/provider_preload.ts).
 * See docs/protocol.md.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNative } from "./lib/native.ts";
import { preloadProviderModule } from "./lib/provider_preload.ts";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export default function piFusionChild(pi: unknown): void {
  const { addon } = loadNative<{ register(pi: unknown): void }>(
    packageRoot,
    "pi_fusion_child",
    "PI_FUSION_CHILD_ADDON",
    process.env.PI_FUSION_CHILD_ADDON,
  );
  addon.register(pi);
  preloadProviderModule();
}
