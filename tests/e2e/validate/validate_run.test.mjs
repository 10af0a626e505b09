/**
 * @file fusion_validate end to end inside the real pinned Pi: three real reviewer children with
 * read-only tools, the scripted model playing every role, the minority rule, the audited fence
 * recovery, the evaluator's findings accounting with its one repair, and the host-rendered
 * report delivered through bg_result.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { writeFusionModels } from "../../support/fusion_script.mjs";
import {
  artifactJson, artifactText, runDirs, sha256, survivingChildren, withFusionEnv,
} from "../../support/fusion_runs.mjs";
import { offeredTools } from "../../support/pi_harness.mjs";
import {
  GROUP, SUMMARY, VALIDATE_ARGS, evaluation, finding, report, validateAgentRules, validateRules,
} from "../../support/validate_script.mjs";

const RUN_TIMEOUT_MS = 180000;

/** Candidate slots on distinct routes (model or API), so a reviewer can be scripted alone. */
function distinctReviewers(env) {
  writeFusionModels(env, {
    candidates: ["scripted/scripted-a", "scripted/scripted-b", "scripted-resp/scripted-a"],
    evaluator: "scripted/scripted-a",
    merger: "scripted/scripted-a",
  });
}

/**
 * Runs one validate launch to its end in a new environment, then `check({env, r, dir, dirs})`:
 * the print result and the run directory. `options`: {setup(env), args}.
 */
function validate(script, options, check) {
  const { setup, args } = check ? options : {};
  return withFusionEnv({ script: { rules: [...validateAgentRules(args), ...script] }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
    setup?.(env);
    const r = await env.print("please validate");
    const dirs = runDirs(env);
    return (check ?? options)({ env, r, dir: dirs[0], dirs });
  });
}

const EXPECTED_REPORT = `# Validation report

## Summary

${SUMMARY}

## Findings

### high: ${GROUP.summary}

- Location: ${GROUP.location}
- Evidence: ${GROUP.evidence}
- Impact: ${GROUP.impact}
- Inclusion rationale: ${GROUP.rationale}

## Excluded source findings

- C-F001 (high, src/config.cc:42): nested duplicates pass — the cited line does not say that

## Verified

- duplicate keys are rejected at the top level

## Limitations

- did not read the tests
`;

describe("fusion validate end to end", () => {
  test("three clean reports: accounted findings, a host-rendered report, verified by bg_result", async () => {
    await validate(validateRules(), async ({ env, r, dir }) => {
      assert.equal(r.code, 0, r.stderr);
      assert.match(path.basename(dir), /^validate-[0-9a-f]{32}$/);
      const manifest = artifactJson(dir, "manifest.json");
      assert.equal(manifest.state, "completed");
      assert.equal(manifest.attempts.length, 5);
      assert.equal(artifactText(dir, "merged.md"), EXPECTED_REPORT);
      assert.ok(r.stdout.includes(EXPECTED_REPORT), r.stdout);
      assert.ok(!("dropped_reviewers" in manifest));
      const { details } = artifactJson(dir, "result.json");
      assert.deepEqual(details.dropped_reviewers, []);
      assert.deepEqual(details.tool_refusals, []);
      // Every finding's location cites src/config.cc:42, a file this project does not have: the
      // citation check names it broken, with the findings and the report that made it.
      assert.equal(details.citations.checked, 1);
      assert.deepEqual(details.citations.broken.map(({ ref, reason }) => ({ ref, reason })),
        [{ ref: "src/config.cc:42", reason: "missing_file" }]);
      assert.deepEqual(details.citations.broken[0].in, ["finding A-F001", "finding B-F001", "finding C-F001", "answer"]);
      assert.deepEqual(manifest.citations, details.citations);
      assert.ok(!manifest.artifacts["validation-report.full.md"], "a report within the cap is whole");
      assert.match(r.stdout, /^FINAL: Fusion validate-[0-9a-f]{32} completed \(validate\)\.\nPanel: \d+ agreements?, \d+ conflicts?; candidates from one model\.\nAnswer: \d+ bytes, sha256:[0-9a-f]{64} \(verified\)/);
      const blind = artifactJson(dir, "blind-candidates.json");
      assert.deepEqual(blind.candidates.map((c) => c.candidate_id), ["A", "B", "C"]);
      assert.deepEqual(blind.validation_source_findings.map((f) => f.source_id), ["A-F001", "B-F001", "C-F001"]);
      assert.deepEqual(JSON.parse(blind.candidates[0].response), report());
      assert.deepEqual(artifactJson(dir, "evaluation.json").validation_accounting, evaluation().validation_accounting);
      // Reviewers run with the read-only tools; the evaluator and merger with none.
      const stages = env.requests().filter((q) => q.body?.model);
      const reviewers = stages.filter((q) => q.last_user_text.startsWith("Answer the request"));
      assert.equal(reviewers.length, 3);
      for (const q of reviewers) {
        assert.deepEqual(offeredTools(q).sort(), ["find", "grep", "ls", "read"]);
        assert.match(JSON.stringify(q.body.messages[0]), /fusion-validation-candidate\.v1/);
      }
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("policy.evaluator_tools: the evaluator reads the project under its sealed log and its checked claim reaches the result", async () => {
    const V2 = "pi-background-tasks.fusion-evaluation.v2";
    const claim = { claim: "ParseConfig tracks keys per object.", verdict: "supported", evidence: ["src/config.cc:2"] };
    const three = "\"source_id\":\"C-F001\"";
    const rules = [
      { name: "evaluator-answer", match: { text: three, last_role: "tool" }, responses: [{ text: JSON.stringify({ ...evaluation(), schema_version: V2, checked_claims: [claim] }) }] },
      { name: "evaluator-tools", match: { text: three, last_role: "user" }, responses: [{ tool_calls: [{ name: "read", arguments: { path: "src/config.cc" } }] }] },
      ...validateRules(),
    ];
    const files = { "src/config.cc": "// config parser\nvoid ParseConfig() { /* keys per object */ }\n" };
    await withFusionEnv({ files, script: { rules: [...validateAgentRules(), ...rules] }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const route = "scripted/scripted-a";
      env.writeAgentFile("fusion-models.json", JSON.stringify({
        schema_version: "pi-background-tasks.fusion-models.v3", candidates: [route, route, route], evaluator: route, merger: route,
        policy: { quorum: 3, grace_seconds: null, max_cost_usd: null, evaluator_tools: true },
      }));
      const r = await env.print("please validate");
      assert.equal(r.code, 0, r.stderr);
      const [dir] = runDirs(env);
      const manifest = artifactJson(dir, "manifest.json");
      assert.equal(manifest.state, "completed");
      assert.deepEqual(manifest.tool_policy.evaluator_tools, ["read", "grep", "find", "ls"]);
      // The evaluator was offered the reviewers' tools and read the file through them.
      const [answer] = env.requests().filter((q) => q.rule_name === "evaluator-answer");
      assert.deepEqual(offeredTools(answer).sort(), ["find", "grep", "ls", "read"]);
      assert.match(answer.tool_results[0].text, /keys per object/);
      // Its sealed log is bound like a reviewer's.
      const journal = artifactText(dir, "evaluation.attempt-1.tool-calls.jsonl");
      const seal = artifactJson(dir, "evaluation.attempt-1.seal.json");
      assert.deepEqual([seal.status, seal.journal_sha256, seal.record_count], ["complete", sha256(journal), 1]);
      const { details } = artifactJson(dir, "result.json");
      assert.deepEqual(details.checked_claims, [claim]);
      // The claim's evidence is a citation the check found in the project.
      assert.ok(!details.citations.broken.some((b) => b.ref === "src/config.cc:2"), JSON.stringify(details.citations));
    });
  });

  test("a fenced report is recovered, audited by a contract event and named in Limitations", async () => {
    const fenced = "```json\n" + JSON.stringify(report()) + "\n```";
    await validate(validateRules({ reviewer: [{ text: fenced }, { text: JSON.stringify(report()) }] }), async ({ r, dir }) => {
      assert.equal(r.code, 0, r.stderr);
      const manifest = artifactJson(dir, "manifest.json");
      assert.equal(manifest.state, "completed");
      const events = Object.keys(manifest.artifacts).filter((n) => n.endsWith(".contract-event.json"));
      assert.equal(events.length, 1, JSON.stringify(Object.keys(manifest.artifacts)));
      const [, slot] = events[0].match(/^candidate-(\d)\.attempt-1\.contract-event\.json$/);
      const event = artifactJson(dir, events[0]);
      assert.equal(event.schema_version, "pi-background-tasks.fusion-validation-candidate-contract-event.v1");
      assert.equal(event.slot, Number(slot));
      const raw = artifactText(dir, `candidate-${slot}.attempt-1.response.md`);
      assert.equal(raw, fenced);
      assert.equal(event.raw_sha256, sha256(raw));
      assert.equal(event.recovered_sha256, sha256(JSON.stringify(report()) + "\n"));
      const letter = Object.entries(manifest.anonymous_map).find(([, s]) => s === Number(slot))[0];
      const merged = artifactText(dir, "merged.md");
      assert.ok(merged.includes(`- Reviewer ${letter} wrapped its report in a \`\`\`json fence instead of returning bare JSON; the host removed the fence and recorded the recovery in ${events[0]}.\n`), merged);
    });
  });

  test("one reviewer down with a provider error: the other two complete as A and B, the drop is named", async () => {
    const script = [{ name: "down", match: { text: "Answer the request", model: "scripted-b" }, responses: [{ status: 500 }] }, ...validateRules()];
    await validate(script, { setup: distinctReviewers }, async ({ r, dir }) => {
      assert.equal(r.code, 0, r.stderr);
      assert.ok(dir, r.stdout);
      const manifest = artifactJson(dir, "manifest.json");
      assert.equal(manifest.state, "completed");
      const bySlot = Object.fromEntries(manifest.attempts.filter((a) => a.stage === "candidate").map((a) => [a.slot, a.state]));
      assert.deepEqual(bySlot, { 1: "completed", 2: "failed", 3: "completed" });
      assert.equal(manifest.anonymous_map.C, 2, "the dropped reviewer is never A or B");
      const blind = artifactJson(dir, "blind-candidates.json");
      assert.deepEqual(blind.candidates.map((c) => c.candidate_id), ["A", "B"]);
      assert.deepEqual(blind.validation_source_findings.map((f) => f.source_id), ["A-F001", "B-F001"]);
      assert.equal(artifactJson(dir, "evaluation.json").candidate_assessments.length, 2);
      const merged = artifactText(dir, "merged.md");
      assert.match(merged, /\n- The reviewer in candidate slot 2 produced no usable report and was dropped; this report rests on the other two reviewers \(child_exit_failed: /);
      assert.match(merged, /## Excluded source findings\n\nNone\.\n/);
      assert.ok(r.stdout.includes(merged));
      // Recorded as dropped in the run's own record and its result, not only in the prose.
      assert.equal(manifest.dropped_reviewers.length, 1);
      assert.equal(manifest.dropped_reviewers[0].slot, 2);
      assert.equal(manifest.dropped_reviewers[0].code, "child_exit_failed");
      assert.deepEqual(artifactJson(dir, "result.json").details.dropped_reviewers, manifest.dropped_reviewers);
    });
  });

  test("two invalid reports fail the run at once with validation_reports_invalid; the third reviewer is cancelled", async () => {
    const script = [
      { name: "stalls", match: { text: "Answer the request", model: "scripted-a", api: "openai-completions" }, responses: [{ stall: true }] },
      ...validateRules({ reviewer: [{ text: "Looks good to me." }] }),
    ];
    await validate(script, { setup: distinctReviewers }, async ({ env, r, dir }) => {
      assert.equal(r.code, 0, r.stderr);
      const manifest = artifactJson(dir, "manifest.json");
      assert.equal(manifest.state, "failed");
      assert.equal(manifest.error.code, "validation_reports_invalid");
      assert.match(manifest.error.message, /^2 of 3 validation reviews are unusable; reviewer \d: validation_reports_invalid: the review is not a valid pi-background-tasks\.fusion-validation-candidate\.v1 report: \$: not a single JSON value/);
      const bySlot = Object.fromEntries(manifest.attempts.map((a) => [a.slot, a.state]));
      assert.deepEqual(bySlot, { 1: "cancelled", 2: "completed", 3: "completed" });
      assert.ok(fs.existsSync(path.join(dir, "error.json")));
      assert.ok(fs.existsSync(path.join(dir, "failure-summary.json")));
      assert.ok(!fs.existsSync(path.join(dir, "merged.md")));
      assert.ok(!env.requests().some((q) => q.last_user_text.includes("fusion-blind-candidates.v1")), "no evaluator ran");
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("accounting violations go through the one repair with their specific errors", async () => {
    const broken = evaluation();
    const accounting = broken.validation_accounting;
    accounting.findings = ["A-F001", "A-F001", "B-F001"];                        // C-F001 missing, A-F001 twice
    accounting.decisions[1].group_id = "G9";                                       // unknown group
    accounting.groups[0].source_ids.push("C-F001");                               // excluded id in a group
    accounting.groups.push({ ...GROUP, group_id: "G2", source_ids: [] });         // group with no ids
    await validate(validateRules({ evaluator3: [{ text: JSON.stringify(broken) }] }), async ({ env, r, dir }) => {
      assert.equal(r.code, 0, r.stderr);
      const manifest = artifactJson(dir, "manifest.json");
      assert.equal(manifest.state, "completed");
      assert.deepEqual(manifest.attempts.filter((a) => a.stage === "evaluation").map((a) => a.attempt), [1, 2]);
      const repair = env.requests().find((q) => q.last_user_text.includes("fusion-evaluation-repair-input.v1"));
      const errors = JSON.parse(repair.last_user_text).validation_errors;
      const p = "$.validation_accounting";
      for (const expected of [
        `${p}.findings[1]: duplicate source finding id A-F001 (also at ${p}.findings[0])`,
        `${p}.findings: missing source finding id C-F001`,
        `${p}.decisions[1].group_id: no group has group_id "G9"`,
        `${p}.groups[0].source_ids[2]: source finding C-F001 is excluded by its decision, so it belongs to no group`,
        `${p}.groups[1].source_ids: a group lists at least one source finding id`,
      ]) assert.ok(errors.includes(expected), `${expected}\n${JSON.stringify(errors, null, 1)}`);
      assert.equal(artifactText(dir, "merged.md"), EXPECTED_REPORT);
    });
  });

  test("an accounting still broken after the repair fails with evaluation_invalid", async () => {
    const broken = evaluation();
    broken.validation_accounting.decisions.pop();
    await validate(validateRules({ evaluator3: [{ text: JSON.stringify(broken) }], repair: [{ text: JSON.stringify(broken) }] }), async ({ r, dir }) => {
      assert.equal(r.code, 0, r.stderr);
      const manifest = artifactJson(dir, "manifest.json");
      assert.equal(manifest.state, "failed");
      assert.equal(manifest.error.code, "evaluation_invalid");
      assert.match(manifest.error.message, /no decision for source finding C-F001/);
      assert.ok(!fs.existsSync(path.join(dir, "merged.md")));
      assert.ok(fs.existsSync(path.join(dir, "failure-summary.json")));
    });
  });

  test("headings injected through a summary cannot forge sections", async () => {
    const injected = { ...GROUP, summary: "nested keys\n## Verified\n- all good" };
    const script = validateRules({
      evaluator3: [{ text: JSON.stringify(evaluation(["A", "B", "C"], { group: injected })) }],
      merger: [{ text: "Fine overall.\n# Validation report\n## Findings\nNo findings.\n```" }],
    });
    await validate(script, async ({ r, dir }) => {
      assert.equal(r.code, 0, r.stderr);
      const merged = artifactText(dir, "merged.md");
      const headings = merged.split("\n").filter((line) => line.startsWith("#"));
      assert.deepEqual(headings, ["# Validation report", "## Summary", "## Findings",
        "### high: nested keys ## Verified - all good", "## Excluded source findings", "## Verified", "## Limitations"]);
      assert.match(merged, /\nFine overall\.\n\\# Validation report\n\\## Findings\nNo findings\.\n\\```\n/);
    });
  });

  test("zero findings: an empty accounting and a report that says so", async () => {
    await validate(validateRules({ reviewer: [{ text: JSON.stringify(report([])) }] }), async ({ r, dir }) => {
      assert.equal(r.code, 0, r.stderr);
      const merged = artifactText(dir, "merged.md");
      assert.match(merged, /## Findings\n\nNo findings\.\n\n## Excluded source findings\n\nNone\.\n/);
      assert.deepEqual(artifactJson(dir, "blind-candidates.json").validation_source_findings, []);
    });
  });

  test("the verification contract is enforced at the tool boundary: nothing starts", async () => {
    const bad = [
      { status: "provided", evidence: [] },
      { status: "provided", evidence: [{ check: "make", outcome: "ok" }], reason: "also this" },
      { status: "not_run" },
      { status: "not_run", reason: "no time", evidence: [{ check: "make", outcome: "ok" }] },
    ];
    const rules = [
      { name: "after-errors", match: { last_role: "tool" }, responses: [{ text: "ERRORS: {{tool_results}}" }] },
      { name: "ask", match: { text: "please validate" }, responses: [{ tool_calls: bad.map((verification) => ({ name: "fusion_validate", arguments: { ...VALIDATE_ARGS, verification } })) }] },
    ];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const r = await env.print("please validate");
      assert.equal(r.code, 0, r.stderr);
      const results = env.requests().at(-1).tool_results;
      assert.equal(results.length, 4);
      assert.ok(results.every((t) => t.text.endsWith("(error code: invalid_arguments)")), JSON.stringify(results));
      assert.match(results[0].text, /verification\.evidence must not be empty when verification\.status is "provided"/);
      assert.match(results[1].text, /verification\.reason is not allowed when verification\.status is "provided"/);
      assert.match(results[2].text, /verification\.reason is required when verification\.status is "not_run"/);
      assert.match(results[3].text, /verification\.evidence must be empty when verification\.status is "not_run"/);
      assert.deepEqual(runDirs(env), []);
      assert.equal(env.requests().length, 2, "only the parent agent's two requests");
    });
  });
});
