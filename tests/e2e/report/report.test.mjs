/**
 * @file The HTML run report of a real run: the pinned Pi runs /fusion against the scripted model
 * with a hostile candidate answer and an evaluation with a conflict; then `pi-fusion report` and
 * `/fusion-report` (print mode, and the TUI, which also says how to open it) write the page, and
 * headless Chromium loads it: the DOM has the three candidates, the conflict, the timeline's
 * lanes and the cost bars; no script ran (the payloads would mark <html> with data-pwned) and the
 * page requested nothing (Chromium's network log); the screenshots, light and dark, are not blank. A control page with a real script and a remote image shows
 * both checks see what they look for. An investigate run's timeline, in Chromium's DOM, marks each
 * child's first output and process exit and each candidate's tool calls at their starts.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { EVALUATION, fusionRules } from "../../support/fusion_script.mjs";
import { piFusion, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";
import { agentFlowRules, candidateRules, FILE_TOOL_CALLS, investigateBatches, withFixtureEnv } from "../investigate/investigate_support.mjs";
import { loadPage, pixelStats, screenshot } from "./chromium_page.mjs";

const MARK = "document.documentElement.setAttribute('data-pwned'";
const HOSTILE = [
  "# Hostile candidate",
  `<script>${MARK},'script')</script>`,
  `<img src="http://127.0.0.1:9/img.png" onerror="${MARK},'img')">`,
  `[click me](javascript:${MARK},'link'))`,
  "<style>html{background:url(http://127.0.0.1:9/css.png)}</style>",
  "![remote picture](http://127.0.0.1:9/remote.png)",
  `Inline <svg onload="${MARK},'svg')"></svg> and <iframe src="http://127.0.0.1:9/frame"></iframe>`,
  "| col | umn |\n|---|---|\n| <b onmouseover=x>cell</b> | `code` |",
  "Escape: \x1b[2J\x1b]52;c;SGVsbG8=\x07 end",
].join("\n\n");
const TOPIC = `Hostile "><img src=x onerror="${MARK},'topic')"> topic`;
const CONFLICTED = {
  ...EVALUATION,
  conflicts: [{
    topic: TOPIC,
    positions: [{ candidate_id: "A", position: "It is Rayleigh scattering." }, { candidate_id: "B", position: `<script>${MARK},'position')</script>` }],
    resolution: "Keep Rayleigh scattering.",
  }],
  synthesis_plan: { ...EVALUATION.synthesis_plan, must_resolve: [TOPIC] },
};

function count(text, needle) {
  return text.split(needle).length - 1;
}

/** The markup of the timeline lane `label` in a page's DOM ("" when there is none). */
function laneOf(dom, label) {
  const lanes = dom.split('<g class="lane ').slice(1);
  return lanes.find((lane) => lane.includes(`data-lane="${label}"`))?.split("</g>")[0] ?? "";
}

/** The first number of a mark's path (its x) in `lane`, for `cls` ("mark first-output"). */
function markX(lane, cls) {
  const d = new RegExp(`class="${cls}"[^>]* d="M([0-9.]+)`).exec(lane);
  assert.ok(d, `no ${cls} in ${lane}`);
  return Number(d[1]);
}

test("pi-fusion report and /fusion-report: a self-contained page that Chromium loads with nothing run or fetched", async () => {
  const rules = fusionRules({
    candidate: [{ text: HOSTILE }],
    evaluator: [{ text: JSON.stringify(CONFLICTED) }],
    repair: [{ text: JSON.stringify(CONFLICTED) }],
  });
  await withFusionEnv({ script: { rules } }, async (env) => {
    const run = await env.print("/fusion Why is the sky blue?");
    assert.equal(run.code, 0, run.stderr);
    const [dir] = runDirs(env);
    const id = path.basename(dir);

    // pi-fusion report by a prefix: the default path, printed on stdout.
    const out = path.join(env.cwd, "report.html");
    let r = piFusion(env.cwd, "report", id.slice(0, 16), "--out", out, "--cwd", env.cwd);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${out}\n`);
    const html = fs.readFileSync(out, "utf8");
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-/);
    assert.equal(count(html, "<script"), 0);
    assert.equal(count(html, "\x1b"), 0);

    // Bad input is a typed, actionable error.
    r = piFusion(env.cwd, "report", "reason-ffff", "--cwd", env.cwd);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^error: no such run: no run reason-ffff under /);
    r = piFusion(env.cwd, "report", id, "--out", path.join(env.cwd, "missing", "x.html"), "--cwd", env.cwd);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /the directory .*missing does not exist/);

    // /fusion-report in print mode: this project's newest run, its path said, no model request.
    const requestsBefore = env.requests().length;
    const command = await env.print("/fusion-report");
    assert.equal(command.code, 0, command.stderr);
    const written = path.join(env.cwd, ".pi", "fusion-reports", `${id}.html`);
    assert.match(command.stderr, new RegExp(`Fusion report written: ${written.replace(/[.]/g, "\\.")}`));
    assert.equal(fs.readFileSync(written, "utf8"), html);
    assert.equal(env.requests().length, requestsBefore, "the report cost no model request");
    // The TUI: the same notice, with how to open the file.
    await withTmuxPi(env, {}, async (ui) => {
      await ui.ready();
      await ui.submit(`/fusion-report ${id.slice(id.indexOf("-") + 1, id.indexOf("-") + 9)}`);
      const screen = await ui.waitFor(/Open it in a browser, e\.g\. xdg-open/, 30000, "the report notice");
      assert.ok(screen.replace(/\s+/g, "").includes(`xdg-open'${written}'`), screen);
    });
    assert.equal(env.requests().length, requestsBefore, "the report cost no model request");
    const unknown = await env.print("/fusion-report nosuchrun");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /\/fusion-report: .*nosuchrun/);

    // Chromium: the page's parts are there, nothing ran, nothing was requested.
    const page = loadPage(out, env.cwd);
    assert.equal(count(page.dom, '<article class="candidate"'), 3);
    assert.equal(count(page.dom, '<div class="conflict">'), 1);
    assert.equal(count(page.dom, '<g class="lane role-'), 5);
    assert.equal(count(page.dom, '<g class="cost-row role-'), 5);
    assert.equal(count(page.dom, "Hostile candidate</h1>"), 3);
    assert.doesNotMatch(page.dom, /data-pwned="/, "a hostile payload ran");
    assert.deepEqual(page.requested, [], "the page requested something");

    // Screenshots in both schemes: not blank, light on a light page, light on a dark one.
    for (const dark of [false, true]) {
      const shot = screenshot(out, env.cwd, { dark });
      assert.deepEqual([shot.width, shot.height], [1280, 800]);
      const stats = pixelStats(shot);
      assert.ok(stats.variance > 100 && stats.colours > 16, `blank screenshot: ${JSON.stringify(stats)}`);
      assert.ok(dark ? stats.mean < 90 : stats.mean > 170, `scheme not followed: ${JSON.stringify({ dark, ...stats })}`);
    }

    // The control: a page that does run a script and load a remote image is seen doing both.
    const control = path.join(env.cwd, "control.html");
    fs.writeFileSync(control, `<!DOCTYPE html><p>x</p><script>${MARK},'control')</script><img src="http://127.0.0.1:9/x.png">`);
    const seen = loadPage(control, env.cwd);
    assert.match(seen.dom, /data-pwned="control"/);
    assert.deepEqual(seen.requested, ["http://127.0.0.1:9/x.png"]);
  });
});

test("the timeline of an investigate run: each child's first output and exit, each tool call at its start", () =>
  withFixtureEnv({ script: { rules: agentFlowRules(candidateRules([{ tool_calls: FILE_TOOL_CALLS }])) } }, async (env) => {
    await investigateBatches(env);
    const [dir] = runDirs(env);
    const out = path.join(env.cwd, "investigate.html");
    const r = piFusion(env.cwd, "report", path.basename(dir), "--out", out, "--cwd", env.cwd);
    assert.equal(r.code, 0, r.stderr);
    const page = loadPage(out, env.cwd);
    for (const slot of [1, 2, 3]) {
      const lane = laneOf(page.dom, `candidate ${slot}`);
      assert.ok(lane, `no lane for candidate ${slot}`);
      // Its four file-tool calls, all ok, each drawn from its start; none refused.
      assert.match(lane, /class="call-ticks ok" data-calls="4"/);
      assert.doesNotMatch(lane, /call-ticks refused/);
      assert.match(lane, /<title>first output, [0-9.]+ (ms|s) after the start<\/title>/);
      assert.match(lane, /<title>process exited: (exit code 0|signal [0-9]+ \(stopped: after_answer\))<\/title>/);
      // In time order: the start, then the first output (the model streamed before it called a
      // tool), then the calls.
      const start = Number(/class="mark start" cx="([0-9.]+)"/.exec(lane)[1]);
      const first = markX(lane, "mark first-output");
      const ticks = markX(lane, "call-ticks ok");
      assert.ok(start <= first && first <= ticks + 1, JSON.stringify({ start, first, ticks }));
      assert.ok(markX(lane, "mark process-exit") + 4 >= start);
    }
    for (const label of ["evaluator", "merger"]) {
      const lane = laneOf(page.dom, label);
      assert.match(lane, /class="mark first-output"/, label);
      assert.match(lane, /class="mark process-exit"/, label);
      assert.doesNotMatch(lane, /call-ticks/, label);
    }
  }));
