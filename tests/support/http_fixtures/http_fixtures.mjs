// HTTP fixtures for fetcher tests. startHttpFixtures({ host }) serves these routes on `host`
// (usually a public address inside a private network namespace, tests/support/netns), port 0:
//   /text /markdown /html /json          200 with that content type
//   /redirect/N                          N >= 1 redirects (relative Locations), ending at /text
//   /to?url=U                            302 to U (absolute, any scheme)
//   /big                                 plain text one byte over 4 MiB
//   /bomb                                gzip body (~8 KiB) that inflates to 8 MiB of zeros
//   /encoded/E/over, /encoded/E/at       plain text encoded with E (gzip, deflate, br, zstd) that
//                                        decodes to 4 MiB + 1 bytes, or exactly 4 MiB
//   /drip                                a byte every 100 ms, never ends
//   /gate                                plain text, answered only once releaseGate() was called
//   /404                                 404 text/html
//   /pdf                                 application/pdf
//   /cp1252, /cp1252-meta                Windows-1252 HTML (charset in the header / in <meta>)
//   /utf8                                UTF-8 HTML with non-ASCII text
// WINDOWS_1252_TEXT and UTF8_TEXT are what the last three pages say, as UTF-8.
// `requests` records every request as {path, host}; connections() counts accepted TCP
// connections. releaseGate() answers the held /gate requests and every later one at once.
// close() ends open connections too.
import http from 'node:http';
import zlib from 'node:zlib';

const MIB = 1024 * 1024;
let bomb = null;  // built on first use: importing the module stays cheap
const gzipBomb = () => (bomb ??= zlib.gzipSync(Buffer.alloc(8 * MIB), { level: 9 }));

const ENCODERS = {
  gzip: (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  zstd: (b) => zlib.zstdCompressSync(b),
};
const encodedCache = new Map();
function encodedBody(encoding, size) {
  const key = `${encoding}/${size}`;
  if (!encodedCache.has(key)) encodedCache.set(key, ENCODERS[encoding](Buffer.alloc(size, 'a')));
  return encodedCache.get(key);
}

export const WINDOWS_1252_TEXT = 'Caf\u00e9 \u201cquoted\u201d \u20ac5 \u2014 na\u00efve';
export const UTF8_TEXT = 'Caf\u00e9 \u65e5\u672c\u8a9e \u2014 \u{1F600}';
// Windows-1252 bytes of WINDOWS_1252_TEXT (0x93/0x94 quotes, 0x80 euro, 0x97 em dash).
const CP1252_BYTES = Buffer.from([...Buffer.from('Caf'), 0xe9, 0x20, 0x93, ...Buffer.from('quoted'),
  0x94, 0x20, 0x80, 0x35, 0x20, 0x97, ...Buffer.from(' na'), 0xef, ...Buffer.from('ve')]);
const html = (head, body) => Buffer.concat([Buffer.from(`<html><head>${head}</head><body><p>`), body,
  Buffer.from('</p></body></html>')]);

function route(req, res) {
  const url = new URL(req.url, 'http://fixture');
  const send = (status, type, body, headers = {}) => {
    res.writeHead(status, { 'content-type': type, ...headers });
    res.end(body);
  };
  const redirect = /^\/redirect\/(\d+)$/.exec(url.pathname);
  if (redirect) {
    const n = Number(redirect[1]);
    res.writeHead(302, { location: n <= 1 ? '/text' : `/redirect/${n - 1}` });
    return res.end();
  }
  const encoded = /^\/encoded\/(gzip|deflate|br|zstd)\/(over|at)$/.exec(url.pathname);
  if (encoded) {
    const [, encoding, which] = encoded;
    const size = which === 'over' ? 4 * MIB + 1 : 4 * MIB;
    return send(200, 'text/plain', encodedBody(encoding, size), { 'content-encoding': encoding });
  }
  switch (url.pathname) {
    case '/text': return send(200, 'text/plain; charset=utf-8', 'hello from the fixture\n');
    case '/markdown': return send(200, 'text/markdown', '# Title\n\nbody\n');
    case '/html': return send(200, 'text/html', '<html><body><p>hi</p></body></html>');
    case '/json': return send(200, 'application/json', '{"a":1}');
    case '/404': return send(404, 'text/html', '<p>not here</p>');
    case '/pdf': return send(200, 'application/pdf', '%PDF-1.4\n%%EOF\n');
    case '/cp1252': return send(200, 'text/html; charset=windows-1252', html('', CP1252_BYTES));
    case '/cp1252-meta':
      return send(200, 'text/html', html('<meta charset="windows-1252">', CP1252_BYTES));
    case '/utf8': return send(200, 'text/html; charset=utf-8', html('', Buffer.from(UTF8_TEXT)));
    case '/big': return send(200, 'text/plain', Buffer.alloc(4 * MIB + 1, 'a'));
    case '/bomb': return send(200, 'text/plain', gzipBomb(), { 'content-encoding': 'gzip' });
    case '/to':
      res.writeHead(302, { location: url.searchParams.get('url') });
      return res.end();
    case '/drip': {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 100);
      res.on('close', () => clearInterval(timer));
      return undefined;
    }
    default: return send(404, 'text/plain', 'no such fixture');
  }
}

export async function startHttpFixtures({ host, port = 0 }) {
  const requests = [];
  let connections = 0;
  const gate = { open: false, held: [] };
  const answerGate = (res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('the gate opened\n');
  };
  const server = http.createServer((req, res) => {
    requests.push({ path: req.url, host: req.headers.host });
    if (new URL(req.url, 'http://fixture').pathname !== '/gate') return route(req, res);
    if (gate.open) return answerGate(res);
    gate.held.push(res);
    return undefined;
  });
  server.on('connection', () => { connections += 1; });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: server.address().port,
    origin: `http://${host}:${server.address().port}`,
    requests,
    connections: () => connections,
    releaseGate: () => {
      gate.open = true;
      gate.held.splice(0).forEach(answerGate);
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

// A listener that must never be reached: counts connections to prove the fetcher refused a
// target before connecting.
export async function startCanary({ host, port }) {
  let connections = 0;
  const server = http.createServer((req, res) => res.end());
  server.on('connection', () => { connections += 1; });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
