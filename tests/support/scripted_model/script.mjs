/**
 * @file The script: which answer the scripted model gives to which request.
 *
 * A script is plain JSON so tests in any language can write it to a file:
 *   {
 *     "rules": [
 *       { "name": "opt. label",
 *         "match": { "text": "substring", "regex": "js regex", "api": "...", "model": "...",
 *                    "last_role": "user"|"tool", "tool_result": "substring", "body": "substring" },
 *         "responses": [ step, step, ... ] }
 *     ],
 *     "default": step
 *   }
 * The first rule whose every `match` key holds answers. Its steps are consumed one per answered
 * request; the last step then repeats. No rule matched -> `default` (itself `{"echo": true}`
 * when absent). See tests/support/README.md for the step keys.
 */

/** The default answer: repeat what the user said, so an unscripted request is still visible. */
export const DEFAULT_STEP = Object.freeze({ echo: true });

const MATCH_KEYS = new Set(["text", "regex", "api", "model", "last_role", "tool_result", "body"]);
const STEP_KEYS = new Set([
  "text", "thinking", "tool_calls", "echo", "echo_tool_results", "status", "retry_after", "error_body",
  "stall", "stall_after_bytes", "drop_after_bytes", "large_text_bytes", "malformed", "usage",
  "finish", "delay_ms", "chunk_delay_ms", "chunk_bytes", "provider_cost",
]);

function checkKeys(obj, allowed, where) {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    throw new Error(`${where} must be an object`);
  }
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) throw new Error(`${where} has unknown key "${key}"`);
  }
}

function checkStep(step, where) {
  checkKeys(step, STEP_KEYS, where);
  if (step.tool_calls !== undefined) {
    if (!Array.isArray(step.tool_calls) || step.tool_calls.length === 0) {
      throw new Error(`${where}.tool_calls must be a non-empty array`);
    }
    step.tool_calls.forEach((c, i) => {
      if (typeof c?.name !== "string") throw new Error(`${where}.tool_calls[${i}].name must be a string`);
    });
  }
  if (step.provider_cost !== undefined && !(typeof step.provider_cost === "number" && step.provider_cost >= 0)) {
    throw new Error(`${where}.provider_cost must be a non-negative number`);
  }
}

/**
 * Validates a script early, so a typo fails the test that wrote it instead of silently echoing.
 * Returns a normalized copy. REQUIRES: script is JSON-shaped (or null for "echo everything").
 */
export function validateScript(script) {
  const s = script ?? {};
  checkKeys(s, new Set(["rules", "default"]), "script");
  const rules = s.rules ?? [];
  if (!Array.isArray(rules)) throw new Error("script.rules must be an array");
  rules.forEach((rule, i) => {
    checkKeys(rule, new Set(["name", "match", "responses"]), `rules[${i}]`);
    if (rule.match !== undefined) checkKeys(rule.match, MATCH_KEYS, `rules[${i}].match`);
    if (rule.match?.regex !== undefined) new RegExp(rule.match.regex);
    if (!Array.isArray(rule.responses) || rule.responses.length === 0) {
      throw new Error(`rules[${i}].responses must be a non-empty array`);
    }
    rule.responses.forEach((step, j) => checkStep(step, `rules[${i}].responses[${j}]`));
  });
  if (s.default !== undefined) checkStep(s.default, "script.default");
  return { rules: structuredClone(rules), default: structuredClone(s.default ?? DEFAULT_STEP) };
}

/** `ctx` = {api, model, view, rawBody}: everything a rule may look at. */
function ruleMatches(match, ctx) {
  if (!match) return true;
  const text = ctx.view.lastUserText;
  if (match.text !== undefined && !text.includes(match.text)) return false;
  if (match.regex !== undefined && !new RegExp(match.regex).test(text)) return false;
  if (match.api !== undefined && match.api !== ctx.api) return false;
  if (match.model !== undefined && match.model !== ctx.model) return false;
  if (match.last_role !== undefined && match.last_role !== ctx.view.lastRole) return false;
  if (match.tool_result !== undefined &&
      !ctx.view.toolResults.some((r) => r.text.includes(match.tool_result))) return false;
  if (match.body !== undefined && !ctx.rawBody.includes(match.body)) return false;
  return true;
}

/**
 * Holds a validated script and the per-rule step cursors.
 * Not thread-safe (nothing in Node is): one instance per server.
 */
export class ScriptState {
  constructor(script) {
    this.replace(script);
  }

  /** Installs a new script and rewinds every rule to its first step. */
  replace(script) {
    this.script = validateScript(script);
    this.cursors = this.script.rules.map(() => 0);
  }

  /** Picks and consumes the step answering `ctx`. Returns {step, rule, ruleName, stepIndex}. */
  choose(ctx) {
    const index = this.script.rules.findIndex((r) => ruleMatches(r.match, ctx));
    if (index < 0) return { step: this.script.default, rule: "default", ruleName: "default", stepIndex: 0 };
    const rule = this.script.rules[index];
    const stepIndex = Math.min(this.cursors[index], rule.responses.length - 1);
    this.cursors[index]++;
    return { step: rule.responses[stepIndex], rule: index, ruleName: rule.name ?? `rules[${index}]`, stepIndex };
  }
}
