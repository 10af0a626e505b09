/**
 * @file The environment for system tools a test runs itself (ip, mount, cc, ...).
 *
 * Under the asan preset every Node-based test runs through `node-sanitized`, which puts the ASan
 * runtime in LD_PRELOAD with leak detection on, and every process started from it inherits that.
 * That is the point for Pi, its children and pi-fusion: they load our sanitized code. A system
 * tool is not ours, yet with the runtime preloaded LeakSanitizer checks it at exit too, and some
 * (`ip`, `cc`) do leave memory unfreed: the tool then exits 23 and the test fails, or a namespace
 * probe concludes "cannot create a namespace" and skips. Such tools get this environment instead.
 *
 *   execFileSync("ip", [...], { env: plainToolEnv() });
 */

const SANITIZER_VARIABLES = ["LD_PRELOAD", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"];

/** `env` (default process.env) without the sanitizer runtime and its options. */
export function plainToolEnv(env = process.env) {
  const out = { ...env };
  for (const name of SANITIZER_VARIABLES) delete out[name];
  return out;
}

/** True in a sanitizer build's test run (tests/CMakeLists.txt sets PI_FUSION_SANITIZED=1). */
export const SANITIZED = process.env.PI_FUSION_SANITIZED === "1";

/**
 * A latency limit a test asserts, for this build. Under ASan every Pi process runs several times
 * slower and LeakSanitizer scans its heap when it exits (seconds for a Pi), so a limit that bounds
 * our own latency is tripled there; the dev build keeps the exact limit.
 */
export function latencyLimitMs(ms) {
  return SANITIZED ? ms * 3 : ms;
}
