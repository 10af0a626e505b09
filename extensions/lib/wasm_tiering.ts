/**
 * Keeps WebAssembly on V8's baseline compiler (Liftoff) in a Fusion child.
 *
 * Pi's HTTP client parses every response with llhttp compiled to WebAssembly. Once a streamed
 * answer of some tens of KB has gone through it, V8 tiers llhttp's main parse function (33 KB of
 * WebAssembly) up to its optimizing compiler on a background thread: about 85 ms of CPU and 17 MB,
 * measured with the pinned Node, and the process cannot exit before that compile ends. A stage
 * ends at its verified answer, but the run commits only once every child has exited (the merger's
 * exit is always on that path), and on 2 cores the compile competes with the next stage's child.
 * Baseline code parses a 48 KB answer in well under a millisecond, so nothing is lost by never
 * tiering up (docs/benchmarks.md). (The only other WebAssembly a child may run is Pi's image
 * resizing, when a candidate reads an image: as correct on baseline code, if slower.)
 *
 * Node keeps V8's flags writable after start-up, and flags are read when code is compiled, so this
 * holds for everything compiled after the extension is loaded: all of a child's requests. A flag
 * a future V8 no longer knows costs one diagnostic line on stderr and nothing else.
 */
import { setFlagsFromString } from "node:v8";

/** Dynamic tier-up (by use) and eager tier-up (after compiling) both off. */
export const BASELINE_ONLY_FLAGS = ["--no-wasm-dynamic-tiering", "--no-wasm-tier-up"];

/** Sets the flags; never throws. */
export function keepWasmOnBaselineTier(): void {
  for (const flag of BASELINE_ONLY_FLAGS) {
    try {
      setFlagsFromString(flag);
    } catch {
      // Nothing to do: the child then tiers up as any Pi does.
    }
  }
}
