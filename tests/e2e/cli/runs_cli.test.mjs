/**
 * @file `pi-fusion runs | verify | prune | show` over real run directories made by the real pinned
 * Pi running /fusion against the scripted model: a completed run, a failed one, a tampered one, and
 * one whose Pi is killed mid-run (interrupted), checked both while its owner is alive and after;
 * `show` over a completed run (then tampered) and a failed one.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { CANDIDATE_TEXT, fusionRules, SECOND_CANDIDATE_ON_B, writeFusionModels } from "../../support/fusion_script.mjs";
import { artifactText, manifestOf, piFusion, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";

/** `pi-fusion <args>` in the env's project. */
function cli(env, ...args) {
  return piFusion(env.cwd, ...args);
}

function runs(env) {
  const r = cli(env, "runs", "--json", "--cwd", env.cwd);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** Every name, mode, size and byte under `dir`: equal snapshots mean nothing was written. */
function snapshot(dir) {
  return fs.readdirSync(dir).sort().map((name) => {
    const p = path.join(dir, name);
    const st = fs.lstatSync(p);
    return [name, st.mode, st.size, st.mtimeMs, st.isFile() ? fs.readFileSync(p, "hex") : ""];
  });
}

/** Pi processes (the parent and its children) whose working directory is the project. */
function piProcesses(env) {
  const found = [];
  for (const pid of fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readlinkSync(`/proc/${pid}/cwd`) === env.cwd && fs.readFileSync(`/proc/${pid}/environ`, "utf8").includes(`PI_CODING_AGENT_DIR=${env.agentDir}`)) found.push(Number(pid));
    } catch {
      // ended while we looked
    }
  }
  return found;
}

async function fuse(env, rules, { models } = {}) {
  env.server.setScript({ rules });
  if (models) writeFusionModels(env, models);
  else fs.rmSync(path.join(env.agentDir, "fusion-models.json"), { force: true });
  const before = new Set(runDirs(env));
  const r = await env.print("/fusion Why is the sky blue?\nSecond line.");
  const made = runDirs(env).filter((d) => !before.has(d));
  assert.equal(made.length, 1, r.stderr);
  return { ...r, dir: made[0], id: path.basename(made[0]) };
}

describe("pi-fusion runs, verify, prune, show", () => {
  test("list, verify and prune real runs: completed, failed, tampered, interrupted", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const completed = await fuse(env, fusionRules());
      assert.equal(completed.code, 0, completed.stderr);
      // Candidate 2's provider error comes late enough that candidates 1 and 3 have verified
      // first: the failed run is resumable from them.
      const failed = await fuse(env,
        [{ match: { text: "Answer the request", model: "scripted-b" }, responses: [{ status: 500, delay_ms: 2500 }, { status: 500 }] }, ...fusionRules()],
        { models: SECOND_CANDIDATE_ON_B });
      assert.notEqual(failed.code, 0);
      const tampered = await fuse(env, fusionRules());
      assert.equal(tampered.code, 0, tampered.stderr);

      // verify: intact runs pass, read-only; the tampered one names each problem.
      const before = snapshot(completed.dir);
      let r = cli(env, "verify", completed.id, "--cwd", env.cwd);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, new RegExp(`^${completed.id}: intact \\(completed, \\d+ artifacts verified\\)`));
      r = cli(env, "verify", completed.dir);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.deepEqual(snapshot(completed.dir), before, "verify wrote nothing");
      assert.equal(fs.existsSync(path.join(completed.dir, "usage-claim.json")), false);
      fs.writeFileSync(path.join(completed.dir, "probe"), "x");  // the snapshot does see a write
      assert.notDeepEqual(snapshot(completed.dir), before);
      fs.rmSync(path.join(completed.dir, "probe"));

      r = cli(env, "verify", failed.id, "--cwd", env.cwd);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /intact \(failed,/);

      fs.appendFileSync(path.join(tampered.dir, "merged.md"), "tampered");
      fs.writeFileSync(path.join(tampered.dir, "budget-plan.json"), "{}");
      r = cli(env, "verify", path.relative(env.cwd, tampered.dir), "--cwd", env.cwd);
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stdout, new RegExp(`^${tampered.id}: \\d+ problems in ${tampered.dir.replaceAll("/", "\\/")}`));
      assert.match(r.stdout, /^ {2}merged\.md: byte_length \d+ != recorded \d+/m);
      assert.match(r.stdout, /^ {2}budget-plan\.json: /m);

      r = cli(env, "verify", "reason-00000000000000000000000000000000", "--cwd", env.cwd);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /^error: no such run: no run reason-0{32} under /);

      // The short id the views show, and any unambiguous prefix, name a run; "reason" names three.
      const short = completed.id.slice("reason-".length, "reason-".length + 8);
      for (const name of [short, completed.id.slice(0, 14)]) {
        r = cli(env, "verify", name, "--cwd", env.cwd);
        assert.equal(r.code, 0, `${name}: ${r.stdout}${r.stderr}`);
        assert.match(r.stdout, new RegExp(`^${completed.id}: intact`));
      }
      r = cli(env, "verify", "reason", "--cwd", env.cwd);
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, /^error: ambiguous run id reason \(matches reason-/);
      // Not a run at all: said so, not "1 problem … manifest.json".
      for (const name of ["nonexistent", "./no/such/dir"]) {
        r = cli(env, "verify", name, "--cwd", env.cwd);
        assert.equal(r.code, 2, `${name}: ${r.stdout}`);
        assert.match(r.stderr, /^error: no such run: /);
        assert.equal(r.stdout, "");
      }
      // Nothing named: the usage, exit 2.
      r = cli(env, "verify");
      assert.equal(r.code, 2);
      assert.match(r.stderr, /Verify a run's artifacts/);
      assert.match(r.stderr, /run TEXT +A run directory, or a run id/);
      // A --cwd that does not exist is an error for every command, not an empty project.
      for (const args of [["runs"], ["runs", "--json"], ["verify", short], ["prune"]]) {
        r = cli(env, ...args, "--cwd", path.join(env.cwd, "missing"));
        assert.equal(r.code, 2, `${args}: ${r.stdout}`);
        assert.match(r.stderr, /^error: --cwd .*missing is not a directory$/m);
        assert.equal(r.stdout, "");
      }

      // A run whose Pi is alive: listed in its live state, never pruned.
      env.server.setScript({ rules: fusionRules({ candidate: [{ stall: true }] }) });
      const liveRequests = env.requests().length;
      const live = env.print("/fusion Why is the sky blue?");
      await env.server.waitForRequests(liveRequests + 3, 60000);
      const liveDir = runDirs(env).find((d) => ![completed.dir, failed.dir, tampered.dir].includes(d));
      const liveId = path.basename(liveDir);
      let listed = runs(env);
      let row = listed.find((x) => x.run_id === liveId);
      assert.equal(row.state, "candidates_running");
      assert.equal(row.owner_alive, true);
      await new Promise((res) => setTimeout(res, 1100));
      r = cli(env, "prune", "--cwd", env.cwd, "--older-than", "1s", "--state", "interrupted", "--yes");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Nothing to prune/);
      assert.ok(fs.existsSync(liveDir));

      // Killed without a chance to clean up: the same run is now interrupted.
      for (const pid of piProcesses(env)) process.kill(pid, "SIGKILL");
      await live;
      listed = runs(env);
      row = listed.find((x) => x.run_id === liveId);
      assert.equal(row.state, "interrupted");
      assert.equal(row.owner_alive, false);

      // runs: every run with its full id, workflow, state, age, duration, size and question.
      assert.deepEqual(listed.map((x) => x.run_id).sort(), [completed.id, failed.id, tampered.id, liveId].sort());
      const byId = Object.fromEntries(listed.map((x) => [x.run_id, x]));
      assert.equal(byId[completed.id].state, "completed");
      assert.equal(byId[failed.id].state, "failed");
      // The failed run can be resumed from candidates 1 and 3, and candidate 2 failed on its
      // model (a provider error), so another route may be named for it; the completed run and
      // the one interrupted before any answer cannot be resumed.
      const failedShort = failed.id.slice("reason-".length, "reason-".length + 8);
      assert.deepEqual(byId[failed.id].resumable,
        { command: `/fusion-resume ${failedShort}`, candidate_slots: [1, 3], evaluation: false,
          failed_route: "candidate-2" },
        JSON.stringify(manifestOf(failed.dir).attempts));
      assert.equal(byId[completed.id].resumable, null);
      assert.equal(byId[liveId].resumable, null);
      // Declared sources are research's: no reason run has source_failures, not even [].
      for (const x of listed) assert.equal(x.source_failures, null, x.run_id);
      for (const x of listed) {
        assert.equal(x.workflow, "reason");
        assert.equal(x.question, "Why is the sky blue?");
        assert.ok(x.size_bytes > 0);
        assert.ok(x.age_seconds >= 0);
      }
      assert.equal(typeof byId[completed.id].duration_seconds, "number");
      // The cost Pi priced the children's usage at (the scripted routes have prices).
      assert.ok(byId[completed.id].cost_usd > 0, JSON.stringify(byId[completed.id]));
      // Interrupted: from its creation to its last recorded activity, not growing with its age.
      assert.equal(typeof byId[liveId].duration_seconds, "number");
      assert.ok(byId[liveId].duration_seconds <= byId[liveId].age_seconds);
      r = cli(env, "runs", "--cwd", env.cwd);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^RUN ID +WORKFLOW +STATE +AGE +DURATION +SIZE +COST +QUESTION$/m);
      assert.match(r.stdout, new RegExp(`^${liveId} +reason +interrupted +\\d+s +\\d+s +[\\d.]+ (B|KiB|MiB) +\\$\\d+\\.\\d{4} +Why is the sky blue\\?$`, "m"));
      assert.match(r.stdout, new RegExp(`^${completed.id} +reason +completed +.* \\$0\\.0\\d*[1-9]\\d* +Why`, "m"));
      assert.match(r.stdout, new RegExp(`^${failed.id} +reason +failed, resumable +\\d+s `, "m"));
      assert.match(r.stdout, /\nA resumable run goes on in Pi with \/fusion-resume <id> \(the short id will do\): it reuses the run's verified candidate answers and runs only what is missing\.\n$/);

      // prune: young runs stay by default; --state interrupted takes only the interrupted one.
      r = cli(env, "prune", "--cwd", env.cwd);
      assert.match(r.stdout, /Nothing to prune/);
      r = cli(env, "prune", "--cwd", env.cwd, "--older-than", "1s", "--state", "interrupted", "--yes");
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^${liveId} `, "m"));
      assert.match(r.stdout, /Deleted 1 run\./);
      assert.equal(fs.existsSync(liveDir), false);
      assert.deepEqual(runs(env).map((x) => x.run_id).sort(), [completed.id, failed.id, tampered.id].sort());

      // Without --yes it only lists; with it the terminal runs go, and their session folders.
      r = cli(env, "prune", "--cwd", env.cwd, "--older-than", "1s");
      assert.equal(r.code, 0, r.stderr);
      for (const id of [completed.id, failed.id, tampered.id]) assert.match(r.stdout, new RegExp(`^${id} `, "m"));
      assert.match(r.stdout, /3 runs would be deleted\. Run again with --yes/);
      assert.equal(runDirs(env).length, 3);
      r = cli(env, "prune", "--cwd", env.cwd, "--older-than", "1s", "--yes");
      assert.match(r.stdout, /Deleted 3 runs\./);
      assert.deepEqual(runDirs(env), []);
      assert.deepEqual(fs.readdirSync(path.join(env.cwd, ".pi", "fusion")), [".gitignore"]);

      // A directory with a broken manifest: listed as unreadable, found by id, never pruned.
      const brokenId = "reason-0123456789abcdef0123456789abcdef";
      const broken = path.join(env.cwd, ".pi", "fusion", "session-1", brokenId);
      fs.mkdirSync(broken, { recursive: true });
      fs.writeFileSync(path.join(broken, "manifest.json"), "{");
      assert.equal(runs(env)[0].state, "unreadable");
      r = cli(env, "verify", brokenId, "--cwd", env.cwd);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, new RegExp(`^${brokenId}: 1 problem in ${broken.replaceAll("/", "\\/")}\n {2}.*manifest\.json`));
      r = cli(env, "prune", "--cwd", env.cwd, "--older-than", "1s", "--state", "interrupted", "--state", "failed", "--yes");
      assert.match(r.stdout, /Nothing to prune/);
      assert.ok(fs.existsSync(broken));

      r = cli(env, "prune", "--older-than", "30x");
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--older-than takes a count and a unit, like 30d/);
    });
  });

  test("show: a completed run's answer and candidates, a failed run's state, a tampered run's nothing", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      // Candidate 2 runs on scripted-b and answers apart, so each answer is seen under its slot.
      // It also carries what a terminal would execute (clear screen, OSC 52 clipboard write, BEL,
      // a bidi override): `show` prints them as visible characters, --json keeps them exact.
      const second = "Candidate two: Rayleigh scattering goes as the inverse fourth power of the wavelength." +
        " \u001b[2J\u001b]52;c;SGVsbG8=\u0007\u202e";
      const onTerminal = (text) => text.replaceAll("\u001b", "\u241b").replaceAll("\u0007", "\u2407")
        .replaceAll("\u202e", "\\u202e");
      const completed = await fuse(env,
        [{ match: { text: "Answer the request", model: "scripted-b" }, responses: [{ text: second }] }, ...fusionRules()],
        { models: SECOND_CANDIDATE_ON_B });
      assert.equal(completed.code, 0, completed.stderr);
      const failed = await fuse(env,
        [{ match: { text: "Answer the request", model: "scripted-b" }, responses: [{ status: 500, delay_ms: 2500 }, { status: 500 }] }, ...fusionRules()],
        { models: SECOND_CANDIDATE_ON_B });
      assert.notEqual(failed.code, 0);

      // The answer, exactly as merged.md holds it (and a line end), by the short id and a prefix.
      const merged = artifactText(completed.dir, "merged.md");
      const short = completed.id.slice("reason-".length, "reason-".length + 8);
      for (const name of [short, completed.id.slice(0, 14)]) {
        const r = cli(env, "show", name, "--cwd", env.cwd);
        assert.equal(r.code, 0, `${name}: ${r.stderr}`);
        assert.equal(r.stdout, merged.endsWith("\n") ? merged : `${merged}\n`);
      }
      const models = ["scripted/scripted-a", "scripted/scripted-b", "scripted/scripted-a"];
      const answers = [CANDIDATE_TEXT, second, CANDIDATE_TEXT];
      let r = cli(env, "show", completed.id, "--candidates", "--cwd", env.cwd);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, [`=== Merged answer of ${completed.id} ===\n${merged}\n`,
        ...[1, 2, 3].map((slot) => `=== Candidate ${slot}: ${models[slot - 1]} ===\n${onTerminal(answers[slot - 1])}\n`)].join("\n"));
      assert.doesNotMatch(r.stdout, /[\u0007\u001b\u202e]/);
      r = cli(env, "show", short, "--candidates", "--json", "--cwd", env.cwd);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), {
        run_id: completed.id, workflow: "reason", state: "completed", verified: true, problems: [], answer: merged,
        candidates: [1, 2, 3].map((slot) => ({ slot, model: models[slot - 1], answer: answers[slot - 1] })),
        verified_candidates: [1, 2, 3], failure: null, resumable: null, resumed_as: null,
      });

      // Not a run, or several: exit 2, nothing on stdout.
      for (const name of ["reason-00000000000000000000000000000000", "reason"]) {
        r = cli(env, "show", name, "--cwd", env.cwd);
        assert.equal(r.code, 2, `${name}: ${r.stdout}`);
        assert.match(r.stderr, name === "reason" ? /^error: ambiguous run id reason \(matches reason-/ : /^error: no such run: /);
        assert.equal(r.stdout, "");
      }

      // A failed run: exit 1, its state, failure, verified candidates and how to resume it.
      const failedShort = failed.id.slice("reason-".length, "reason-".length + 8);
      const error = manifestOf(failed.dir).error;
      r = cli(env, "show", failedShort, "--cwd", env.cwd);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, new RegExp(`^Fusion ${failed.id} \\(reason\\) failed; no answer was committed\\.\n`));
      assert.match(r.stdout, new RegExp(`^Failure: ${error.code}: `, "m"));
      assert.match(r.stdout, /^Verified candidate answers: 1 \(scripted\/scripted-a\), 3 \(scripted\/scripted-a\)\. --candidates prints them\.$/m);
      assert.match(r.stdout, new RegExp(`^Resumable: /fusion-resume ${failedShort} runs only what is missing`, "m"));
      r = cli(env, "show", failedShort, "--candidates", "--json", "--cwd", env.cwd);
      assert.equal(r.code, 1, r.stderr);
      const shown = JSON.parse(r.stdout);
      assert.equal(shown.state, "failed");
      assert.equal(shown.verified, true);
      assert.equal(shown.answer, null);
      assert.deepEqual(shown.failure, error);
      assert.deepEqual(shown.candidates.map((c) => [c.slot, c.answer]), [[1, CANDIDATE_TEXT], [3, CANDIDATE_TEXT]]);
      assert.equal(shown.resumable.command, `/fusion-resume ${failedShort}`);

      // Tampered: an error naming merged.md, a non-zero exit, and not one byte of the new text.
      fs.writeFileSync(path.join(completed.dir, "merged.md"), "TAMPERED ANSWER TEXT");
      for (const args of [[], ["--candidates"], ["--json"]]) {
        r = cli(env, "show", completed.id, ...args, "--cwd", env.cwd);
        assert.equal(r.code, 3, `${args}: ${r.stdout}`);
        assert.match(r.stderr, new RegExp(`^error: ${completed.id} does not verify, so nothing of it is shown`));
        assert.match(r.stderr, /^ {2}merged\.md: byte_length 20 != recorded \d+/m);
        assert.doesNotMatch(r.stdout + r.stderr, /TAMPERED/);
        if (args.includes("--json")) assert.equal(JSON.parse(r.stdout).verified, false);
        else assert.equal(r.stdout, "");
      }
    });
  });
});
