/**
 * @file The demo behind scripts/demo: a real Fusion run. The pinned Pi loads the plugin in an
 * isolated temp agent directory and runs `/fusion <question>` in print mode; the three candidate
 * children, the blind evaluator and the merger are real child Pi processes talking to the
 * built-in scripted model on 127.0.0.1 (no real model is needed or contacted). Prints the
 * verified merged answer, the progress lines and the run's artifact directory, and where the
 * temporary files it leaves are (with the command that removes them).
 */
import fs from "node:fs";
import path from "node:path";
import { createPiEnv, PLUGIN } from "../tests/support/pi_harness.mjs";
import { fusionRules } from "../tests/support/fusion_script.mjs";

const question = process.argv.slice(2).join(" ").trim();
const merged = [
  `# ${question}`,
  "",
  "This answer was written by Fusion's merger from three independent candidate answers and a",
  "blind evaluation. In this demo every role is played by the built-in scripted model, so the",
  "content is canned; the machinery (five child Pi processes, verified frames, durable hashed",
  "artifacts) is real.",
].join("\n");

const env = await createPiEnv({
  script: { rules: fusionRules({ merger: [{ text: merged }] }) },
  timeoutMs: 300000,
  keepTemp: true,
});
try {
  const run = await env.print(`/fusion ${question}`, { extensions: [PLUGIN] });
  const progress = run.stderr.split("\n").filter((l) => l.startsWith("fusion reason ") || l.startsWith("Started") || l.startsWith("Artifacts:"));
  for (const line of progress) console.error(line);
  process.stdout.write(run.stdout);
  const artifacts = /Artifacts: (.*)/.exec(run.stderr)?.[1];
  if (run.code !== 0 || !artifacts) {
    process.stderr.write(run.stderr);
    process.exitCode = run.code || 1;
  } else {
    console.log(`\nArtifacts: ${artifacts}`);
    console.log(fs.readdirSync(artifacts).sort().map((f) => `  ${f}`).join("\n"));
  }
} finally {
  // The model server and processes stop; of the temp dir only the project (which holds the run's
  // artifacts, for inspection) stays: the temporary Pi home, agent dir, TMPDIR and model log go.
  await env.cleanup();
  for (const name of fs.readdirSync(env.root)) {
    if (name !== "project") fs.rmSync(path.join(env.root, name), { recursive: true, force: true });
  }
  // Said last, so nobody has to hunt for what the demo left behind under the temp directory.
  const left = `Temporary files left in ${env.root} (the demo's project, with the run's artifacts). Remove them with: rm -rf ${env.root}`;
  if (process.exitCode) console.error(left);
  else console.log(left);
}
