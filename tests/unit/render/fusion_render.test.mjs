// extensions/fusion-render.ts: rendered lines for each state, and width limits, with Pi's pi-tui.
import assert from "node:assert/strict";
import { test } from "node:test";

import { visibleWidth } from "@earendil-works/pi-tui";

import { liveWidget, renderCall, renderLive, renderMessage, renderView } from "../../../extensions/fusion-render.ts";

// Pi's theme wraps text in colour codes; this one tags it so the tests can see which colour a
// part got, and strips nothing.
const theme = {
  fg: (color, text) => `<${color}>${text}</${color}>`,
  bold: (text) => text,
};
const plain = { fg: (_color, text) => text, bold: (text) => text };

const lines = (component, width = 80) => component.render(width).map((l) => l.trimEnd());
const text = (component, width = 80) => lines(component, width).join("\n");

const slots = (state, models = true) =>
  ["Candidate 1", "Candidate 2", "Candidate 3", "Evaluator", "Merger"].map((name, i) => ({
    name,
    state: Array.isArray(state) ? state[i] : state,
    ...(models ? { model: `local/m${i + 1}` } : {}),
  }));

const answer = "# Plan\n\nUse **three** steps.\n\n1. one\n2. two\n3. three\n\nA closing paragraph.";
const completed = {
  kind: "run",
  title: "fusion reason",
  question: "How should we migrate the store?",
  state: "completed",
  status: "completed in 1m 04s",
  slots: slots("done"),
  usage: "5 requests · 14,210 tokens · $0.0123",
  answer: { preview: "# Plan\n\nUse **three** steps.", markdown: answer, note: "412 bytes, verified" },
  candidates: [
    { id: "A", model: "local/m2", markdown: "Answer *A* text" },
    { id: "B", model: "local/m1", markdown: "Answer B text" },
    { id: "C", model: "local/m3", markdown: "Answer C text" },
  ],
  agreements: ["All three keep the manifest"],
  conflicts: [
    { topic: "Lock order", positions: ["A: store first", "C: manifest first"], resolution: "store first" },
  ],
  roles: [
    "Candidate 1 (local/m1): 2 model requests · 4,000 tokens · $0.0040",
    "Merger (local/g): 1 model request · 2,000 tokens · $0.0020",
  ],
  artifacts: { dir: "/p/.pi/fusion/s-1/reason-0123" },
};

test("a completed run collapsed shows status, slots with models, usage and the answer preview", () => {
  const out = text(renderView(completed, { expanded: false, expandHint: "ctrl+o to expand" }, plain));
  assert.match(out, /^✓ completed in 1m 04s$/m);
  assert.match(out, /✓ Candidate 1 local\/m1 {3}✓ Candidate 2 local\/m2/);
  assert.match(out, /14,210 tokens · \$0\.0123/);
  assert.match(out, /^Plan$/m);
  assert.match(out, /Use three steps\./);
  assert.doesNotMatch(out, /A closing paragraph/, "collapsed shows the preview only");
  assert.doesNotMatch(out, /Candidate A|Agreements|Cost by role|Artifacts:/);
  assert.match(out, /ctrl\+o to expand/);
});

test("a completed run expanded shows the whole answer, candidates A/B/C, agreements, conflicts, artifacts", () => {
  const out = text(renderView(completed, { expanded: true, expandHint: "ctrl+o to expand" }, plain));
  assert.match(out, /A closing paragraph\./);
  assert.match(out, /^Candidate A local\/m2$/m);
  assert.match(out, /^Answer A text$/m);
  assert.match(out, /^Candidate B local\/m1$/m);
  assert.match(out, /^Candidate C local\/m3$/m);
  assert.match(out, /^Agreements\n• All three keep the manifest$/m);
  assert.match(out, /^• Lock order\n {2}A: store first\n {2}C: manifest first\n {2}Resolution: store first$/m);
  assert.match(out, /^Artifacts: \/p\/\.pi\/fusion\/s-1\/reason-0123$/m);
  assert.match(out, /^Cost by role\n• Candidate 1 \(local\/m1\): 2 model requests · 4,000 tokens · \$0\.0040\n• Merger \(local\/g\): 1 model request/m);
  assert.doesNotMatch(out, /ctrl\+o/, "no expand hint once expanded");
  // The candidates come after the answer.
  assert.ok(out.indexOf("A closing paragraph") < out.indexOf("Candidate A"));
});

test("the evaluator's checked claims are listed expanded, one line each, never collapsed", () => {
  const view = { ...completed, checked_claims: ["- [supported] the store is locked first (evidence: src/store.c:12)", "- [unclear] nothing else"] };
  const out = text(renderView(view, { expanded: true }, plain));
  assert.match(out, /^Checked claims\n- \[supported\] the store is locked first \(evidence: src\/store\.c:12\)\n- \[unclear\] nothing else$/m);
  assert.doesNotMatch(text(renderView(view, { expanded: false }, plain)), /Checked claims/);
});

test("an expanded candidate lists the tool calls it made, a refused one marked; collapsed shows none", () => {
  const tools = {
    summary: "2 tool calls, 1 refused",
    calls: [
      { state: "done", text: "read src/a.cc · 1,234 bytes" },
      { state: "failed", text: "read ../x · refused: path_outside_project" },
    ],
    more: "… and 3 more",
  };
  const view = { ...completed, candidates: [{ ...completed.candidates[0], tools }] };
  const out = text(renderView(view, { expanded: true }, theme));
  assert.match(out, /^<muted>Tool calls: 2 tool calls, 1 refused<\/muted>$/m);
  assert.match(out, /^ {2}<success>✓<\/success> read src\/a\.cc · 1,234 bytes$/m);
  assert.match(out, /^ {2}<error>✗<\/error> <warning>read \.\.\/x · refused: path_outside_project<\/warning>$/m);
  assert.match(out, /^<dim> {2}… and 3 more<\/dim>$/m);
  assert.ok(out.indexOf("Answer") < out.indexOf("Tool calls"), "the calls follow the answer");
  assert.doesNotMatch(text(renderView(view, { expanded: false }, theme)), /Tool calls/);
});

test("an expanded run lists each conflict's order check below the conflicts, order-sensitive ones in warning", () => {
  const order_check = [
    { text: "Lock order: order-sensitive (pass 1 favoured Candidate 2 (A), pass 2 Candidate 1 (C))", stable: false },
    { text: "Naming: stable (both passes favoured Candidate 3 (B))", stable: true },
  ];
  const view = { ...completed, order_check };
  const out = text(renderView(view, { expanded: true }, theme), 120);
  assert.match(out, /^<accent>Order check<\/accent>\n<warning>• Lock order: order-sensitive \(pass 1 favoured Candidate 2 \(A\), pass 2 Candidate 1 \(C\)\)<\/warning>\n• Naming: stable \(both passes favoured Candidate 3 \(B\)\)$/m);
  assert.ok(out.indexOf("Resolution:") < out.indexOf("Order check"), "below the conflicts");
  assert.ok(out.indexOf("Order check") < out.indexOf("Cost by role"));
  assert.doesNotMatch(text(renderView(view, { expanded: false }, theme)), /Order check/);
});

test("artifacts that are gone are said so even collapsed", () => {
  const view = { ...completed, candidates: [], artifacts: { dir: "/gone", gone: true, note: "(artifacts are gone)" } };
  assert.match(text(renderView(view, { expanded: false }, plain)), /^Artifacts: \/gone \(artifacts are gone\)$/m);
});

test("each state gets its own mark and colour", () => {
  const cases = [
    ["running", "⏳", "warning"],
    ["starting", "⏳", "warning"],
    ["completed", "✓", "success"],
    ["failed", "✗", "error"],
    ["interrupted", "✗", "error"],
    ["cancelled", "⊘", "warning"],
  ];
  for (const [state, symbol, color] of cases) {
    const out = text(renderView({ kind: "run", title: "t", state, status: `is ${state}` }, { expanded: false }, theme));
    assert.equal(out, `<${color}>${symbol}</${color}> is ${state}`, state);
  }
});

test("slot states: done, running, failed, pending, cancelled; models only where the view has them", () => {
  const view = {
    kind: "run",
    title: "fusion reason",
    state: "running",
    status: "candidates 1/3 done, 1 failed · 0:42",
    slots: slots(["done", "running", "failed", "pending", "cancelled"], false),
  };
  const out = text(renderView(view, { expanded: false }, plain), 200);
  assert.equal(
    out.split("\n")[1],
    "✓ Candidate 1   ⏳ Candidate 2   ✗ Candidate 3   · Evaluator   ⊘ Merger",
  );
});

test("a failed run shows its error and notes and no answer", () => {
  const view = {
    kind: "run",
    title: "fusion reason",
    state: "failed",
    status: "failed at candidate 2 after 0:12",
    slots: slots(["done", "failed", "done", "skipped", "skipped"]),
    error: "child_timeout: candidate 2 timed out",
    notes: ["Cancelled by bg_kill."],
    artifacts: { dir: "/a" },
  };
  const out = text(renderView(view, { expanded: false }, theme));
  assert.match(out, /<error>child_timeout: candidate 2 timed out<\/error>/);
  assert.match(out, /<warning>Cancelled by bg_kill\.<\/warning>/);
  assert.doesNotMatch(out, /Artifacts/);
  assert.match(text(renderView(view, { expanded: true }, plain)), /^Artifacts: \/a$/m);
});

test("a list renders each run with its title; an empty list says so", () => {
  const list = {
    kind: "list",
    title: "Fusion runs",
    items: [
      { kind: "run", title: "fusion reason", question: "q1", state: "running", status: "evaluating · 1:10" },
      { kind: "run", title: "fusion research", question: "q2", state: "completed", status: "completed" },
    ],
  };
  assert.deepEqual(lines(renderView(list, { expanded: false }, plain)), [
    "fusion reason q1",
    "⏳ evaluating · 1:10",
    "fusion research q2",
    "✓ completed",
  ]);
  assert.deepEqual(lines(renderView({ kind: "list", title: "x", items: [], empty: "No Fusion runs in this session." }, { expanded: false }, plain)), [
    "No Fusion runs in this session.",
  ]);
});

test("a note gets its level's colour", () => {
  const out = text(renderView({ kind: "note", level: "error", text: "Unknown background task ID: x" }, { expanded: false }, theme));
  assert.equal(out, "<error>Unknown background task ID: x</error>");
});

test("the call header shows the workflow and the short question", () => {
  assert.equal(text(renderCall({ title: "fusion reason", question: "How…" }, theme)), "<toolTitle>fusion reason</toolTitle> <muted>How…</muted>");
  assert.equal(text(renderCall({ title: "bg_status" }, plain)), "bg_status");
});

test("the /fusion message carries its title above the run", () => {
  const out = lines(renderMessage(completed, { expanded: false }, plain));
  assert.equal(out[0], "", "Pi's message padding");
  assert.equal(out[1], " fusion reason How should we migrate the store?");
  assert.equal(out[2], " ✓ completed in 1m 04s");
});

test("no rendered line is wider than the width, in any state, collapsed or expanded", () => {
  const long = "word ".repeat(60).trim();
  const wide = {
    ...completed,
    question: long,
    status: long,
    usage: long,
    error: long,
    notes: [long],
    answer: { preview: long, markdown: `# ${long}\n\n\`\`\`\n${"x".repeat(300)}\n\`\`\`\n\n| a | b |\n|---|---|\n| ${long} | ${long} |` },
    candidates: [{ id: "A", model: "p/" + "m".repeat(200), markdown: long }],
    agreements: [long],
    conflicts: [{ topic: long, positions: [long], resolution: long }],
    artifacts: { dir: "/" + "d".repeat(300), gone: true, note: long },
  };
  for (const width of [20, 47, 80, 160]) {
    for (const expanded of [false, true]) {
      for (const component of [renderView(wide, { expanded }, theme), renderMessage(wide, { expanded }, plain)]) {
        for (const line of component.render(width)) {
          assert.ok(visibleWidth(line) <= width, `width ${width}: ${JSON.stringify(line)}`);
        }
      }
    }
  }
});

const live = {
  kind: "live",
  runs: [{
    line: "fusion reason 1a2b3c4d: candidates 1/3 done · 0:42 · last output: candidate 2 3s ago",
    candidates: [{ slot: 1, name: "Candidate 1", model: "local/m1", note: "0:12 · 1,234 bytes", markdown: "# First\n\nThe **first** answer." }],
  }],
  hint: "Quitting or reloading Pi cancels active Fusion runs (Escape ends only the agent's turn).",
  expand: "to expand",
};

test("live view, collapsed: the progress line, each landed candidate's row and the expand hint; no answer", () => {
  const out = text(renderLive(live, { expanded: false, expandHint: "ctrl+o to expand" }, theme), 160);
  assert.match(out, /^ fusion reason 1a2b3c4d: candidates 1\/3 done · 0:42 · last output: candidate 2 3s ago$/m);
  assert.match(out, /^ {3}<success>✓<\/success> Candidate 1 <dim>local\/m1<\/dim> <muted>· 0:12 · 1,234 bytes<\/muted>$/m);
  assert.match(out, /<dim> {2}ctrl\+o to expand<\/dim>/);
  assert.match(out, /Quitting or reloading Pi cancels active Fusion runs/);
  assert.doesNotMatch(out, /first/);
});

test("live view, expanded: each landed answer in full under its row", () => {
  const out = text(renderLive(live, { expanded: true, expandHint: "ctrl+o to expand" }, plain));
  assert.match(out, /Candidate 1 local\/m1 · 0:12 · 1,234 bytes\n\s+First\n\n\s+The first answer\./);
  assert.doesNotMatch(out, /to expand/);
});

test("live view with nothing landed: no expand hint", () => {
  const none = { ...live, runs: [{ ...live.runs[0], candidates: [] }] };
  assert.doesNotMatch(text(renderLive(none, { expanded: false, expandHint: "ctrl+o to expand" }, plain)), /expand/);
});

test("the live widget follows Pi's expand state at every render", () => {
  let expanded = false;
  const component = liveWidget(live, { getToolsExpanded: () => expanded })(undefined, plain);
  assert.doesNotMatch(component.render(80).join("\n"), /first answer/);
  expanded = true;
  assert.match(component.render(80).join("\n"), /The first answer\./);
  // A ui without the getter (an older Pi) stays collapsed.
  assert.doesNotMatch(liveWidget(live, {})(undefined, plain).render(80).join("\n"), /first answer/);
  for (const width of [20, 47, 80]) {
    for (const line of component.render(width)) assert.ok(visibleWidth(line) <= width, `width ${width}: ${JSON.stringify(line)}`);
  }
});
