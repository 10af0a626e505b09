// A scripted DNS server on loopback UDP for fetcher tests (`pi-fusion fetch --dns-servers`).
//
// startFakeDns({ zones, port = 0 }) listens on 127.0.0.1 (port 53 inside a private network
// namespace whose resolv.conf names it, tests/support/netns) and answers A/AAAA questions from `zones`:
//   zones[name] = { A: answers, AAAA: answers }   answers: string[] or (n) => string[] where n
//                                                 counts earlier queries of that name and type
//   zones[name] = 'silent'                         never answer (to exercise deadlines)
// Names not in `zones` get NXDOMAIN. Every question is recorded in `queries` as {name, type}.
// Only loopback is ever bound; nothing is forwarded anywhere.
import dgram from 'node:dgram';

const TYPES = { 1: 'A', 28: 'AAAA' };

function parseQuestion(msg) {
  const labels = [];
  let offset = 12;
  while (msg[offset] !== 0) {
    const len = msg[offset];
    labels.push(msg.subarray(offset + 1, offset + 1 + len).toString('latin1'));
    offset += 1 + len;
  }
  offset += 1;
  const qtype = msg.readUInt16BE(offset);
  return { name: labels.join('.').toLowerCase(), qtype, end: offset + 4 };
}

function addressBytes(type, text) {
  if (type === 'A') return Buffer.from(text.split('.').map(Number));
  const groups = expandIpv6(text);
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(g, 2 * i));
  return out;
}

// Plain hex IPv6 text (no embedded dotted IPv4) to eight groups.
function expandIpv6(text) {
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const h = head ? head.split(':').map((x) => parseInt(x, 16)) : [];
  const t = tail ? tail.split(':').map((x) => parseInt(x, 16)) : [];
  if (tail === null) return h;
  return [...h, ...new Array(8 - h.length - t.length).fill(0), ...t];
}

function buildResponse(query, q, rcode, type, addresses) {
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);  // id
  header.writeUInt16BE(0x8180 | rcode, 2);  // QR, RD, RA
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const answers = addresses.map((text) => {
    const rdata = addressBytes(type, text);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0);  // pointer to the question name
    rr.writeUInt16BE(q.qtype, 2);
    rr.writeUInt16BE(1, 4);  // IN
    rr.writeUInt32BE(1, 6);  // TTL
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, query.subarray(12, q.end), ...answers]);
}

export async function startFakeDns({ zones, port = 0 }) {
  const socket = dgram.createSocket('udp4');
  const queries = [];
  const counts = new Map();
  socket.on('message', (msg, rinfo) => {
    const q = parseQuestion(msg);
    const type = TYPES[q.qtype];
    queries.push({ name: q.name, type: type ?? q.qtype });
    const zone = zones[q.name];
    if (zone === 'silent') return;
    let rcode = 0;
    let addresses = [];
    if (zone === undefined) {
      rcode = 3;  // NXDOMAIN
    } else if (type) {
      const key = `${q.name}/${type}`;
      const n = counts.get(key) ?? 0;
      counts.set(key, n + 1);
      const spec = zone[type] ?? [];
      addresses = typeof spec === 'function' ? spec(n) : spec;
    }
    socket.send(buildResponse(msg, q, rcode, type, addresses), rinfo.port, rinfo.address);
  });
  await new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', resolve);
  });
  return {
    server: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise((resolve) => socket.close(resolve)),
  };
}
