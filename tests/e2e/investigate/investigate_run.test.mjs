/**
 * @file fusion_investigate end to end inside the real pinned Pi: three real candidate children
 * using Pi's read/grep/find/ls (ripgrep and fd) on a fixture project, the blind evaluator and the
 * merger, the sealed tool-call audit logs, confinement to the project, and the agent's launch /
 * wake / bg_result cycle in print, json and RPC mode.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { MERGED_TEXT } from "../../support/fusion_script.mjs";
import { artifactJson, manifestOf, runDirs, sha256 } from "../../support/fusion_runs.mjs";
import { assertConforms } from "../../support/schema_check.mjs";
import {
  agentFlowRules, assertAuditLogSchemas, assertCandidatesOffered, auditLog, candidateBatches, candidateRules,
  FILE_TOOL_CALLS, FIXTURE_FILES, INSPECT_TOOLS, INVESTIGATE_ARGS, investigateBatches, WRAPPER, withFixtureEnv,
} from "./investigate_support.mjs";

const DENY = "bash,edit,write,powershell,fusion_reason,fusion_investigate,fusion_research,fusion_validate,fusion_brainstorm,bg_result,bg_status,bg_kill";

describe("fusion_investigate end to end", () => {
  test("print mode: candidates read the project with the four file tools; sealed logs verify; bg_result returns the answer", () =>
    withFixtureEnv({ script: { rules: agentFlowRules(candidateRules([{ tool_calls: FILE_TOOL_CALLS }])) } }, async (env) => {
      const argvLog = path.join(env.tmp, "argv.jsonl");
      const r = await env.print("please investigate", {
        env: { PI_FUSION_CHILD_WRAPPER: WRAPPER, PI_FUSION_TEST_ARGV_LOG: argvLog },
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^FINAL: Fusion investigate-[0-9a-f]{32} completed \(investigate\)\./);
      assert.ok(r.stdout.includes(MERGED_TEXT), r.stdout);

      const [dir] = runDirs(env);
      assert.match(path.basename(dir), /^investigate-[0-9a-f]{32}$/);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed");
      assert.equal(manifest.attempts.length, 5);
      assert.deepEqual(manifest.capabilities, { candidate: "inspect", evaluator: "reason", merger: "reason" });
      assert.deepEqual(manifest.tool_policy.candidate_tools, INSPECT_TOOLS);
      assert.deepEqual(manifest.tool_policy.evaluator_tools, []);

      // Clean-task canonical input: exactly five keys; the request is the normalized arguments.
      const input = artifactJson(dir, "canonical-input.json");
      assert.deepEqual(Object.keys(input).sort(), ["context", "cwd", "request", "schema_version", "workflow"]);
      assert.deepEqual(input.context, { kind: "clean_task" });
      assert.equal(input.cwd, env.cwd);
      assert.deepEqual(input.request, { ...INVESTIGATE_ARGS, scope: [], constraints: [] });

      // Children's argv: candidates get exactly the inspect tools and the exact deny list; the
      // evaluator and merger none.
      const argvs = fs.readFileSync(argvLog, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(argvs.length, 5);
      const toolFlags = (argv) => argv.slice(argv.indexOf("--no-session") + 1, argv.indexOf("--no-extensions"));
      const candidates = argvs.filter((a) => a.includes("--no-builtin-tools"));
      assert.equal(candidates.length, 3);
      for (const argv of candidates) {
        assert.deepEqual(toolFlags(argv), ["--no-builtin-tools", "--tools", "read,grep,find,ls", "--exclude-tools", DENY]);
      }
      for (const argv of argvs.filter((a) => !a.includes("--no-builtin-tools"))) assert.deepEqual(toolFlags(argv), ["--no-tools"]);

      // The model saw exactly the four tools, and real results from ripgrep and fd.
      assertCandidatesOffered(env, INSPECT_TOOLS);
      const results = candidateBatches(env);
      assert.equal(results.length, 3);
      for (const batch of results) {
        assert.deepEqual(batch.map((t) => t.name), INSPECT_TOOLS);
        assert.match(batch[0].text, /The answer is FORTY-TWO\./);
        assert.match(batch[1].text, /app\.txt:1: The answer is FORTY-TWO\./);
        assert.match(batch[2].text, /docs\/notes\.md/);
        assert.match(batch[3].text, /app\.txt/);
      }

      // Three journals and seals, bound to the manifest, hash-consistent, with no file content.
      for (const slot of [1, 2, 3]) {
        const { journal, seal, records } = auditLog(dir, slot);
        assert.equal(seal.schema_version, "pi-background-tasks.fusion-tool-call-seal.v1");
        assert.equal(seal.status, "complete");
        assert.equal(seal.record_count, 4);
        assert.equal(seal.journal_sha256, sha256(journal));
        assert.deepEqual(records.map((x) => [x.ordinal, x.status]), [[1, "ok"], [2, "ok"], [3, "ok"], [4, "ok"]]);
        assert.deepEqual(records.map((x) => x.tool_name).sort(), [...INSPECT_TOOLS].sort());
        assert.ok(!journal.includes("FORTY") && !journal.includes("app.txt"), "no arguments or content in the log");
        const refs = manifest.artifacts;
        assert.equal(refs[`candidate-${slot}.attempt-1.tool-calls.jsonl`].sha256, sha256(journal));
        assert.ok(refs[`candidate-${slot}.attempt-1.seal.json`]);
        assertAuditLogSchemas(dir, slot);
        // Each call says when it started, within its attempt, on the manifest's own clock form;
        // the attempt says when its first output came and when its process exited.
        const attempt = manifest.attempts.find((a) => a.stage === "candidate" && a.slot === slot);
        const [start, end] = [Date.parse(attempt.started_at), Date.parse(attempt.ended_at)];
        for (const x of records) {
          assert.match(x.started_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
          assert.ok(start <= Date.parse(x.started_at) && Date.parse(x.started_at) <= end, JSON.stringify({ attempt, x }));
        }
        const first = Date.parse(attempt.first_output_at);
        // The model streamed before it called a tool (the child's clock and the parent's read of
        // its frame may differ by the read's latency, a millisecond or two).
        assert.ok(start <= first && first <= Math.min(...records.map((x) => Date.parse(x.started_at))) + 5, JSON.stringify(attempt));
        assert.ok(Date.parse(attempt.exit.exited_at) >= first, JSON.stringify(attempt));
      }
      for (const attempt of manifest.attempts) {
        assert.ok(attempt.first_output_at && attempt.exit.exited_at, JSON.stringify(attempt));
      }
      assertConforms("fusion-manifest.v5.json", path.join(dir, "manifest.json"));
      assert.ok(!fs.existsSync(path.join(dir, "evaluation.attempt-1.tool-calls.jsonl")), "the evaluator has no log");
    }));

  test("reads outside the project, through a symlink or by absolute path, and write/bash calls are refused and journaled", async () => {
    const attempts = [
      { name: "read", arguments: { path: "../outside.txt" } },
      { name: "read", arguments: { path: "ABSOLUTE" } },
      { name: "read", arguments: { path: "escape.txt" } },
      { name: "grep", arguments: { pattern: "T.P-S", path: ".." } },
      { name: "write", arguments: { path: "pwned.txt", content: "owned" } },
      { name: "bash", arguments: { command: "touch bashed.txt" } },
    ];
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      const outside = path.join(path.dirname(env.cwd), "outside.txt");
      fs.writeFileSync(outside, "TOP-SECRET\n");
      fs.symlinkSync(outside, path.join(env.cwd, "escape.txt"));
      attempts[1].arguments.path = outside;
      env.server.setScript({ rules: agentFlowRules(candidateRules([{ tool_calls: attempts }])) });
      const batches = await investigateBatches(env);
      // (openai-completions carries no error flag on the wire; the journal below records it.)
      for (const batch of batches) {
        for (const t of batch.slice(0, 4)) assert.match(t.text, /^Refused: ".*" (is|resolves) outside the project directory/);
        assert.equal(batch[4].text, "Tool write not found");
        assert.equal(batch[5].text, "Tool bash not found");
      }
      // Nothing outside the project reached any model, and nothing changed on disk.
      assert.ok(env.requests().every((q) => !JSON.stringify(q.body).includes("TOP-SECRET")));
      assert.ok(!fs.existsSync(path.join(env.cwd, "pwned.txt")));
      assert.ok(!fs.existsSync(path.join(env.cwd, "bashed.txt")));
      assert.equal(fs.readFileSync(outside, "utf8"), "TOP-SECRET\n");

      const [dir] = runDirs(env);
      assert.equal(manifestOf(dir).state, "completed");
      for (const slot of [1, 2, 3]) {
        const { seal, records } = auditLog(dir, slot);
        assert.equal(seal.status, "complete");
        assert.deepEqual(records.map((x) => [x.tool_name, x.status]),
          [["read", "error"], ["read", "error"], ["read", "error"], ["grep", "error"], ["write", "error"], ["bash", "error"]]);
        // The file-tool refusals say why; the tools that do not exist are not the walls' doing.
        assert.deepEqual(records.map((x) => x.error_code ?? null),
          ["path_outside_project", "path_outside_project", "path_outside_project", "path_outside_project", null, null]);
        assertAuditLogSchemas(dir, slot);  // refused calls' records too
      }
    });
  });

  test("outside a git repository: find and grep work with Debian 12's fd 8.6 and ripgrep", async () => {
    // Pi's own find passes fd `--no-require-git` outside a git repository, a flag fd 8.6 rejects;
    // the candidates' rebuilt find must not. The fixture here has no .git anywhere above it.
    const files = Object.fromEntries(Object.entries(FIXTURE_FILES).filter(([name]) => !name.startsWith(".git/")));
    const calls = [
      { name: "find", arguments: { pattern: "*.md" } },
      { name: "find", arguments: { pattern: "src/*.txt" } },
      { name: "grep", arguments: { pattern: "FORTY", path: "." } },
    ];
    await withFixtureEnv({ files, script: { rules: agentFlowRules(candidateRules([{ tool_calls: calls }])) } }, async (env) => {
      for (let dir = env.cwd; dir !== path.dirname(dir); dir = path.dirname(dir)) {
        assert.ok(!fs.existsSync(path.join(dir, ".git")), `${dir} is inside a git repository`);
      }
      for (const batch of await investigateBatches(env)) {
        assert.deepEqual(batch.map((t) => t.name), ["find", "find", "grep"]);
        assert.equal(batch[0].text.trim(), "docs/notes.md");
        assert.equal(batch[1].text.trim(), "src/app.txt");
        assert.match(batch[2].text, /app\.txt:1: The answer is FORTY-TWO\./);
      }
      const [dir] = runDirs(env);
      for (const slot of [1, 2, 3]) {
        assert.deepEqual(auditLog(dir, slot).records.map((x) => x.status), ["ok", "ok", "ok"]);
      }
    });
  });

  test("the clean-task input has identical bytes across two Pi processes", async () => {
    const reordered = { deliverable: INVESTIGATE_ARGS.deliverable, background: INVESTIGATE_ARGS.background, objective: INVESTIGATE_ARGS.objective };
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      const inputs = [];
      for (const args of [INVESTIGATE_ARGS, reordered]) {
        env.server.setScript({ rules: agentFlowRules(candidateRules([{ text: "No tools needed." }]), "done", args) });
        const r = await env.print("please investigate");
        assert.equal(r.code, 0, r.stderr);
        const newest = runDirs(env).find((d) => !inputs.some((i) => i.dir === d));
        inputs.push({ dir: newest, bytes: fs.readFileSync(path.join(newest, "canonical-input.json")) });
      }
      assert.equal(inputs.length, 2);
      assert.notEqual(inputs[0].dir, inputs[1].dir);
      assert.ok(inputs[0].bytes.equals(inputs[1].bytes), `${inputs[0].bytes} != ${inputs[1].bytes}`);
    });
  });

  test("json mode and RPC mode: the agent launches, is woken, and retrieves the verified answer", async () => {
    const rules = agentFlowRules(candidateRules([{ tool_calls: FILE_TOOL_CALLS.slice(0, 1) }]), "FINAL: got it");
    await withFixtureEnv({ script: { rules } }, async (env) => {
      const j = await env.json("please investigate");
      assert.equal(j.code, 0, j.stderr);
      assert.equal(j.text, "FINAL: got it");

      const rpc = env.rpc();
      const first = await rpc.prompt("please investigate");
      assert.equal(first.text, "Launched; waiting.");
      await rpc.waitFor((r) => r.type === "message_end" && r.message?.role === "assistant" &&
        JSON.stringify(r.message.content).includes("FINAL: got it"));
      await rpc.close();
      const retrieved = env.requests().filter((q) => q.tool_results?.some((t) => t.name === "bg_result"));
      assert.equal(retrieved.length, 2);
      for (const q of retrieved) assert.ok(q.tool_results[0].text.includes(MERGED_TEXT));
      for (const dir of runDirs(env)) assert.equal(manifestOf(dir).state, "completed");
    });
  });
});
