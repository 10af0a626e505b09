/**
 * @file Scripts for the scripted model that play every role of a Fusion run: the three
 * candidates, the blind evaluator (valid fusion-evaluation.v1 JSON), its repair and the merger.
 * Each stage is recognized by its stdin: the candidate instruction line or the schema id of
 * the stage input.
 */
export const CANDIDATE_TEXT = "Candidate answer: the sky looks blue because air scatters short wavelengths more (Rayleigh scattering).";
export const MERGED_TEXT = "# Why the sky is blue\n\nSunlight is scattered by air molecules; shorter (blue) wavelengths scatter far more, so the sky looks blue.";

export const EVALUATION = {
  schema_version: "pi-background-tasks.fusion-evaluation.v1",
  candidate_assessments: ["A", "B", "C"].map((id) => ({
    candidate_id: id,
    summary: `Candidate ${id} explains Rayleigh scattering.`,
    strengths: ["correct mechanism"],
    limitations: [],
    useful_contributions: ["the wavelength dependence"],
    risks: [],
  })),
  agreements: ["Rayleigh scattering explains the colour"],
  conflicts: [],
  synthesis_plan: {
    must_include: [{ candidate_id: "A", contribution: "the mechanism" }],
    must_resolve: [],
    must_avoid: ["overclaiming"],
  },
};

export const STAGE = {
  candidate: { text: "Answer the request in the following JSON input" },
  evaluator: { text: "pi-background-tasks.fusion-blind-candidates.v1" },
  repair: { text: "pi-background-tasks.fusion-evaluation-repair-input.v1" },
  merger: { text: "pi-background-tasks.fusion-merge-input.v1" },
};

/** Rules answering every stage; `overrides` replaces a stage's responses. Order matters: the
 * repair and merge inputs embed the blind input, so they are matched first. */
export function fusionRules(overrides = {}) {
  const responses = {
    repair: [{ text: JSON.stringify(EVALUATION) }],
    merger: [{ text: MERGED_TEXT }],
    evaluator: [{ text: JSON.stringify(EVALUATION) }],
    candidate: [{ text: CANDIDATE_TEXT }],
    ...overrides,
  };
  return ["repair", "merger", "evaluator", "candidate"].map((stage) => ({
    name: stage,
    match: STAGE[stage],
    responses: responses[stage],
  }));
}
