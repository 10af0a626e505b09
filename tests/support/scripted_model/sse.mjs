/**
 * @file SSE encoders: answer plan -> the exact event frames each streaming API sends.
 *
 * Shapes follow spec/PI_HOST.md §2 (verified against Pi 1.6.0):
 *   - openai-completions: `data:` lines only, a `finish_reason` chunk (Pi errors without one),
 *     a usage chunk with `choices: []`, then `data: [DONE]`;
 *   - anthropic-messages: `event:` + `data:` lines, message_start ... message_stop;
 *   - on both, a plan's `providerCost` adds the provider's billed cost to the final usage as
 *     OpenRouter reports it (`cost`, `is_byok: false`; pi-ai dist/utils/openrouter-cost.js);
 *   - openai-responses: `event:` + `data:` lines, `response.output_item.done` per item (Pi takes
 *     the final text/arguments from it) and a terminal `response.completed` carrying usage.
 * `frames(api, plan, meta)` returns an array of strings; the server decides how to send them.
 * `malformedFrames(api, meta)` returns a valid opening followed by a frame that is not JSON.
 */

/** Splits text into pieces of at most `size` characters (one SSE delta each). */
function chunks(text, size) {
  if (!text) return [];
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const dataFrame = (obj) => `data: ${JSON.stringify(obj)}\n\n`;
const eventFrame = (type, obj) => `event: ${type}\ndata: ${JSON.stringify({ type, ...obj })}\n\n`;

// ---------------------------------------------------------------- openai-completions

const COMPLETIONS_FINISH = { stop: "stop", tool: "tool_calls", length: "length" };

/** The provider's own billed cost of the request, as OpenRouter adds it to usage (none: {}). */
function billedCost(providerCost) {
  return providerCost === null || providerCost === undefined ? {} : { cost: providerCost, is_byok: false };
}

function completionsUsage(u, providerCost) {
  return {
    prompt_tokens: u.input + u.cache_read + u.cache_write,
    completion_tokens: u.output,
    total_tokens: u.input + u.cache_read + u.cache_write + u.output,
    prompt_tokens_details: { cached_tokens: u.cache_read, cache_write_tokens: u.cache_write },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
    ...billedCost(providerCost),
  };
}

function completionsFrames(plan, meta) {
  const head = { id: `chatcmpl-scripted-${meta.seq}`, object: "chat.completion.chunk", created: meta.created, model: meta.model };
  const chunk = (delta, finish = null) => dataFrame({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] });
  const out = [chunk({ role: "assistant", content: "" })];
  for (const piece of chunks(plan.thinking, meta.chunkSize)) out.push(chunk({ reasoning_content: piece }));
  for (const piece of chunks(plan.text, meta.chunkSize)) out.push(chunk({ content: piece }));
  plan.toolCalls.forEach((call, index) => {
    const id = `call_${meta.seq}_${index}`;
    out.push(chunk({ tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: "" } }] }));
    out.push(chunk({ tool_calls: [{ index, function: { arguments: call.argumentsJson } }] }));
  });
  out.push(chunk({}, COMPLETIONS_FINISH[plan.finish] ?? plan.finish));
  out.push(dataFrame({ ...head, choices: [], usage: completionsUsage(plan.usage, plan.providerCost) }));
  out.push("data: [DONE]\n\n");
  return out;
}

// ---------------------------------------------------------------- anthropic-messages

const ANTHROPIC_STOP = { stop: "end_turn", tool: "tool_use", length: "max_tokens" };

function anthropicUsage(u, output) {
  return {
    input_tokens: u.input,
    output_tokens: output,
    cache_read_input_tokens: u.cache_read,
    cache_creation_input_tokens: u.cache_write,
  };
}

/** One content block: start, deltas, stop. */
function anthropicBlock(index, block, deltas) {
  return [
    eventFrame("content_block_start", { index, content_block: block }),
    ...deltas.map((delta) => eventFrame("content_block_delta", { index, delta })),
    eventFrame("content_block_stop", { index }),
  ];
}

function anthropicFrames(plan, meta) {
  const out = [eventFrame("message_start", {
    message: {
      id: `msg_scripted_${meta.seq}`, type: "message", role: "assistant", model: meta.model, content: [],
      stop_reason: null, stop_sequence: null, usage: anthropicUsage(plan.usage, 1),
    },
  })];
  let index = 0;
  if (plan.thinking !== null) {
    const deltas = chunks(plan.thinking, meta.chunkSize).map((thinking) => ({ type: "thinking_delta", thinking }));
    deltas.push({ type: "signature_delta", signature: `scripted-signature-${meta.seq}` });
    out.push(...anthropicBlock(index++, { type: "thinking", thinking: "", signature: "" }, deltas));
  }
  if (plan.text !== null) {
    const deltas = chunks(plan.text, meta.chunkSize).map((text) => ({ type: "text_delta", text }));
    out.push(...anthropicBlock(index++, { type: "text", text: "" }, deltas));
  }
  plan.toolCalls.forEach((call, i) => {
    const block = { type: "tool_use", id: `toolu_${meta.seq}_${i}`, name: call.name, input: {} };
    out.push(...anthropicBlock(index++, block, [{ type: "input_json_delta", partial_json: call.argumentsJson }]));
  });
  out.push(eventFrame("message_delta", {
    delta: { stop_reason: ANTHROPIC_STOP[plan.finish] ?? plan.finish, stop_sequence: null },
    usage: { ...anthropicUsage(plan.usage, plan.usage.output), ...billedCost(plan.providerCost) },
  }));
  out.push(eventFrame("message_stop", {}));
  return out;
}

// ---------------------------------------------------------------- openai-responses

function responsesUsage(u) {
  const input = u.input + u.cache_read + u.cache_write;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cache_read, cache_write_tokens: u.cache_write },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: input + u.output,
  };
}

/** Frames for one output item: added, its deltas, done. Returns the finished item too. */
function responsesItem(outputIndex, added, deltas, done) {
  return [
    eventFrame("response.output_item.added", { output_index: outputIndex, item: added }),
    ...deltas,
    eventFrame("response.output_item.done", { output_index: outputIndex, item: done }),
  ];
}

function responsesFrames(plan, meta) {
  const id = `resp_scripted_${meta.seq}`;
  const response = { id, object: "response", created_at: meta.created, model: meta.model };
  const out = [eventFrame("response.created", { response: { ...response, status: "in_progress", output: [] } })];
  const items = [];
  const push = (added, deltas, done) => {
    out.push(...responsesItem(items.length, added, deltas, done));
    items.push(done);
  };
  if (plan.thinking !== null) {
    const rid = `rs_${meta.seq}`;
    const idx = items.length;
    const deltas = chunks(plan.thinking, meta.chunkSize).map((delta) =>
      eventFrame("response.reasoning_summary_text.delta", { item_id: rid, output_index: idx, summary_index: 0, delta }));
    push({ type: "reasoning", id: rid, summary: [] }, deltas,
      { type: "reasoning", id: rid, summary: [{ type: "summary_text", text: plan.thinking }] });
  }
  if (plan.text !== null) {
    const mid = `msg_${meta.seq}`;
    const idx = items.length;
    const deltas = chunks(plan.text, meta.chunkSize).map((delta) =>
      eventFrame("response.output_text.delta", { item_id: mid, output_index: idx, content_index: 0, delta }));
    const message = { type: "message", id: mid, role: "assistant" };
    push({ ...message, status: "in_progress", content: [] }, deltas,
      { ...message, status: "completed", content: [{ type: "output_text", text: plan.text, annotations: [] }] });
  }
  plan.toolCalls.forEach((call, i) => {
    const call_id = `call_${meta.seq}_${i}`;
    const fid = `fc_${meta.seq}_${i}`;
    const idx = items.length;
    const base = { type: "function_call", id: fid, call_id, name: call.name };
    const deltas = [
      eventFrame("response.function_call_arguments.delta", { item_id: fid, output_index: idx, delta: call.argumentsJson }),
      eventFrame("response.function_call_arguments.done", { item_id: fid, output_index: idx, arguments: call.argumentsJson }),
    ];
    push({ ...base, arguments: "", status: "in_progress" }, deltas, { ...base, arguments: call.argumentsJson, status: "completed" });
  });
  const incomplete = plan.finish === "length";
  out.push(eventFrame(incomplete ? "response.incomplete" : "response.completed", {
    response: {
      ...response, status: incomplete ? "incomplete" : "completed", output: items,
      ...(incomplete ? { incomplete_details: { reason: "max_output_tokens" } } : {}),
      usage: responsesUsage(plan.usage),
    },
  }));
  return out;
}

// ---------------------------------------------------------------- dispatch

const ENCODERS = {
  "openai-completions": completionsFrames,
  "anthropic-messages": anthropicFrames,
  "openai-responses": responsesFrames,
};

/** REQUIRES: api is one of the three supported names. meta = {seq, model, created, chunkSize}. */
export function frames(api, plan, meta) {
  return ENCODERS[api](plan, meta);
}

/** A valid first frame, then an event whose data is not JSON, then nothing (no terminal event). */
export function malformedFrames(api, meta) {
  const plan = { thinking: null, text: "partial", toolCalls: [], finish: "stop",
    usage: { input: 1, output: 1, cache_read: 0, cache_write: 0, reasoning: 0 } };
  const opening = frames(api, plan, meta)[0];
  const broken = api === "openai-completions"
    ? 'data: {"id":"chatcmpl-broken","choices":[{"index":0,"delta":{"content":"oops\n\n'
    : `event: ${api === "anthropic-messages" ? "content_block_delta" : "response.output_text.delta"}\ndata: {not json at all\n\n`;
  return [opening, broken];
}
