#!/usr/bin/env node
/**
 * Keeps the parameter table of every docs/tools/<tool>.md equal to schemas/tools/<tool>.json.
 *   node scripts/docs-tables.mjs          rewrite the tables from the schemas
 *   node scripts/docs-tables.mjs --check  exit 1 and name each page whose table differs
 * The table sits between `<!-- parameters:begin -->` and `<!-- parameters:end -->`.
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const BEGIN = "<!-- parameters:begin -->";
const END = "<!-- parameters:end -->";

function typeOf(schema) {
  if (schema.type === "array") return `${typeOf(schema.items)}[]`;
  if (schema.enum) return schema.enum.map((v) => `"${v}"`).join(" \\| ");
  return schema.type;
}

function constraints(schema) {
  const out = [];
  if (schema.minLength) out.push(`non-blank`);
  if (schema.minItems) out.push(`at least ${schema.minItems} item${schema.minItems > 1 ? "s" : ""}`);
  if (schema.type === "array" && schema.items?.minLength) out.push("items non-blank");
  if (schema.type === "object" || schema.items?.type === "object") out.push("closed");
  return out.join(", ");
}

function rows(schema, prefix = "") {
  const required = new Set(schema.required ?? []);
  const out = [];
  for (const [name, prop] of Object.entries(schema.properties)) {
    const field = `${prefix}${name}`;
    const description = (prop.description ?? "").replaceAll("|", "\\|");
    out.push(`| \`${field}\` | ${required.has(name) ? "yes" : "no"} | ${typeOf(prop)} | ${constraints(prop)} | ${description} |`);
    if (prop.type === "object") out.push(...rows(prop, `${field}.`));
    if (prop.type === "array" && prop.items.type === "object") out.push(...rows(prop.items, `${field}[].`));
  }
  return out;
}

export function table(schema) {
  return ["| Field | Required | Type | Constraints | Description |", "| --- | --- | --- | --- | --- |", ...rows(schema)].join("\n");
}

const check = process.argv.includes("--check");
let stale = 0;
for (const file of readdirSync(join(root, "schemas", "tools")).sort()) {
  const tool = file.replace(/\.json$/, "");
  if (tool === "fusion_web_fetch") continue; // private to research children; documented in docs/protocol.md
  const schema = JSON.parse(readFileSync(join(root, "schemas", "tools", file), "utf8"));
  const page = join(root, "docs", "tools", `${tool}.md`);
  let text;
  try {
    text = readFileSync(page, "utf8");
  } catch {
    console.error(`missing page docs/tools/${tool}.md`);
    stale++;
    continue;
  }
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) {
    console.error(`docs/tools/${tool}.md has no ${BEGIN} ... ${END} block`);
    stale++;
    continue;
  }
  const updated = `${text.slice(0, begin + BEGIN.length)}\n${table(schema)}\n${text.slice(end)}`;
  if (updated === text) continue;
  if (check) {
    console.error(`docs/tools/${tool}.md: parameter table differs from schemas/tools/${file}; run node scripts/docs-tables.mjs`);
    stale++;
  } else {
    writeFileSync(page, updated);
    console.log(`updated docs/tools/${tool}.md`);
  }
}
if (stale) process.exit(1);
console.log(check ? "docs tables: 1 passed, 0 failed" : "docs tables written");
