// Extraction throughput of the JavaScript converters over the same corpus as extract_bench:
// turndown (HTML → Markdown; in Node it parses with its bundled domino DOM), turndown with the
// GFM plugin (tables, like ours), and html-to-text (HTML → text, htmlparser2).
//
//   node bench/extract/bench_js.mjs CORPUS_DIR [MIN_SECONDS_PER_CASE]
//
// Prints one JSON object per line, in extract_bench's format. Each case gets a warm-up run so
// the JIT has compiled the converter before timing starts.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(new URL('../package.json', import.meta.url));
const TurndownService = require('turndown');
const { gfm } = require('turndown-plugin-gfm');
const { convert } = require('html-to-text');

const [dir, minArg] = process.argv.slice(2);
if (!dir) {
  console.error('usage: bench_js.mjs CORPUS_DIR [MIN_SECONDS_PER_CASE]');
  process.exit(2);
}
const minSeconds = Number(minArg ?? 0.5);

const plain = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
plain.remove(['script', 'style', 'noscript', 'template', 'head']);
const withGfm = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
withGfm.use(gfm);
withGfm.remove(['script', 'style', 'noscript', 'template', 'head']);
const toText = (html) => convert(html, { wordwrap: false });

const tools = [
  ['turndown', 'markdown', (html) => plain.turndown(html)],
  ['turndown+gfm', 'markdown', (html) => withGfm.turndown(html)],
  ['html-to-text', 'text', toText],
];

for (const file of readdirSync(dir).filter((f) => f.endsWith('.html')).sort()) {
  const html = readFileSync(join(dir, file), 'utf8');
  const bytes = Buffer.byteLength(html);
  for (const [tool, format, run] of tools) {
    let outputBytes = run(html).length;  // warm-up
    const start = process.hrtime.bigint();
    let runs = 0;
    let seconds = 0;
    while (runs < 2 || seconds < minSeconds) {
      outputBytes = run(html).length;
      ++runs;
      seconds = Number(process.hrtime.bigint() - start) / 1e9;
    }
    console.log(JSON.stringify({ tool, format, file, bytes, runs, seconds, output_chars: outputBytes }));
  }
}
