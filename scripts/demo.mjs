/**
 * @file The demo behind scripts/demo: the real pinned Pi loads the plugin in an isolated temp
 * agent directory, talks to the built-in scripted model on 127.0.0.1, and the model calls
 * fusion_reason with the user's question. Prints what Pi registered and what the tool answered.
 */
import path from "node:path";
import { createPiEnv, REPO_ROOT } from "../tests/support/pi_harness.mjs";

const question = process.argv.slice(2).join(" ").trim();
const plugin = path.join(REPO_ROOT, "extensions", "fusion.ts");

const env = await createPiEnv({
  script: {
    rules: [
      { match: { last_role: "tool" }, responses: [{ text: "fusion_reason answered:\n{{tool_results}}" }] },
      { match: { last_role: "user" }, responses: [{ tool_calls: [{ name: "fusion_reason", arguments: { prompt: question } }] }] },
    ],
  },
  timeoutMs: 120000,
});
try {
  const run = await env.print(question, { extensions: [plugin] });
  const first = env.requests()[0];
  const tools = (first?.body?.tools ?? []).map((t) => t.function?.name ?? t.name).filter((n) => /^(fusion_|bg_)/.test(n));
  console.log(`pi-fusion loaded in Pi: ${tools.length} tools registered (${tools.join(", ")})`);
  console.log(`question: ${question}`);
  console.log("");
  process.stdout.write(run.stdout);
  if (run.code !== 0) {
    process.stderr.write(run.stderr);
    process.exitCode = run.code ?? 1;
  }
} finally {
  await env.cleanup();
}
