/**
 * @file Turns a script step into an API-neutral answer plan (or an HTTP error).
 *
 * The plan is what every SSE encoder consumes:
 *   { thinking: string|null, text: string|null, toolCalls: [{name, argumentsJson}],
 *     finish: "stop"|"tool"|"length", usage: {input, output, cache_read, cache_write, reasoning},
 *     providerCost: number|null }
 * Keeping this step separate from the encoders means one step means the same thing on all APIs.
 */

const LARGE_LINE = " the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJ\n";

/**
 * Deterministic ASCII text of exactly `bytes` bytes, numbered lines so a test can find the spot
 * where a truncated or reordered copy diverges. Exported so tests compare what Pi printed.
 */
export function largeText(bytes) {
  const parts = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const line = `L${String(i).padStart(7, "0")}${LARGE_LINE}`;
    parts.push(line);
    size += line.length;
  }
  return parts.join("").slice(0, bytes);
}

/** Expands {{last_user_text}}, {{tool_results}} and {{seq}} in a scripted text. */
function expand(template, ctx) {
  return template
    .replaceAll("{{last_user_text}}", ctx.view.lastUserText)
    .replaceAll("{{tool_results}}", ctx.view.toolResults.map((r) => r.text).join("\n"))
    .replaceAll("{{seq}}", String(ctx.seq));
}

function answerText(step, ctx) {
  if (step.large_text_bytes !== undefined) return largeText(step.large_text_bytes);
  const parts = [];
  if (typeof step.text === "string") parts.push(expand(step.text, ctx));
  if (step.echo) parts.push(`ECHO: ${ctx.view.lastUserText}`);
  if (step.echo_tool_results) {
    const lines = ctx.view.toolResults.map((r) => `[${r.name ?? r.id}${r.isError ? " error" : ""}] ${r.text}`);
    parts.push(`TOOL RESULTS:\n${lines.join("\n")}`);
  }
  return parts.length > 0 ? parts.join("\n") : null;
}

/** Rough token count (4 bytes a token) so default usage grows with the conversation. */
function tokens(text) {
  return Math.ceil(Buffer.byteLength(text ?? "") / 4);
}

function planUsage(step, ctx, plan) {
  const args = plan.toolCalls.map((c) => c.argumentsJson).join("");
  const reasoning = tokens(plan.thinking);
  const base = {
    input: Math.max(1, tokens(ctx.rawBody)),
    output: Math.max(1, tokens(plan.text) + tokens(args) + reasoning),
    cache_read: 0,
    cache_write: 0,
    reasoning,
  };
  return { ...base, ...(step.usage ?? {}) };
}

/** Builds the answer plan for a successful step. REQUIRES: step is not an HTTP error step. */
export function buildPlan(step, ctx) {
  const toolCalls = (step.tool_calls ?? []).map((c) => ({
    name: c.name,
    argumentsJson: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
  }));
  const plan = {
    thinking: typeof step.thinking === "string" ? expand(step.thinking, ctx) : null,
    text: answerText(step, ctx),
    toolCalls,
    finish: step.finish ?? (toolCalls.length > 0 ? "tool" : "stop"),
  };
  if (plan.text === null && plan.toolCalls.length === 0 && plan.thinking === null) plan.text = "";
  plan.usage = planUsage(step, ctx, plan);
  plan.providerCost = step.provider_cost ?? null;
  return plan;
}

const ERROR_TEXT = {
  400: ["invalid_request_error", "Scripted bad request"],
  401: ["authentication_error", "Scripted authentication failure"],
  429: ["rate_limit_error", "Scripted rate limit exceeded"],
  500: ["api_error", "Scripted internal server error"],
  503: ["overloaded_error", "Scripted service overloaded"],
};

/** The JSON error body each API's SDK expects, so Pi's error text names type and message. */
export function errorBody(api, status) {
  const [type, message] = ERROR_TEXT[status] ?? ["api_error", `Scripted HTTP ${status}`];
  if (api === "anthropic-messages") return { type: "error", error: { type, message } };
  return { error: { message, type, code: status === 429 ? "rate_limit_exceeded" : type } };
}
