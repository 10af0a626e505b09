/**
 * Starts loading the module that implements a provider API ("openai-completions",
 * "anthropic-messages", ...) while a Fusion child still waits for its input.
 *
 * Pi loads a provider's implementation lazily, on the first request. A warm evaluator or merger
 * child (docs/workflow.md) is started early and fed later, so in it that load would sit on the
 * critical path between its input and its request (about 25 ms on a quiet machine, see
 * docs/benchmarks.md). Importing the same file first puts it in Node's module map, and Pi's own
 * import then finds it loaded. Only Pi's bundled layout is recognised
 * (`dist/bundle/cli.js` beside `dist/bundle/chunks/<api>-<HASH>.js`, Pi 0.87 and newer); for any
 * other layout, API name or failure the child simply leaves the load to Pi.
 */
import { readdirSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const API_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** The bundled chunk that implements `api` for the Pi whose CLI is `cliPath`, if exactly one. */
export function providerModulePath(cliPath: string | undefined, api: string | undefined): string | undefined {
  if (!cliPath || !api || !API_NAME.test(api)) return undefined;
  let chunks: string;
  let names: string[];
  try {
    chunks = join(dirname(realpathSync(cliPath)), "chunks");
    names = readdirSync(chunks);
  } catch {
    return undefined;
  }
  // The bundler names a lazily imported entry "<entry>-<8 hash characters>.js".
  const entry = new RegExp(`^${api}-[A-Z0-9]{8}\\.js$`);
  const matches = names.filter((name) => entry.test(name));
  return matches.length === 1 ? join(chunks, matches[0]) : undefined;
}

/** Imports the provider module named by PI_FUSION_PROVIDER_API in the background; never throws. */
export function preloadProviderModule(
  cliPath: string | undefined = process.argv[1],
  api: string | undefined = process.env.PI_FUSION_PROVIDER_API,
): void {
  const file = providerModulePath(cliPath, api);
  if (file) import(pathToFileURL(file).href).catch(() => {});
}
