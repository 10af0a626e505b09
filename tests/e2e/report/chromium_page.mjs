/**
 * @file Headless Chromium (Debian `chromium`) over one local HTML file, as a person's browser
 * would load it: the DOM after the page's scripts ran, the requests the page made (from
 * Chromium's network log: every request whose initiator is a page origin, not the browser's own
 * update and time checks), and a screenshot at 1280×800 decoded to pixels.
 * Runs inside a private network namespace (`unshare -n`) when it can, so nothing could leave.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
  // A container's /dev/shm may be 64 MiB, too small for a renderer: Chromium then crashes.
  "--disable-dev-shm-usage"];
// A browser start on a loaded 2-core machine has taken most of a minute.
const CHROMIUM_TIMEOUT_MS = 180000;

const spawnOptions = { encoding: "utf8", timeout: CHROMIUM_TIMEOUT_MS, maxBuffer: 64 << 20 };

function chromium(args, dir) {
  const profile = fs.mkdtempSync(path.join(dir, "profile-"));
  const argv = [...FLAGS, `--user-data-dir=${profile}`, ...args];
  const canUnshare = spawnSync("unshare", ["-n", "true"]).status === 0;
  const r = canUnshare
    ? spawnSync("unshare", ["-n", "chromium", ...argv], spawnOptions)
    : spawnSync("chromium", argv, spawnOptions);
  if (r.status !== 0) {
    const how = r.error ? `failed (${r.error.message})` : r.signal ? `was killed by ${r.signal}` : `exited ${r.status}`;
    throw new Error(`chromium ${how}: ${r.stderr}`);
  }
  return r.stdout;
}

/** The page's DOM after load (its scripts, if any ran) and the URLs the page itself requested. */
export function loadPage(file, dir) {
  const netLog = path.join(dir, `net-${path.basename(file)}.json`);
  const dom = chromium([`--log-net-log=${netLog}`, "--dump-dom", `file://${file}`], dir);
  const events = JSON.parse(fs.readFileSync(netLog, "utf8")).events ?? [];
  const requested = new Set();
  for (const e of events) {
    const p = e.params ?? {};
    if (p.url && p.initiator !== undefined && p.initiator !== "not an origin") requested.add(p.url);
  }
  return { dom, requested: [...requested] };
}

/**
 * A 1280×800 screenshot of the page as {width, height, rgb: Buffer} (8-bit RGB or RGBA PNG);
 * `dark`: with the system's dark scheme asked for (prefers-color-scheme: dark).
 */
export function screenshot(file, dir, { dark = false } = {}) {
  const png = path.join(dir, `${path.basename(file)}${dark ? "-dark" : ""}.png`);
  chromium([`--screenshot=${png}`, "--window-size=1280,800", ...(dark ? ["--force-dark-mode"] : []), `file://${file}`], dir);
  return decodePng(fs.readFileSync(png));
}

function decodePng(bytes) {
  let at = 8;
  let width = 0, height = 0, channels = 0;
  const idat = [];
  while (at < bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString("latin1", at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || (data[9] !== 2 && data[9] !== 6) || data[12] !== 0) throw new Error("unexpected PNG format");
      channels = data[9] === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(data);
    at += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = Buffer.alloc(width * height * 3);
  let previous = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? line[x - channels] : 0, b = previous[x], c = x >= channels ? previous[x - channels] : 0;
      const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      line[x] = (line[x] + predictor) & 0xff;
    }
    for (let x = 0; x < width; x++) line.copy(out, (y * width + x) * 3, x * channels, x * channels + 3);
    previous = line;
  }
  return { width, height, rgb: out };
}

/** Mean and variance of the pixels' luminance, and how many distinct colours there are. */
export function pixelStats({ rgb }) {
  let sum = 0, sumSq = 0;
  const colours = new Set();
  const n = rgb.length / 3;
  for (let i = 0; i < rgb.length; i += 3) {
    const l = 0.299 * rgb[i] + 0.587 * rgb[i + 1] + 0.114 * rgb[i + 2];
    sum += l;
    sumSq += l * l;
    if (colours.size < 4096) colours.add((rgb[i] << 16) | (rgb[i + 1] << 8) | rgb[i + 2]);
  }
  const mean = sum / n;
  return { mean, variance: sumSq / n - mean * mean, colours: colours.size };
}
