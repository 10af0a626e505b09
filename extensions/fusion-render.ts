/**
 * pi-fusion: turns the plain view data that the native library builds (src/views/run_view.h)
 * into pi-tui components. It decides nothing: every state, text, number and cut is in the view;
 * this file only picks a colour and a symbol for a state and lays the parts out.
 *
 * A view is one of
 *   {kind:"run", title, question?, state, status, slots?, usage?, answer?, candidates?,
 *    agreements?, conflicts?, order_check?, checked_claims?, citations?, panel?, roles?, artifacts?,
 *    notes?, error?, report?}
 *   {kind:"list", title, items: run views, empty?}
 *   {kind:"note", level: "info"|"warning"|"error", text}
 * and a tool call header is {title, question?}. The live view of active runs, drawn above the
 * editor while they work (src/views/live_view.h), is
 *   {kind:"live", runs: [{line, about?, candidates: [{slot, name, model?, note?, markdown?}]}], hint?, expand?} Only erasable TypeScript syntax, so Node runs the
 * unit tests (tests/unit/render/) without a build step.
 */
import { Box, type Component, Container, getKeybindings, Markdown, type MarkdownTheme, Spacer, Text } from "@earendil-works/pi-tui";

/** The slice of Pi's theme the renderers use (Pi passes its Theme instance). */
export interface RenderTheme {
  fg(color: string, text: string): string;
  bg?(color: string, text: string): string;
  bold(text: string): string;
  italic?(text: string): string;
  underline?(text: string): string;
  strikethrough?(text: string): string;
}

export interface RenderOptions {
  expanded: boolean;
  /** Pi's "key to expand" hint, when the host offers one. */
  expandHint?: string;
}

export type SlotState = "pending" | "running" | "done" | "failed" | "cancelled" | "skipped";

export interface SlotView {
  name: string;
  state: SlotState;
  model?: string;
  note?: string;
}

export interface CandidateView {
  id: string; // the evaluation's letter
  slot?: number;
  name?: string; // "Candidate 2 (A)", as the status row names the slot
  model?: string;
  markdown?: string;
  note?: string;
  /** The tool calls it made (investigate, research, validate): one line each, as C++ wrote it. */
  tools?: ToolCallsView;
}

export interface ToolCallsView {
  summary: string;
  calls: { state: "done" | "failed"; text: string }[];
  more?: string;
}

export interface ConflictView {
  topic: string;
  positions: string[];
  resolution: string;
}

export interface RunView {
  kind: "run";
  title: string;
  question?: string;
  state: "starting" | "running" | "completed" | "failed" | "cancelled" | "interrupted";
  status: string;
  slots?: SlotView[];
  usage?: string;
  answer?: { preview: string; markdown: string; note?: string };
  candidates?: CandidateView[];
  agreements?: string[];
  conflicts?: ConflictView[];
  /** Expanded only: the order check's outcome per conflict, one line each (docs/workflow.md#order-check). */
  order_check?: { text: string; stable: boolean }[];
  /** Expanded only: the evaluator's checked claims, one line each ("- [supported] … (evidence: …)"). */
  checked_claims?: string[];
  /** Usage and cost per role, one line each ("Candidate 1 (p/m): 2 model requests · …"). */
  roles?: string[];
  /** The named panel and its thinking per role ("Panel fast · thinking candidates low, …"). */
  panel?: string;
  /** Expanded only: the citation check's broken citations, one line each (docs/citations.md). */
  citations?: string[];
  artifacts?: { dir: string; gone?: boolean; note?: string };
  notes?: string[];
  /** A completed run: how to get its HTML report (/fusion-report). */
  report?: string;
  error?: string;
}

export interface ListView {
  kind: "list";
  title: string;
  items: RunView[];
  empty?: string;
}

export interface NoteView {
  kind: "note";
  level: "info" | "warning" | "error";
  text: string;
}

export type View = RunView | ListView | NoteView;

/** A candidate whose answer verified while its run still works. */
export interface LandedView {
  slot: number;
  name: string;
  model?: string;
  note?: string;
  markdown?: string;
}

export interface LiveView {
  kind: "live";
  /** `about`: the run's id and folder and the estimate, drawn when expanded (the answers push the launch notice away). */
  runs: { line: string; about?: string[]; candidates: LandedView[] }[];
  hint?: string;
  /** The words after the expand key in the hint ("to expand"). */
  expand?: string;
}

/** The slice of ctx.ui the live view reads: whether Pi's tool output is expanded. */
export interface ExpandState {
  getToolsExpanded?(): boolean;
}

export interface CallView {
  title: string;
  question?: string;
}

const stateMark: Record<string, [string, string]> = {
  pending: ["·", "dim"],
  starting: ["⏳", "warning"],
  running: ["⏳", "warning"],
  done: ["✓", "success"],
  completed: ["✓", "success"],
  failed: ["✗", "error"],
  interrupted: ["✗", "error"],
  cancelled: ["⊘", "warning"],
  skipped: ["·", "dim"],
};

function mark(theme: RenderTheme, state: string): string {
  const [symbol, color] = stateMark[state] ?? ["?", "muted"];
  return theme.fg(color, symbol);
}

function markdownTheme(theme: RenderTheme): MarkdownTheme {
  const same = (text: string) => text;
  const fg = (color: string) => (text: string) => theme.fg(color, text);
  return {
    heading: fg("mdHeading"),
    link: fg("mdLink"),
    linkUrl: fg("mdLinkUrl"),
    code: fg("mdCode"),
    codeBlock: fg("mdCodeBlock"),
    codeBlockBorder: fg("mdCodeBlockBorder"),
    quote: fg("mdQuote"),
    quoteBorder: fg("mdQuoteBorder"),
    hr: fg("mdHr"),
    listBullet: fg("mdListBullet"),
    bold: (text) => theme.bold(text),
    italic: (text) => (theme.italic ? theme.italic(text) : same(text)),
    underline: (text) => (theme.underline ? theme.underline(text) : same(text)),
    strikethrough: (text) => (theme.strikethrough ? theme.strikethrough(text) : same(text)),
  };
}

function headerLine(theme: RenderTheme, title: string, question?: string): string {
  let line = theme.fg("toolTitle", theme.bold(title));
  if (question) line += " " + theme.fg("muted", question);
  return line;
}

/** The header of a tool call row: workflow and a short form of the question. */
export function renderCall(view: CallView, theme: RenderTheme): Component {
  return new Text(headerLine(theme, view.title, view.question), 0, 0);
}

function slotsLine(theme: RenderTheme, slots: SlotView[]): string {
  return slots
    .map((slot) => {
      let part = `${mark(theme, slot.state)} ${slot.name}`;
      if (slot.model) part += " " + theme.fg("dim", slot.model);
      if (slot.note) part += " " + theme.fg("muted", `(${slot.note})`);
      return part;
    })
    .join("   ");
}

function toolCallsText(theme: RenderTheme, tools: ToolCallsView): string {
  const lines = [theme.fg("muted", `Tool calls: ${tools.summary}`)];
  for (const call of tools.calls) {
    const text = call.state === "failed" ? theme.fg("warning", call.text) : call.text;
    lines.push(`  ${mark(theme, call.state)} ${text}`);
  }
  if (tools.more) lines.push(theme.fg("dim", `  ${tools.more}`));
  return lines.join("\n");
}

function addRun(box: Container, view: RunView, options: RenderOptions, theme: RenderTheme, withTitle: boolean): void {
  const head = withTitle ? headerLine(theme, view.title, view.question) + "\n" : "";
  box.addChild(new Text(`${head}${mark(theme, view.state)} ${view.status}`, 0, 0));
  if (view.slots && view.slots.length > 0) box.addChild(new Text(slotsLine(theme, view.slots), 0, 0));
  if (view.usage) box.addChild(new Text(theme.fg("dim", view.usage), 0, 0));
  if (view.report) box.addChild(new Text(theme.fg("dim", view.report), 0, 0));
  if (view.error) box.addChild(new Text(theme.fg("error", view.error), 0, 0));
  for (const note of view.notes ?? []) box.addChild(new Text(theme.fg("warning", note), 0, 0));
  const md = markdownTheme(theme);
  if (view.answer) {
    box.addChild(new Spacer(1));
    const text = options.expanded ? view.answer.markdown : view.answer.preview;
    box.addChild(new Markdown(text, 0, 0, md));
    if (view.answer.note) box.addChild(new Text(theme.fg("dim", view.answer.note), 0, 0));
  }
  if (options.expanded) {
    for (const candidate of view.candidates ?? []) {
      box.addChild(new Spacer(1));
      const model = candidate.model ? " " + theme.fg("dim", candidate.model) : "";
      box.addChild(new Text(theme.fg("accent", theme.bold(candidate.name ?? `Candidate ${candidate.id}`)) + model, 0, 0));
      if (candidate.markdown) box.addChild(new Markdown(candidate.markdown, 0, 0, md));
      if (candidate.note) box.addChild(new Text(theme.fg("muted", candidate.note), 0, 0));
      if (candidate.tools) box.addChild(new Text(toolCallsText(theme, candidate.tools), 0, 0));
    }
    if (view.agreements && view.agreements.length > 0) {
      box.addChild(new Spacer(1));
      box.addChild(new Text(theme.fg("accent", theme.bold("Agreements")), 0, 0));
      for (const agreement of view.agreements) box.addChild(new Text(`• ${agreement}`, 0, 0));
    }
    if (view.conflicts && view.conflicts.length > 0) {
      box.addChild(new Spacer(1));
      box.addChild(new Text(theme.fg("accent", theme.bold("Conflicts")), 0, 0));
      for (const conflict of view.conflicts) {
        const lines = [theme.bold(`• ${conflict.topic}`)];
        for (const position of conflict.positions) lines.push(`  ${position}`);
        lines.push(`  ${theme.fg("success", "Resolution:")} ${conflict.resolution}`);
        box.addChild(new Text(lines.join("\n"), 0, 0));
      }
    }
    if (view.order_check && view.order_check.length > 0) {
      box.addChild(new Spacer(1));
      box.addChild(new Text(theme.fg("accent", theme.bold("Order check")), 0, 0));
      for (const row of view.order_check) {
        box.addChild(new Text(row.stable ? `• ${row.text}` : theme.fg("warning", `• ${row.text}`), 0, 0));
      }
    }
    if (view.checked_claims && view.checked_claims.length > 0) {
      box.addChild(new Spacer(1));
      box.addChild(new Text(theme.fg("accent", theme.bold("Checked claims")), 0, 0));
      for (const line of view.checked_claims) box.addChild(new Text(line, 0, 0));
    }
    if (view.citations && view.citations.length > 0) {
      box.addChild(new Spacer(1));
      box.addChild(new Text(theme.fg("accent", theme.bold("Broken citations")), 0, 0));
      for (const line of view.citations) box.addChild(new Text(theme.fg("warning", line), 0, 0));
    }
    if (view.panel) {
      box.addChild(new Spacer(1));
      box.addChild(new Text(theme.fg("dim", view.panel), 0, 0));
    }
    if (view.roles && view.roles.length > 0) {
      box.addChild(new Spacer(1));
      box.addChild(new Text(theme.fg("accent", theme.bold("Cost by role")), 0, 0));
      for (const role of view.roles) box.addChild(new Text(theme.fg("dim", `• ${role}`), 0, 0));
    }
  }
  if (view.artifacts && (options.expanded || view.artifacts.gone)) {
    const where = theme.fg("dim", `Artifacts: ${view.artifacts.dir}`);
    const gone = view.artifacts.gone ? " " + theme.fg("warning", view.artifacts.note ?? "(gone)") : "";
    box.addChild(new Text(where + gone, 0, 0));
  }
  if (!options.expanded && options.expandHint && (view.answer || (view.candidates?.length ?? 0) > 0)) {
    box.addChild(new Text(theme.fg("dim", options.expandHint), 0, 0));
  }
}

/** A whole view: a run (a /fusion message or a tool result), a list of runs, or a short note. */
export function renderView(view: View, options: RenderOptions, theme: RenderTheme): Component {
  const box = new Container();
  if (view.kind === "note") {
    const color = view.level === "error" ? "error" : view.level === "warning" ? "warning" : "muted";
    box.addChild(new Text(theme.fg(color, view.text), 0, 0));
  } else if (view.kind === "list") {
    if (view.items.length === 0) {
      box.addChild(new Text(theme.fg("muted", view.empty ?? "No runs."), 0, 0));
    }
    for (const item of view.items) addRun(box, item, { ...options, expandHint: undefined }, theme, true);
  } else {
    addRun(box, view, options, theme, false);
  }
  return box;
}

/** A run shown on its own in the transcript (the /fusion answer): titled, on Pi's message background. */
export function renderMessage(view: View, options: RenderOptions, theme: RenderTheme): Component {
  if (view.kind !== "run") return renderView(view, options, theme);
  const background = theme.bg ? (text: string) => theme.bg!("customMessageBg", text) : undefined;
  const box = new Box(1, 1, background);
  addRun(box, view, options, theme, true);
  return box;
}

/** The live view: each active run's progress line and its landed candidates, their answers when expanded. */
export function renderLive(view: LiveView, options: RenderOptions, theme: RenderTheme): Component {
  const box = new Container();
  const md = markdownTheme(theme);
  let answers = false;
  for (const run of view.runs) {
    box.addChild(new Text(run.line, 1, 0));
    if (options.expanded) for (const line of run.about ?? []) box.addChild(new Text(theme.fg("dim", `  ${line}`), 1, 0));
    for (const landed of run.candidates) {
      let row = `  ${mark(theme, "done")} ${landed.name}`;
      if (landed.model) row += " " + theme.fg("dim", landed.model);
      if (landed.note) row += " " + theme.fg("muted", `· ${landed.note}`);
      box.addChild(new Text(row, 1, 0));
      if (!landed.markdown) continue;
      answers = true;
      if (options.expanded) box.addChild(new Markdown(landed.markdown, 5, 0, md));
    }
  }
  if (answers && !options.expanded && options.expandHint) {
    box.addChild(new Text(theme.fg("dim", `  ${options.expandHint}`), 1, 0));
  }
  if (view.hint) box.addChild(new Text(view.hint, 1, 0));
  return box;
}

/** Pi's expand key(s) and `words`, e.g. "ctrl+o to expand"; "" when Pi names no key. */
function expandHint(words: string | undefined): string {
  if (!words) return "";
  try {
    const keys = getKeybindings().getKeys("app.tools.expand" as never);
    return keys.length > 0 ? `${keys.join("/")} ${words}` : "";
  } catch {
    return "";
  }
}

/**
 * The widget factory for ctx.ui.setWidget: draws `view` expanded while Pi's tool output is
 * expanded, so Pi's expand key opens the landed answers without a redraw from the native side.
 */
export function liveWidget(view: LiveView, ui: ExpandState): (tui: unknown, theme: RenderTheme) => Component {
  return (_tui, theme) => ({
    render(width: number): string[] {
      const expanded = typeof ui.getToolsExpanded === "function" ? Boolean(ui.getToolsExpanded()) : false;
      return renderLive(view, { expanded, expandHint: expandHint(view.expand) }, theme).render(width);
    },
    invalidate(): void {},
  });
}
