/**
 * pi-fusion child extension: loaded with `-e` into every Fusion child `pi` process.
 *
 * This file only finds the native companion library and hands it Pi's extension API; the
 * metadata/settlement/runtime-guard frames, the provider-request governor, the oversized-answer
 * compression and the walls around the candidates' file tools all live in C++ (child/); Pi's tool
 * factories are handed over so a candidate's read, grep, find and ls keep Pi's shapes. The library is looked up in $PI_FUSION_CHILD_ADDON, then
 * in the build folders that scripts/setup produces, then in the package's prebuilds
 * (lib/native.ts). It also keeps WebAssembly on V8's baseline compiler, so that no background
 * compile holds the child's exit (lib/wasm_tiering.ts), starts loading the provider's module early
 * (lib/provider_preload.ts) and, in a warm evaluator or merger, warms Pi's HTTP client up
 * (lib/http_prewarm.ts).
 * See docs/protocol.md.
 */
import {
  createFindToolDefinition,
  createGrepToolDefinition,
  createLsToolDefinition,
  createReadToolDefinition,
  DEFAULT_MAX_BYTES,
  formatSize,
  truncateHead,
  truncateLine,
} from "@earendil-works/pi-coding-agent";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadNative } from "./lib/native.ts";
import { prewarmHttpClientIfWarm } from "./lib/http_prewarm.ts";
import { preloadProviderModule } from "./lib/provider_preload.ts";
import { keepWasmOnBaselineTier } from "./lib/wasm_tiering.ts";

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export default function piFusionChild(pi: unknown): void {
  // First: before anything of this child compiles WebAssembly.
  keepWasmOnBaselineTier();
  const { addon } = loadNative<{ register(pi: unknown, piTools: unknown): void }>(
    packageRoot,
    "pi_fusion_child",
    "PI_FUSION_CHILD_ADDON",
    process.env.PI_FUSION_CHILD_ADDON,
  );
  // Pi's own file tools and helpers: a candidate's read, grep, find and ls are these, built with
  // operations that open files only through the child library's walls.
  addon.register(pi, {
    createReadToolDefinition,
    createLsToolDefinition,
    createFindToolDefinition,
    createGrepToolDefinition,
    truncateHead,
    truncateLine,
    formatSize,
    DEFAULT_MAX_BYTES,
  });
  preloadProviderModule();
  prewarmHttpClientIfWarm();
}
