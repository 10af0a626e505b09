// The include graph against docs/architecture.md's layer table: the tree is clean, and the check
// sees an include that climbs (a store file including the run layer) and a folder the table
// does not list.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findViolations, readLayerTable } from "../../scripts/check-layers.mjs";

const root = join(fileURLToPath(import.meta.url), "../../..");
const table = readFileSync(join(root, "docs/architecture.md"), "utf8");

test("every include of the tree is allowed by the layer table", () => {
  const rows = readLayerTable(table);
  assert.ok(rows.some((r) => r.folder === "src/run" && r.allowed.has("workflow")));
  assert.deepEqual(findViolations(root, rows), []);
});

test("an include that climbs, or names an unlisted folder, is reported with its line", (t) => {
  const tree = mkdtempSync(join(tmpdir(), "layers-"));
  t.after(() => rmSync(tree, { recursive: true, force: true }));
  const rows = readLayerTable(table);
  for (const row of rows) mkdirSync(join(tree, row.folder), { recursive: true });
  writeFileSync(join(tree, "src/store/ok.cc"), '#include "store/ok.h"\n#include "core/clock.h"\n');
  writeFileSync(join(tree, "src/store/up.cc"), '#include "core/clock.h"\n#include "run/preflight.h"\n');
  writeFileSync(join(tree, "src/core/new.h"), '#pragma once\n#include "gadget/thing.h"\n');
  const problems = findViolations(tree, rows);
  assert.equal(problems.length, 2, problems.join("\n"));
  assert.match(problems.join("\n"), /src\/store\/up\.cc:2: store includes run/);
  assert.match(problems.join("\n"), /src\/core\/new\.h:2: includes "gadget\/"/);
});

test("only the two bindings may include the shared Node-API helpers, which include no layer", () => {
  const rows = readLayerTable(table);
  const users = rows.filter((r) => r.allowed.has("napi_util")).map((r) => r.folder).sort();
  assert.deepEqual(users, ["child", "src/addon"]);
  assert.deepEqual([...rows.find((r) => r.folder === "src/napi_util").allowed], []);
});
