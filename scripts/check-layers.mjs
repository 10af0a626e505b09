#!/usr/bin/env node
// Checks every quoted #include of the C++ tree against the layer table of docs/architecture.md
// ("## Layers": folder | holds | may include). A folder may include itself and the core's public
// headers (include/pi_fusion); anything else must be listed in its row. An include of a folder
// the table does not know is an error too, so a new folder cannot slip past the table.
//
//   node scripts/check-layers.mjs [--root DIR]   exit 0: clean; 1: violations (listed); 2: bad table
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

// "src/run" -> "run", "include/pi_fusion" -> "pi_fusion", "child" -> "child": the first component
// of the include paths that name the folder's headers.
export function layerOfFolder(folder) {
  return folder.split("/").pop();
}

// The table rows: [{folder, layer, allowed:Set}].
export function readLayerTable(markdown) {
  const section = markdown.split(/^## Layers$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error("docs/architecture.md has no '## Layers' section");
  const rows = [];
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const folder = /^`([^`]+)`$/.exec(cells[1] ?? "")?.[1];
    if (!folder || cells.length < 5) continue;
    const allowed = cells[3] === "–" ? [] : cells[3].split(",").map((c) => c.trim());
    rows.push({ folder, layer: layerOfFolder(folder), allowed: new Set(allowed) });
  }
  if (rows.length === 0) throw new Error("the '## Layers' table has no rows");
  return rows;
}

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(cc|h)$/.test(entry.name)) yield path;
  }
}

// Every include that climbs, as "file:line: includes X (layer may include: …)".
export function findViolations(root, rows) {
  const known = new Set(rows.map((r) => r.layer));
  const problems = [];
  for (const row of rows) {
    for (const file of sourceFiles(join(root, row.folder))) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((text, i) => {
        const target = /^\s*#\s*include\s+"([a-z_]+)\//.exec(text)?.[1];
        if (!target || target === row.layer || target === "pi_fusion") return;
        const where = `${relative(root, file)}:${i + 1}`;
        if (!known.has(target)) {
          problems.push(`${where}: includes "${target}/", a folder the layer table does not list`);
        } else if (!row.allowed.has(target)) {
          const may = [...row.allowed].join(", ") || "nothing";
          problems.push(`${where}: ${row.layer} includes ${target} (${row.layer} may include: ${may})`);
        }
      });
    }
  }
  return problems;
}

function main() {
  const args = process.argv.slice(2);
  const rootAt = args.indexOf("--root");
  const root = rootAt >= 0 ? args[rootAt + 1] : join(fileURLToPath(import.meta.url), "../..");
  let rows;
  try {
    rows = readLayerTable(readFileSync(join(root, "docs/architecture.md"), "utf8"));
  } catch (error) {
    console.error(`check-layers: ${error.message}`);
    process.exit(2);
  }
  const problems = findViolations(root, rows);
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`check-layers: ${problems.length} include(s) against docs/architecture.md's table`);
    process.exit(1);
  }
  console.log(`check-layers: ${rows.length} layers, every include allowed`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
