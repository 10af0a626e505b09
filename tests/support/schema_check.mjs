/**
 * @file Checks a real run artifact against its schema in schemas/artifacts/, through the build's
 * `schema-check` (tests/support/cpp/schema_check_main.cc: the unit tests' checker), so every
 * end-to-end run can hold what it wrote to the published shape.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { BUILD_DIR } from "./pi_harness.mjs";

const SCHEMA_CHECK = path.join(BUILD_DIR, "bin", "schema-check");

/**
 * Asserts that `file` conforms to `schemas/artifacts/<schemaFile>`; with `{ jsonl: true }` every
 * line of it is one document (a tool-call journal).
 */
export function assertConforms(schemaFile, file, { jsonl = false } = {}) {
  const args = [schemaFile, file, ...(jsonl ? ["--jsonl"] : [])];
  const r = spawnSync(SCHEMA_CHECK, args, { encoding: "utf8" });
  assert.equal(r.error, undefined, `${SCHEMA_CHECK}: ${r.error}`);
  assert.equal(r.status, 0, `${path.basename(file)} does not conform to ${schemaFile}:\n${r.stdout}${r.stderr}`);
}

/**
 * Asserts that the JSON value `value` (a part of an artifact, such as result.json's `details`)
 * conforms to `schemas/artifacts/<schemaFile>`, through a file `name` written under `dir`.
 */
export function assertValueConforms(schemaFile, value, dir, name) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(value));
  assertConforms(schemaFile, file);
}
