/**
 * @file The walls around investigate's candidates, attacked through the real Pi: three real
 * candidate children use read/grep/find/ls (ripgrep and fd) against a project holding Fusion's
 * own run store, Pi's data, credentials, FIFOs and a path swapped under them; nothing behind the
 * walls may reach a tool result, every refusal is journaled with its code, and no run hangs.
 * Each "nothing found" check has a sanity check beside it that the thing to find is really there
 * (docs/testing.md: a check that something did not happen must be able to see it).
 */
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, test } from "node:test";
import { fusionRules, MERGED_TEXT, STAGE, writeFusionModels } from "../../support/fusion_script.mjs";
import { artifactJson, runDirs } from "../../support/fusion_runs.mjs";
import {
  agentFlowRules, auditLog, candidateBatches, candidateRules, FIXTURE_FILES, withFixtureEnv,
} from "../investigate/investigate_support.mjs";

const SWAP = path.join(path.dirname(new URL(import.meta.url).pathname), "fixtures", "swap.mjs");

/** error_code of each refused record of candidate `slot`'s journal, in journal order. */
function refusalCodes(dir, slot) {
  return auditLog(dir, slot).records.filter((r) => r.status === "error").map((r) => r.error_code);
}

function runDirOf(env, prefix) {
  const dirs = runDirs(env).filter((d) => path.basename(d).startsWith(prefix));
  assert.equal(dirs.length, 1, `one ${prefix} run: ${dirs}`);
  return dirs[0];
}

async function investigate(env, calls, extra = {}) {
  env.server.setScript({ rules: agentFlowRules(candidateRules([{ tool_calls: calls }])) });
  const r = await env.print("please investigate", extra);
  assert.equal(r.code, 0, r.stderr);
  const failure = runDirs(env).map((d) => path.join(d, "error.json")).find((f) => fs.existsSync(f));
  assert.ok(r.stdout.includes(MERGED_TEXT), `${r.stdout}\n${failure ? fs.readFileSync(failure, "utf8") : ""}`);
  const batches = candidateBatches(env);
  assert.equal(batches.length, 3);
  return { dir: runDirOf(env, "investigate-"), batches };
}

describe("walls around the candidates", () => {
  for (const git of [true, false]) {
  test(`the run store does not exist for candidates: an earlier run's conversation is never found, named or walked (${git ? "in" : "outside"} a git repository)`, async () => {
    const CODEWORD = "CODEWORD-PLUM-7731";
    const files = git ? FIXTURE_FILES : Object.fromEntries(Object.entries(FIXTURE_FILES).filter(([k]) => !k.startsWith(".git/")));
    await withFixtureEnv({ script: { rules: fusionRules() }, files }, async (env) => {
      const first = await env.print(`/fusion What does ${CODEWORD} mean?`);
      assert.equal(first.code, 0, first.stderr);
      const reasonDir = runDirOf(env, "reason-");
      const input = path.relative(env.cwd, path.join(reasonDir, "canonical-input.json"));
      // The hit is there to find: the earlier run's input holds the codeword.
      assert.ok(fs.readFileSync(path.join(env.cwd, input), "utf8").includes(CODEWORD));
      fs.symlinkSync(".pi/fusion", path.join(env.cwd, "store-link"));
      fs.symlinkSync(".pi", path.join(env.cwd, "pi-link"));

      const calls = [
        { name: "grep", arguments: { pattern: CODEWORD, path: "." } },
        { name: "grep", arguments: { pattern: CODEWORD, path: ".pi" } },
        { name: "grep", arguments: { pattern: CODEWORD } },
        { name: "grep", arguments: { pattern: CODEWORD, path: "pi-link" } },
        { name: "find", arguments: { pattern: "*.json", path: ".pi" } },
        { name: "find", arguments: { pattern: "**/canonical-input.json" } },
        { name: "ls", arguments: { path: ".pi" } },
        { name: "read", arguments: { path: input } },
        { name: "ls", arguments: { path: ".pi/fusion" } },
        { name: "grep", arguments: { pattern: CODEWORD, path: "store-link" } },
        { name: "read", arguments: { path: path.join("store-link", path.relative(".pi/fusion", input)) } },
        { name: "find", arguments: { pattern: "*", path: path.join(env.cwd, ".pi", "fusion") } },
      ];
      const { dir, batches } = await investigate(env, calls);
      for (const batch of batches) {
        assert.equal(batch.length, calls.length);
        for (const result of batch) {
          assert.ok(!result.text.includes(CODEWORD), `${result.name}: ${result.text}`);
          // A refusal quotes the path the model named; nothing else may name a run file.
          if (!result.text.startsWith("Refused:")) {
            assert.ok(!result.text.includes("canonical-input"), `${result.name}: ${result.text}`);
          }
        }
        // Walks see the project, as if the store were not there.
        assert.match(batch[0].text, /No matches found/);
        assert.match(batch[4].text, /No files found/);
        assert.ok(!/fusion/.test(batch[6].text), batch[6].text);
        // Named paths are refused, saying why.
        for (const i of [7, 8, 9, 10, 11]) {
          assert.match(batch[i].text, /Fusion's run store/);
        }
      }
      for (const slot of [1, 2, 3]) {
        assert.deepEqual(refusalCodes(dir, slot), Array(5).fill("path_in_run_store"));
      }
      // Counted in the run's result, so a person sees that the candidates tried.
      const details = artifactJson(dir, "result.json").details;
      assert.deepEqual(details.tool_refusals, [1, 2, 3].map((slot) => ({ slot, count: 5, by_code: { path_in_run_store: 5 } })));
    });
  });
  }

  test("a candidate that lands late finds none of its siblings' answers in the run directory", async () => {
    const MARK = "SIBLING-MARK-5521";
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      writeFusionModels(env, {
        candidates: ["scripted/scripted-a", "scripted/scripted-a", "scripted/scripted-b"],
        evaluator: "$current", merger: "$current",
      });
      const late = [
        { name: "grep", arguments: { pattern: MARK, path: "." } },
        { name: "grep", arguments: { pattern: MARK, path: ".pi" } },
        { name: "find", arguments: { pattern: "*.md", path: ".pi" } },
        { name: "ls", arguments: { path: ".pi/fusion" } },
      ];
      const rules = agentFlowRules([
        { name: "late-answer", match: { ...STAGE.candidate, model: "scripted-b", last_role: "tool" }, responses: [{ text: "Late: {{tool_results}}" }] },
        { name: "late-tools", match: { ...STAGE.candidate, model: "scripted-b", last_role: "user" }, responses: [{ delay_ms: 4000, tool_calls: late }] },
        { name: "early", match: { ...STAGE.candidate, model: "scripted-a" }, responses: [{ text: `Early answer ${MARK}.` }] },
      ]);
      env.server.setScript({ rules });
      const r = await env.print("please investigate");
      assert.equal(r.code, 0, r.stderr);
      const dir = runDirOf(env, "investigate-");
      // The siblings' answers were in the run directory to be found.
      const landed = fs.readdirSync(dir).filter((f) => /^candidate-[12]\.attempt-1\.response/.test(f));
      assert.equal(landed.length, 2, fs.readdirSync(dir).join(" "));
      for (const f of landed) assert.ok(fs.readFileSync(path.join(dir, f), "utf8").includes(MARK));
      const lateRequests = env.requests().filter((q) => q.model === "scripted-b" && q.last_user_text.includes(STAGE.candidate.text));
      const earlyAnswers = env.requests().filter((q) => q.model === "scripted-a" && q.rule_name === "early");
      assert.equal(earlyAnswers.length, 2);
      const batch = lateRequests.find((q) => q.last_role === "tool").tool_results;
      // The late candidate's tools ran well after both siblings had answered.
      const toolsRanAfter = Date.parse(lateRequests.find((q) => q.last_role === "user").time) + 4000;
      for (const q of earlyAnswers) assert.ok(Date.parse(q.time) + 2000 < toolsRanAfter);
      for (const result of batch) assert.ok(!result.text.includes(MARK), `${result.name}: ${result.text}`);
      assert.match(batch[0].text, /No matches found/);
      assert.match(batch[3].text, /Fusion's run store/);
      assert.deepEqual(refusalCodes(dir, 3), ["path_in_run_store"]);
    });
  });

  test("FIFOs and sockets in the project are refused at once; walks skip them and the run ends on time", async () => {
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      let writer;
      let server;
      try {
        execFileSync("mkfifo", [path.join(env.cwd, "pipe"), path.join(env.cwd, "held")]);
        // A writer that holds `held` open and never writes or closes: a reader would wait forever.
        writer = spawn("sh", ["-c", "exec 3>held; exec sleep 600"], { cwd: env.cwd, stdio: "ignore" });
        server = net.createServer().listen(path.join(env.cwd, "sock"));
        await new Promise((resolve) => server.on("listening", resolve));
        const calls = [
          { name: "read", arguments: { path: "pipe" } },
          { name: "read", arguments: { path: "held" } },
          { name: "grep", arguments: { pattern: "x", path: "pipe" } },
          { name: "grep", arguments: { pattern: "x", path: "held" } },
          { name: "read", arguments: { path: "sock" } },
          { name: "grep", arguments: { pattern: "FORTY" } },
          { name: "find", arguments: { pattern: "*" } },
          { name: "ls", arguments: {} },
        ];
        const started = Date.now();
        const { dir, batches } = await investigate(env, calls);
        assert.ok(Date.now() - started < 120000, "the run did not wait on a FIFO");
        for (const batch of batches) {
          for (const i of [0, 1, 2, 3, 4]) {
            assert.match(batch[i].text, /not a regular file or directory/);
          }
          assert.match(batch[5].text, /app\.txt:1: The answer is FORTY-TWO\./);
          for (const i of [6, 7]) {
            assert.match(batch[i].text, /src/);
            assert.ok(!/\b(pipe|held|sock)\b/.test(batch[i].text), batch[i].text);
          }
        }
        for (const slot of [1, 2, 3]) assert.deepEqual(refusalCodes(dir, slot), Array(5).fill("path_not_regular"));
      } finally {
        writer?.kill("SIGKILL");
        server?.close();
      }
    });
  });

  test("a path swapped between a file and a symlink out while candidates read it 150 times never yields the outside file", async () => {
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      const outside = path.join(path.dirname(env.cwd), "outside-secret.txt");
      fs.writeFileSync(outside, "OUTSIDE-SECRET\n");
      const swapper = spawn(process.execPath, [SWAP, env.cwd, outside], { stdio: ["ignore", "pipe", "inherit"] });
      try {
        await new Promise((resolve, reject) => {
          swapper.stdout.once("data", resolve);
          swapper.once("exit", () => reject(new Error("the swapper ended early")));
        });
        const calls = Array.from({ length: 150 }, () => ({ name: "read", arguments: { path: "race.txt" } }));
        const { dir, batches } = await investigate(env, calls);
        let inside = 0;
        let refused = 0;
        for (const batch of batches) {
          assert.equal(batch.length, 150);
          for (const result of batch) {
            assert.ok(!result.text.includes("OUTSIDE-SECRET"), result.text);
            if (result.text.includes("INSIDE-CONTENT")) inside += 1;
            if (/^Refused: .*outside the project/.test(result.text)) refused += 1;
          }
        }
        // Every read met one of the two states, and the swapper kept swapping throughout (a batch's
        // reads run within milliseconds, so under load they may all meet the same state).
        assert.equal(inside + refused, 450, `inside ${inside}, refused ${refused}`);
        assert.equal(swapper.exitCode, null, "the swapper ran through the whole run");
        for (const slot of [1, 2, 3]) {
          for (const code of refusalCodes(dir, slot)) assert.ok(["path_outside_project", "path_not_found"].includes(code), code);
        }
      } finally {
        swapper.kill("SIGKILL");
      }
    });
  });

  test("Pi started in a home directory: credentials and Pi's own data are refused or skipped; .env.example stays readable", async () => {
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      // The project is the home directory, and Pi's agent directory is ~/.pi/agent inside it.
      const agent = path.join(env.cwd, ".pi", "agent");
      fs.cpSync(env.agentDir, agent, { recursive: true });
      const secrets = {
        ".ssh/id_ed25519": "SSH-KEY-SECRET\n",
        ".pi/agent/auth.json": '{"anthropic":{"type":"oauth","access":"OAUTH-TOKEN-SECRET"}}\n',
        ".env": "API_KEY=ENV-SECRET\n",
        ".env.local": "API_KEY=ENV-LOCAL-SECRET\n",
        ".aws/credentials": "aws_secret_access_key=AWS-SECRET\n",
        ".env.example": "API_KEY=EXAMPLE-PLACEHOLDER\n",
      };
      for (const [rel, content] of Object.entries(secrets)) env.writeFile(rel, content);
      const calls = [
        { name: "read", arguments: { path: "~/.ssh/id_ed25519" } },
        { name: "read", arguments: { path: ".pi/agent/auth.json" } },
        { name: "read", arguments: { path: ".pi/agent/models.json" } },
        { name: "read", arguments: { path: ".env" } },
        { name: "read", arguments: { path: ".env.local" } },
        { name: "ls", arguments: { path: "~/.aws" } },
        { name: "grep", arguments: { pattern: "SECRET|scripted-key" } },
        { name: "find", arguments: { pattern: "*" } },
        { name: "read", arguments: { path: ".env.example" } },
      ];
      const { dir, batches } = await investigate(env, calls, { env: { HOME: env.cwd, PI_CODING_AGENT_DIR: agent } });
      for (const batch of batches) {
        for (const result of batch) {
          assert.ok(!/SECRET|scripted-key/.test(result.text), `${result.name}: ${result.text}`);
        }
        for (const i of [0, 1, 2, 3, 4, 5]) {
          assert.match(batch[i].text, /credentials|Pi's agent directory/);
        }
        assert.match(batch[6].text, /No matches found/);
        assert.match(batch[7].text, /\.env\.example/);
        assert.ok(!/id_ed25519|auth\.json|\.env\.local|\.aws/.test(batch[7].text), batch[7].text);
        assert.match(batch[8].text, /EXAMPLE-PLACEHOLDER/);
      }
      for (const slot of [1, 2, 3]) assert.deepEqual(refusalCodes(dir, slot), Array(6).fill("path_protected"));
    });
  });
});
