/**
 * @file Normalizes the request bodies of the three streaming APIs Pi speaks into one view.
 *
 * Scripts match on "what the user said last" and tests assert on "what the tool returned", but
 * the three wire formats spell messages differently:
 *   - openai-completions: `messages[]` with roles user/assistant/tool, `tool_calls` on assistant;
 *   - anthropic-messages: `messages[]` whose user content may hold `tool_result` blocks;
 *   - openai-responses:   `input[]` of role items plus `function_call`/`function_call_output` items.
 * `requestView(api, body)` hides that behind:
 *   { lastUserText, lastRole: "user"|"tool"|"assistant"|"none", toolResults, allToolResults }
 * where a tool result is `{id, name, text, isError}` and `toolResults` is the trailing batch,
 * i.e. exactly what the model is being shown right now.
 */

/** Joins the text parts of a content value that may be a string or an array of blocks. */
export function contentText(content) {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return typeof content.text === "string" ? content.text : "";
  return content
    .map((part) => {
      if (typeof part === "string") return part;
      if (part && typeof part.text === "string") return part.text;
      return "";
    })
    .join("");
}

/**
 * A normalized conversation: an ordered list of
 * `{kind:"user", text}`, `{kind:"assistant", toolCalls:[{id,name}]}`, `{kind:"tool", id, text, isError}`.
 * System/developer turns are dropped: scripts never match on the system prompt.
 */
function completionsTurns(body) {
  const turns = [];
  for (const m of body?.messages ?? []) {
    if (m.role === "user") turns.push({ kind: "user", text: contentText(m.content) });
    else if (m.role === "assistant") {
      const toolCalls = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function?.name }));
      turns.push({ kind: "assistant", toolCalls });
    } else if (m.role === "tool") {
      turns.push({ kind: "tool", id: m.tool_call_id, text: contentText(m.content), isError: false });
    }
  }
  return turns;
}

function anthropicTurns(body) {
  const turns = [];
  for (const m of body?.messages ?? []) {
    if (m.role === "assistant") {
      const blocks = Array.isArray(m.content) ? m.content : [];
      const toolCalls = blocks.filter((b) => b.type === "tool_use").map((b) => ({ id: b.id, name: b.name }));
      turns.push({ kind: "assistant", toolCalls });
      continue;
    }
    if (m.role !== "user") continue;
    if (!Array.isArray(m.content)) {
      turns.push({ kind: "user", text: contentText(m.content) });
      continue;
    }
    // One anthropic user message may carry tool results and then steering text: keep their order.
    const texts = [];
    for (const b of m.content) {
      if (b.type === "tool_result") {
        turns.push({ kind: "tool", id: b.tool_use_id, text: contentText(b.content), isError: !!b.is_error });
      } else if (b.type === "text") texts.push(b.text);
    }
    if (texts.length > 0) turns.push({ kind: "user", text: texts.join("") });
  }
  return turns;
}

function responsesTurns(body) {
  const input = typeof body?.input === "string" ? [{ role: "user", content: body.input }] : body?.input ?? [];
  const turns = [];
  let lastAssistant = null;
  const assistantTurn = () => {
    if (!lastAssistant) {
      lastAssistant = { kind: "assistant", toolCalls: [] };
      turns.push(lastAssistant);
    }
    return lastAssistant;
  };
  for (const item of input) {
    if (item.type === "function_call") {
      assistantTurn().toolCalls.push({ id: item.call_id, name: item.name });
    } else if (item.type === "function_call_output") {
      turns.push({ kind: "tool", id: item.call_id, text: contentText(item.output), isError: false });
      lastAssistant = null;
    } else if (item.role === "user") {
      turns.push({ kind: "user", text: contentText(item.content) });
      lastAssistant = null;
    } else if (item.role === "assistant" || item.type === "reasoning") {
      assistantTurn();
    }
  }
  return turns;
}

const TURN_READERS = {
  "openai-completions": completionsTurns,
  "anthropic-messages": anthropicTurns,
  "openai-responses": responsesTurns,
};

/** Names tool results after the assistant tool call they answer (the wire result has only the id). */
function namedToolResults(turns) {
  const names = new Map();
  const results = [];
  for (const t of turns) {
    if (t.kind === "assistant") for (const c of t.toolCalls) names.set(c.id, c.name);
    if (t.kind === "tool") results.push({ id: t.id, name: names.get(t.id) ?? null, text: t.text, isError: t.isError });
  }
  return results;
}

/** The tool results after the last non-tool turn: what the model receives in this request. */
function trailingToolResults(turns, all) {
  let count = 0;
  for (let i = turns.length - 1; i >= 0 && turns[i].kind === "tool"; i--) count++;
  return all.slice(all.length - count);
}

/**
 * REQUIRES: api is one of the three supported API names; body is the parsed JSON request.
 * Never throws on odd bodies: unknown shapes yield an empty view.
 */
export function requestView(api, body) {
  const read = TURN_READERS[api];
  const turns = read ? read(body) : [];
  const users = turns.filter((t) => t.kind === "user");
  const all = namedToolResults(turns);
  const last = turns[turns.length - 1];
  return {
    lastUserText: users.length > 0 ? users[users.length - 1].text : "",
    lastRole: last ? (last.kind === "tool" ? "tool" : last.kind) : "none",
    toolResults: trailingToolResults(turns, all),
    allToolResults: all,
  };
}
