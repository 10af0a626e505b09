/**
 * @file Pi `models.json` content pointing at a scripted model server on 127.0.0.1.
 *
 * Provider and model ids are deliberately local and non-frontier (no openai/anthropic/gpt/claude
 * in any id or name), so the plugin's route admission treats them as ordinary local routes.
 * Format: PKG/docs/models-configuration.md (custom provider = baseUrl + api + apiKey + models[]).
 */

/** provider id -> [api, path prefix appended to http://127.0.0.1:PORT]. */
export const SCRIPTED_PROVIDERS = Object.freeze({
  scripted: { api: "openai-completions", prefix: "/v1" },
  "scripted-ant": { api: "anthropic-messages", prefix: "" },
  "scripted-resp": { api: "openai-responses", prefix: "/v1" },
});

/** The model ids every scripted provider offers; `scripted-b` has no thinking support. */
export const SCRIPTED_MODELS = Object.freeze(["scripted-a", "scripted-b", "scripted-c"]);

/** The API key Pi sends; the server accepts anything, the value only makes the models "available". */
export const SCRIPTED_API_KEY = "scripted-key";

const MODEL_SHAPES = {
  "scripted-a": { reasoning: true, contextWindow: 128000, maxTokens: 16384 },
  "scripted-b": { reasoning: false, contextWindow: 128000, maxTokens: 16384 },
  // A smaller window, for budget/overflow tests that need a tight route.
  "scripted-c": { reasoning: true, contextWindow: 32000, maxTokens: 8192 },
};

// Small non-zero prices ($ per million tokens) so cost arithmetic is visible in usage.
const COST = { input: 0.5, output: 1.5, cacheRead: 0.05, cacheWrite: 0.625 };

/** The base URL Pi must be given for `api`, e.g. http://127.0.0.1:PORT/v1 for completions. */
export function baseUrlFor(port, api) {
  const provider = Object.values(SCRIPTED_PROVIDERS).find((p) => p.api === api);
  if (!provider) throw new Error(`unknown api "${api}"`);
  return `http://127.0.0.1:${port}${provider.prefix}`;
}

function modelEntry(id) {
  return { id, name: `Scripted ${id.slice("scripted-".length).toUpperCase()}`, input: ["text"], cost: { ...COST }, ...MODEL_SHAPES[id] };
}

/**
 * The provider whose answers may carry the provider's own billed cost (step key `provider_cost`):
 * openai-completions under a path holding "openrouter.ai", which is how Pi recognizes a provider
 * that reports its cost (pi-ai dist/utils/openrouter-cost.js, isOpenRouterModel: provider
 * "openrouter" or "openrouter.ai" anywhere in the baseUrl). Its host stays 127.0.0.1, so it is
 * neither OpenRouter nor a frontier endpoint.
 */
export const BILLED_PROVIDER = "scripted-billed";
const BILLED_PREFIX = "/openrouter.ai/v1";

/**
 * Returns the models.json object (serialize with JSON.stringify). REQUIRES: port is the server's
 * port. `billed` adds BILLED_PROVIDER with the same models.
 */
export function modelsJson(port, { billed = false } = {}) {
  const providers = {};
  for (const [id, { api }] of Object.entries(SCRIPTED_PROVIDERS)) {
    providers[id] = {
      name: `Scripted (${api})`,
      baseUrl: baseUrlFor(port, api),
      api,
      apiKey: SCRIPTED_API_KEY,
      models: SCRIPTED_MODELS.map(modelEntry),
    };
  }
  if (billed) {
    providers[BILLED_PROVIDER] = {
      name: "Scripted (provider-billed)",
      baseUrl: `http://127.0.0.1:${port}${BILLED_PREFIX}`,
      api: "openai-completions",
      apiKey: SCRIPTED_API_KEY,
      models: SCRIPTED_MODELS.map(modelEntry),
    };
  }
  return { providers };
}
