// Generates the extraction benchmark corpus: realistic pages made here, deterministically (a
// seeded PRNG), so the benchmark needs no network and the repository holds no megabytes of HTML.
//
//   node bench/extract/make_corpus.mjs OUT_DIR
//
// Writes OUT_DIR/article-NN.html (news/blog articles with the usual page chrome: head, inline
// scripts and styles, navigation, footer), OUT_DIR/docs-NN.html (reference documentation with
// parameter tables, colspan/rowspan, code blocks, definition lists) and OUT_DIR/large.html (one
// long reference page over 1 MB). Same seed, same bytes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const out = process.argv[2];
if (!out) {
  console.error('usage: make_corpus.mjs OUT_DIR');
  process.exit(2);
}

// mulberry32: small, fast, and the same sequence everywhere.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which ' +
  'but have an they you were her she there been one all we their has would when if so no will ' +
  'more can out up about who some into them other than then these its only could time two may ' +
  'first new any like our over such after most also made many before must through back years ' +
  'where much your way well down should because each just those people how too little state good ' +
  'very make world still own see men work long get here between both life being under never day ' +
  'same another know while last might us great old year off come since against go came right ' +
  'used take three system request response server client latency buffer parser thread memory ' +
  'network protocol cache index query schema module function runtime compiler release version'
).split(' ');

function generator(seed) {
  const r = rng(seed);
  const pick = (list) => list[Math.floor(r() * list.length)];
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const words = (lo, hi) => Array.from({ length: int(lo, hi) }, () => pick(WORDS)).join(' ');
  const sentence = () => {
    const s = words(6, 18);
    return s[0].toUpperCase() + s.slice(1) + pick(['.', '.', '.', '?', '!']);
  };
  const inline = () => {
    const parts = [];
    for (let i = int(2, 6); i > 0; --i) {
      const s = sentence();
      switch (int(0, 9)) {
        case 0: parts.push(`<a href="https://example.com/${pick(WORDS)}/${int(1, 9999)}">${s}</a>`); break;
        case 1: parts.push(`<strong>${s}</strong>`); break;
        case 2: parts.push(`<em>${s}</em>`); break;
        case 3: parts.push(`${s} <code>${pick(WORDS)}_${pick(WORDS)}()</code>`); break;
        default: parts.push(s);
      }
    }
    return parts.join(' ');
  };
  return { r, pick, int, words, sentence, inline };
}

function chrome(g, title, body) {
  const nav = Array.from({ length: 12 }, (_, i) =>
    `<li class="nav-item"><a class="nav-link" href="/section/${i}">${g.words(1, 2)}</a></li>`).join('\n');
  const script = `window.__STATE__ = ${JSON.stringify({ id: g.int(1, 1e6), tags: g.words(300, 2500).split(' ') })};\n` +
    'function track(e){var t=e.target;while(t&&t.tagName!=="A")t=t.parentNode;if(t)navigator.sendBeacon("/t",t.href)}' +
    'document.addEventListener("click",track);'.repeat(8);
  const style = '.nav-item{display:inline-block;margin:0 8px}.article p{line-height:1.6}'.repeat(120);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>${title}</title><link rel="stylesheet" href="/main.css"><style>${style}</style>
<script>${script}</script></head>
<body><header class="site-header"><div class="logo"><a href="/"><img src="/logo.svg" alt="Example News"></a></div>
<nav aria-label="main"><ul class="nav">${nav}</ul></nav>
<form class="search" action="/search"><input type="search" name="q" placeholder="Search"><button>Go</button></form></header>
${body}
<aside class="related"><h2>Related</h2><ul>${Array.from({ length: 6 }, () => `<li><a href="/a/${g.int(1, 9e4)}">${g.sentence()}</a></li>`).join('')}</ul></aside>
<footer><p>&copy; 2025 Example Media. <a href="/privacy">Privacy</a> · <a href="/terms">Terms</a></p>
<noscript><img src="/pixel.gif" alt=""></noscript></footer>
<script async src="/analytics.js"></script></body></html>
`;
}

function article(seed) {
  const g = generator(seed);
  const sections = [];
  for (let s = g.int(5, 10); s > 0; --s) {
    const blocks = [`<h2>${g.words(3, 7)}</h2>`];
    for (let p = g.int(4, 9); p > 0; --p) {
      switch (g.int(0, 11)) {
        case 0: blocks.push(`<blockquote><p>${g.inline()}</p></blockquote>`); break;
        case 1: blocks.push(`<ul>${Array.from({ length: g.int(3, 6) }, () => `<li>${g.sentence()}</li>`).join('')}</ul>`); break;
        case 2: blocks.push(`<figure><img src="/img/${g.int(1, 999)}.jpg" alt="${g.words(3, 8)}"><figcaption>${g.sentence()}</figcaption></figure>`); break;
        default: blocks.push(`<p>${g.inline()}</p>`);
      }
    }
    sections.push(`<section>${blocks.join('\n')}</section>`);
  }
  const body = `<main><article class="article"><h1>${g.words(5, 10)}</h1>
<p class="byline">By <a href="/authors/${g.pick(g.words(1, 1).split(' '))}">${g.words(2, 2)}</a> · <time datetime="2025-01-01">Jan 1, 2025</time></p>
${sections.join('\n')}</article></main>`;
  return chrome(g, g.words(4, 8), body);
}

function paramTable(g) {
  const rows = [];
  for (let i = g.int(4, 12); i > 0; --i) {
    const span = g.int(0, 5) === 0 ? ' rowspan="2"' : '';
    rows.push(`<tr><td${span}><code>${g.pick(WORDS)}_${g.pick(WORDS)}</code></td><td>${g.pick(['string', 'int', 'bool', 'Duration', 'list&lt;string&gt;'])}</td><td>${g.sentence()} ${g.sentence()}</td><td>${g.pick(['yes', 'no', '—'])}</td></tr>`);
    if (span) rows.push(`<tr><td colspan="2">Deprecated form: ${g.words(3, 6)}</td><td>no</td></tr>`);
  }
  return `<table class="params"><thead><tr><th>Name</th><th>Type</th><th>Description</th><th align="center">Required</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
}

function codeBlock(g) {
  const lines = Array.from({ length: g.int(4, 14) }, () =>
    `${' '.repeat(2 * g.int(0, 3))}${g.pick(WORDS)}.${g.pick(WORDS)}(${g.pick(WORDS)}, &quot;${g.words(1, 3)}&quot;);`);
  return `<pre><code class="language-js">${lines.join('\n')}</code></pre>`;
}

function docsSections(g, count) {
  const sections = [];
  for (let s = 0; s < count; ++s) {
    const name = `${g.pick(WORDS)}.${g.pick(WORDS)}`;
    sections.push(`<section id="s${s}"><h2><code>${name}()</code></h2>
<p>${g.inline()}</p>
${paramTable(g)}
<h3>Example</h3>
${codeBlock(g)}
<dl><dt>Returns</dt><dd>${g.sentence()}</dd><dt>Throws</dt><dd><code>${g.pick(WORDS)}Error</code> ${g.sentence()}</dd></dl>
<div class="note"><p><strong>Note:</strong> ${g.inline()}</p></div></section>`);
  }
  return sections.join('\n');
}

function docs(seed, sections) {
  const g = generator(seed);
  const sidebar = Array.from({ length: 40 }, (_, i) => `<li><a href="#s${i}">${g.words(1, 3)}</a></li>`).join('');
  const body = `<div class="layout"><nav class="sidebar"><ul>${sidebar}</ul></nav>
<main class="content"><h1>${g.words(2, 4)} reference</h1><p>${g.inline()}</p>
${docsSections(g, sections)}</main></div>`;
  return chrome(g, `${g.words(2, 3)} — API reference`, body);
}

mkdirSync(out, { recursive: true });
const written = [];
const write = (name, html) => {
  writeFileSync(join(out, name), html);
  written.push(`${name} ${Buffer.byteLength(html)}`);
};
for (let i = 1; i <= 12; ++i) write(`article-${String(i).padStart(2, '0')}.html`, article(1000 + i));
for (let i = 1; i <= 6; ++i) write(`docs-${String(i).padStart(2, '0')}.html`, docs(2000 + i, 12 + 4 * i));
write('large.html', docs(3000, 600));
console.log(written.join('\n'));
