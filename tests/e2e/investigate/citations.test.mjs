/**
 * @file The citation check end to end (docs/citations.md): real candidate children of a real
 * fusion_investigate run answer with citations of the fixture project — an existing line with its
 * quote, a line past the end, a missing file, a protected path and a wrong quote — and the run's
 * result details, bg_result's text and print mode's stderr list exactly the broken ones.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { agentRules, STAGE } from "../../support/fusion_script.mjs";
import { artifactJson, manifestOf, runDirs } from "../../support/fusion_runs.mjs";
import { assertConforms, assertValueConforms } from "../../support/schema_check.mjs";
import { FIXTURE_FILES, INVESTIGATE_ARGS, stageRules, withFixtureEnv } from "./investigate_support.mjs";

const CITING_ANSWER = [
  "The answer is in `src/app.txt:1`, which holds `The answer is FORTY-TWO.`",
  "The file goes on at src/app.txt:9 (it does not).",
  "The parser lives in [the parser](src/gone.txt:3).",
  "The key is in .env:1 as well.",
  "The notes at `docs/notes.md:2` say `Everything secret here.`",
].join("\n");

const EXPECTED_BROKEN = [
  { ref: "src/app.txt:9", reason: "past_end", detail: "is past the end (1 line)" },
  { ref: "src/gone.txt:3", reason: "missing_file", detail: "names a file that does not exist" },
  { ref: ".env:1", reason: "not_checkable" },
  { ref: "docs/notes.md:2", reason: "quote_not_found", detail: "does not hold `Everything secret here.`" },
];

/** Every candidate answers with CITING_ANSWER at once (no tool call needed to cite). */
function citingRules() {
  const candidate = { name: "citing-candidate", match: STAGE.candidate, responses: [{ text: CITING_ANSWER }] };
  return agentRules({ workflow: "investigate", args: INVESTIGATE_ARGS, ask: "please investigate", stages: stageRules([candidate]) });
}

describe("citation check", () => {
  test("broken citations of the candidates are listed in details, bg_result's text and print-mode stderr", () =>
    withFixtureEnv({ files: { ...FIXTURE_FILES, ".env": "TOKEN=do-not-read\n" }, script: { rules: citingRules() } }, async (env) => {
      const r = await env.print("please investigate");
      assert.equal(r.code, 0, r.stderr);
      const [dir] = runDirs(env);
      const details = artifactJson(dir, "result.json").details;
      const { citations } = details;
      assert.equal(citations.checked, 5);
      assert.deepEqual(
        citations.broken.map(({ ref, reason, detail }) => (reason === "not_checkable" ? { ref, reason } : { ref, reason, detail })),
        EXPECTED_BROKEN);
      for (const row of citations.broken) assert.deepEqual(row.in, ["candidate 1", "candidate 2", "candidate 3"]);
      // The protected file was never read: no row for it, and its secret reached no model or text.
      assert.deepEqual(citations.files.map((f) => f.path).sort(), ["docs/notes.md", "src/app.txt"]);
      assert.ok(citations.files.every((f) => f.changed_during_run === false));
      assert.deepEqual(manifestOf(dir).citations, citations);
      assertValueConforms("fusion-result.v6.json", details, env.tmp, "details.json");
      assertConforms("fusion-manifest.v5.json", `${dir}/manifest.json`);

      // bg_result's text (the agent quotes it): the summary line, then one line per broken citation.
      assert.ok(r.stdout.includes("citations: 5 checked, 4 broken — src/app.txt:9 is past the end (1 line) (+3 more)"), r.stdout);
      assert.ok(r.stdout.includes("- src/gone.txt:3 names a file that does not exist [missing_file; in candidate 1, candidate 2, candidate 3]"), r.stdout);
      assert.match(r.stdout, /- \.env:1 may not be read: .* \[not_checkable; in /);
      assert.match(r.stdout, /\nPanel: 1 agreement, 0 conflicts; candidates from one model\./);
      // Print mode's stderr carries the same line as a progress note.
      assert.match(r.stderr, /citations: 5 checked, 4 broken — src\/app\.txt:9 is past the end/);
      assert.ok(!r.stdout.includes("do-not-read") && !r.stderr.includes("do-not-read"));
    }));
});
