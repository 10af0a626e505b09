/**
 * @file Scripts for the scripted model that play every role of a Fusion validate run: three
 * reviewers returning fusion-validation-candidate.v1 reports, the blind evaluator with its
 * validation_accounting (recognized by the source finding ids in its input), its repair and the
 * merger's summary.
 */
import { launchRules, resultRule, STAGE, wakeRule } from "./fusion_script.mjs";

export const VALIDATE_ARGS = {
  objective: "Reject duplicate keys in the config parser",
  background: ["The parser is src/config.cc"],
  changeSummary: "ParseConfig now tracks keys per object and fails on a repeat.",
  scope: ["src/config.cc"],
  acceptanceCriteria: ["A duplicate key is an error naming the key"],
  verification: { status: "provided", evidence: [{ check: "make test", outcome: "all passed" }] },
};

export function report(findings = [finding()]) {
  return {
    schema_version: "pi-background-tasks.fusion-validation-candidate.v1",
    findings,
    verified: ["duplicate keys are rejected at the top level"],
    limitations: ["did not read the tests"],
  };
}

export function finding(overrides = {}) {
  return {
    severity: "high",
    location: "src/config.cc:42",
    evidence: "line 42 checks only the outermost object",
    impact: "nested duplicate keys are accepted",
    summary: "nested duplicates pass",
    ...overrides,
  };
}

export const GROUP = {
  group_id: "G1",
  severity: "high",
  location: "src/config.cc:42",
  evidence: "line 42 checks only the outermost object",
  impact: "nested duplicate keys are accepted silently",
  summary: "nested duplicate keys pass the parser",
  rationale: "two reviews cite the same line",
};

function assessment(id) {
  return { candidate_id: id, summary: `Review ${id} read the parser.`, strengths: [], limitations: [], useful_contributions: [], risks: [] };
}

/** An evaluation over `ids` (the candidates) that includes A-F001 and B-F001 as one group and
 * excludes C-F001 when there is a C. */
export function evaluation(ids = ["A", "B", "C"], { group = GROUP } = {}) {
  const sources = ids.map((id) => `${id}-F001`);
  return {
    schema_version: "pi-background-tasks.fusion-evaluation.v1",
    candidate_assessments: ids.map(assessment),
    agreements: [],
    conflicts: [],
    synthesis_plan: { must_include: [], must_resolve: [], must_avoid: [] },
    validation_accounting: {
      findings: sources,
      decisions: sources.map((id) => id.startsWith("C")
        ? { source_id: id, disposition: "exclude", rationale: "the cited line does not say that" }
        : { source_id: id, disposition: "include", rationale: "the line shows it", group_id: group.group_id }),
      groups: [{ ...group, source_ids: ["A-F001", "B-F001"] }],
    },
  };
}

export const EMPTY_EVALUATION = {
  ...evaluation(),
  validation_accounting: { findings: [], decisions: [], groups: [] },
};

export const SUMMARY = "One high-severity problem remains: nested duplicate keys still pass.";

/** Rules for every validate stage; `overrides` replaces a stage's responses (reviewer,
 * evaluator3, evaluator2, evaluator0, repair, merger). Repair and merge inputs embed the blind
 * input, so they are matched first. */
export function validateRules(overrides = {}) {
  const r = {
    repair: [{ text: JSON.stringify(evaluation()) }],
    merger: [{ text: SUMMARY }],
    evaluator0: [{ text: JSON.stringify(EMPTY_EVALUATION) }],
    evaluator3: [{ text: JSON.stringify(evaluation()) }],
    evaluator2: [{ text: JSON.stringify(evaluation(["A", "B"])) }],
    reviewer: [{ text: JSON.stringify(report()) }],
    ...overrides,
  };
  return [
    { name: "repair", match: STAGE.repair, responses: r.repair },
    { name: "merger", match: STAGE.merger, responses: r.merger },
    { name: "evaluator0", match: { text: "\"validation_source_findings\":[]" }, responses: r.evaluator0 },
    { name: "evaluator3", match: { text: "\"source_id\":\"C-F001\"" }, responses: r.evaluator3 },
    { name: "evaluator2", match: STAGE.evaluator, responses: r.evaluator2 },
    { name: "reviewer", match: STAGE.candidate, responses: r.reviewer },
  ];
}

/** The parent agent: ask -> fusion_validate -> receipt -> wake -> bg_result -> echo it (or the
 * failure bg_result reports). The stage rules follow these. */
export function validateAgentRules(args = VALIDATE_ARGS) {
  return [
    resultRule(),
    { name: "after-failure", match: { last_role: "tool", tool_result: "Fusion failed" }, responses: [{ text: "FAILED: {{tool_results}}" }] },
    wakeRule("validate", "Call bg_result"),
    ...launchRules({ workflow: "validate", args, ask: "please validate", stages: [] }),
  ];
}
