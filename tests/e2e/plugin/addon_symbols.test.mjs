/**
 * @file The built addon's linking contract (see docs/architecture.md, "Linking"): it exports only
 * the two Node-API entry points and depends on no shared library but libstdc++ and libc's
 * family, so it can never bind to the OpenSSL, c-ares or zlib that the node executable exports.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { BUILD_DIR } from "../../support/pi_harness.mjs";
import { SANITIZED } from "../../support/sanitizer_env.mjs";

const ALLOWED_NEEDED = new Set(["libstdc++.so.6", "libgcc_s.so.1", "libc.so.6", "libm.so.6", "ld-linux-x86-64.so.2"]);
// A sanitizer build (PI_FUSION_SANITIZED=1, tests/CMakeLists.txt) links its runtimes too.
const SANITIZER_RUNTIME = /^lib(asan|ubsan)\.so\.\d+$/;

for (const name of ["pi_fusion.node", "pi_fusion_child.node"]) {
  const file = path.join(BUILD_DIR, "lib", name);
  test(`${name} exports only the Node-API entry points`, () => {
    const symbols = execFileSync("nm", ["-D", "--defined-only", file], { encoding: "utf8" })
      .split("\n").filter(Boolean).map((l) => l.split(/\s+/).at(-1)).sort();
    assert.deepEqual(symbols, ["napi_register_module_v1", "node_api_module_get_api_version_v1"]);
  });

  test(`${name} needs no shared library beyond libstdc++ and libc`, () => {
    const needed = execFileSync("readelf", ["-d", file], { encoding: "utf8" })
      .split("\n").map((l) => /\(NEEDED\).*\[(.*)\]/.exec(l)?.[1]).filter(Boolean);
    for (const lib of needed) {
      const allowed = ALLOWED_NEEDED.has(lib) || (SANITIZED && SANITIZER_RUNTIME.test(lib));
      assert.ok(allowed, `unexpected dependency ${lib}`);
    }
  });
}
