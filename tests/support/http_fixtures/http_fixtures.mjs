// HTTP fixtures for fetcher tests. startHttpFixtures({ host }) serves these routes on `host`
// (usually a public address inside a private network namespace, tests/support/netns), port 0:
//   /text /markdown /html /json          200 with that content type
//   /redirect/N                          N >= 1 redirects (relative Locations), ending at /text
//   /to?url=U                            302 to U (absolute, any scheme)
//   /big                                 plain text one byte over 4 MiB
//   /bomb                                gzip body (~8 KiB) that inflates to 8 MiB of zeros
//   /drip                                a byte every 100 ms, never ends
//   /404                                 404 text/html
// `requests` records every request as {path, host}; connections() counts accepted TCP
// connections. close() ends open connections too.
import http from 'node:http';
import zlib from 'node:zlib';

const MIB = 1024 * 1024;
let bomb = null;  // built on first use: importing the module stays cheap
const gzipBomb = () => (bomb ??= zlib.gzipSync(Buffer.alloc(8 * MIB), { level: 9 }));

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
  switch (url.pathname) {
    case '/text': return send(200, 'text/plain; charset=utf-8', 'hello from the fixture\n');
    case '/markdown': return send(200, 'text/markdown', '# Title\n\nbody\n');
    case '/html': return send(200, 'text/html', '<html><body><p>hi</p></body></html>');
    case '/json': return send(200, 'application/json', '{"a":1}');
    case '/404': return send(404, 'text/html', '<p>not here</p>');
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
  const server = http.createServer((req, res) => {
    requests.push({ path: req.url, host: req.headers.host });
    route(req, res);
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
