/**
 * @file Secrets a candidate never reads, attacked through the real Pi in one investigate run:
 * the credential files of other tools (the protected-names table), a private key in an
 * unexpected place (found by its content), a hard link to `.env` under an innocent name, Pi's
 * session directories however Pi was told them (a shipped `.pi/settings.json` "sessionDir" and
 * the parent's `--session-dir`) holding a fake conversation, and `.git/config` whose remote URL
 * carries a token (read redacted). Each "nothing found" check has its control beside it: the
 * same walk finds a plain file's mark, and the planted secrets are there to be found.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { MERGED_TEXT } from "../../support/fusion_script.mjs";
import { runDirs } from "../../support/fusion_runs.mjs";
import {
  agentFlowRules, auditLog, candidateBatches, candidateRules, withFixtureEnv,
} from "../investigate/investigate_support.mjs";

/** Credential files of other tools, each holding its own secret. */
const CREDENTIALS = [
  ".git-credentials", ".envrc", ".env-prod", "deploy/prod.env", ".claude/.credentials.json",
  ".codex/auth.json", ".config/gh/hosts.yml", ".cargo/credentials.toml", ".vault-token",
  ".config/git/credentials", ".local/share/keyrings/login.keyring",
  ".mozilla/firefox/abc.default/logins.json", ".mozilla/firefox/abc.default/key4.db", ".pgpass",
  ".my.cnf", ".terraformrc", ".bash_history",
];
const secretOf = (i) => `TABLE-SECRET-${i}`;
const KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nKEY-SECRET-b3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----\n";

describe("secrets behind the walls", () => {
  test("credential files, a stray private key, a hard link to .env, Pi's session directories and .git/config's token never reach a candidate", async () => {
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      CREDENTIALS.forEach((rel, i) => env.writeFile(rel, `token = ${secretOf(i)}\n`));
      env.writeFile("config/deploy_key", KEY);
      env.writeFile(".env", "API_KEY=LINKED-ENV-SECRET\n");
      fs.linkSync(path.join(env.cwd, ".env"), path.join(env.cwd, "docs/env-notes.txt"));
      // A shipped settings file puts Pi's sessions in the project; the parent runs with its own
      // --session-dir inside the project too. Both hold a fake earlier conversation.
      env.writeFile(".pi/settings.json", JSON.stringify({ sessionDir: ".pi/sessions" }));
      env.writeFile(".pi/sessions/2026-01-01_a.jsonl", '{"type":"message","text":"CONVERSATION-SECRET-A"}\n');
      env.writeFile("convs/2026-01-01_b.jsonl", '{"type":"message","text":"CONVERSATION-SECRET-B"}\n');
      env.writeFile(".git/config", '[remote "origin"]\n\turl = https://user:GIT-TOKEN-SECRET@example.com/o/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n');
      env.writeFile("src/plain.txt", "VISIBLE-MARK SECRET-LOOKALIKE-CONTROL\n");
      const reads = [...CREDENTIALS, "config/deploy_key", "docs/env-notes.txt",
        ".pi/sessions/2026-01-01_a.jsonl", "convs/2026-01-01_b.jsonl"];
      const calls = [
        ...reads.map((p) => ({ name: "read", arguments: { path: p } })),
        { name: "grep", arguments: { pattern: "SECRET" } },
        { name: "grep", arguments: { pattern: "SECRET", path: ".pi" } },
        { name: "grep", arguments: { pattern: "SECRET", path: "convs", glob: "*.jsonl" } },
        { name: "grep", arguments: { pattern: "example", path: ".git" } },
        { name: "grep", arguments: { pattern: "GIT-TOKEN", path: ".git/config" } },
        { name: "read", arguments: { path: ".git/config" } },
        { name: "find", arguments: { pattern: "*" } },
      ];
      // The secrets are there to be found.
      assert.ok(fs.readFileSync(path.join(env.cwd, "docs/env-notes.txt"), "utf8").includes("LINKED-ENV-SECRET"));
      env.server.setScript({ rules: agentFlowRules(candidateRules([{ tool_calls: calls }])) });
      const r = await env.print("please investigate", { session: true, args: ["--session-dir", path.join(env.cwd, "convs")] });
      assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}\ntimed out: ${r.timedOut} signal: ${r.signal}`);
      assert.ok(r.stdout.includes(MERGED_TEXT), r.stdout);
      const batches = candidateBatches(env);
      assert.equal(batches.length, 3);
      const n = reads.length;
      for (const batch of batches) {
        assert.equal(batch.length, calls.length);
        for (const result of batch) {
          const leaked = result.text.replace(/SECRET-LOOKALIKE-CONTROL/g, "");
          assert.ok(!/SECRET|TOKEN-SECRET|b3BlbnNzaC1rZXk/.test(leaked), `${result.name}: ${result.text}`);
        }
        for (let i = 0; i < n; i++) assert.match(batch[i].text, /^Refused: /, `${reads[i]}: ${batch[i].text}`);
        const c = CREDENTIALS.length;
        assert.match(batch[c].text, /private key/);
        assert.match(batch[c + 1].text, /hard link/);
        assert.match(batch[c + 2].text, /session directories/);
        assert.match(batch[c + 3].text, /session directories/);
        // The control: the same walk finds the plain file.
        assert.match(batch[n].text, /src\/plain\.txt:1: VISIBLE-MARK/);
        assert.match(batch[n + 1].text, /No matches found/);
        assert.match(batch[n + 2].text, /^Refused: .*session directories/);
        assert.match(batch[n + 3].text, /No matches found/);  // the URL line holds a token
        assert.match(batch[n + 4].text, /No matches found/);
        assert.match(batch[n + 5].text, /url = https:\/\/\*\*\*@example\.com\/o\/r\.git/);
        assert.match(batch[n + 5].text, /fetch = \+refs\/heads/);
        assert.match(batch[n + 6].text, /src\/plain\.txt/);
        assert.ok(!/env-notes|\.pgpass|logins\.json|\.vault-token|2026-01-01/.test(batch[n + 6].text), batch[n + 6].text);
      }
      const dir = runDirs(env).find((d) => path.basename(d).startsWith("investigate-"));
      for (const slot of [1, 2, 3]) {
        const codes = auditLog(dir, slot).records.filter((x) => x.status === "error").map((x) => x.error_code);
        assert.deepEqual(codes, Array(n + 1).fill("path_protected"));
      }
    });
  });
});
