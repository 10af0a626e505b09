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
 *
 * A pooled child (PI_FUSION_TASK_FD) runs this factory again for every task (Pi re-runs every
 * extension factory at `new_session`; this module is evaluated once): the library then reads the
 * task's record and starts the task's state afresh, and the once-per-process steps here run at the
 * first call only. See docs/protocol.md ("Pooled children").
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

// Whether this process has run its once-per-process steps (a pooled child's later tasks skip them:
// the flags hold, and the preload and prewarm key on variables a pooled child does not have).
let processPrepared = false;

export default function piFusionChild(pi: unknown): void {
  const firstCall = !processPrepared;
  processPrepared = true;
  // First: before anything of this child compiles WebAssembly.
  if (firstCall) keepWasmOnBaselineTier();
  // Node keeps the library loaded: a later call gets the same instance and its state.
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
  if (firstCall) {
    preloadProviderModule();
    prewarmHttpClientIfWarm();
  }
}
