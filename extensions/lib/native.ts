/**
 * Finds and loads one of pi-fusion's native libraries, and says exactly what is missing when that
 * fails: a PI_FUSION_ADDON-style override that names no file, a build (in a checkout) or a
 * prebuilt library (in an installed package), or a shared library the system lacks.
 *
 * Looked up in order: the override variable (when set, only there), build/dev/lib and
 * build/release/lib (a checkout after scripts/setup), prebuilds/<platform>-<arch> (the npm
 * package). Not an extension itself: Pi loads only the files the package manifest names.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

/** Debian/Ubuntu packages that provide the shared libraries the prebuilt files link. */
const PROVIDERS: Record<string, string> = {
  "libstdc++.so.6": "libstdc++6",
  "libgcc_s.so.1": "libgcc-s1",
  "libcurl.so.4": "libcurl4",
  "libcares.so.2": "libc-ares2",
  "libgumbo.so.1": "libgumbo1",
  "libcrypto.so.3": "libssl3",
  "libssl.so.3": "libssl3",
};

function fail(message: string): never {
  throw new Error(`pi-fusion: ${message}`);
}

/** The libraries `ldd` reports as not found, or [] when ldd is unavailable. */
function missingLibraries(file: string): string[] {
  try {
    const out = execFileSync("ldd", [file], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 5000 });
    return [...out.matchAll(/^\s*(\S+)\s+=>\s+not found/gm)].map((m) => m[1]);
  } catch {
    return [];
  }
}

/** Turns a dlopen failure into the missing piece, by name. */
function explainLoadError(file: string, error: unknown): never {
  const text = error instanceof Error ? error.message : String(error);
  const version = /version `((GLIBC|GLIBCXX|CXXABI)_[\d.]+)' not found/.exec(text);
  if (version) {
    const library = version[2] === "GLIBC" ? "C library (libc6)" : "C++ library (libstdc++6)";
    fail(
      `${file} needs ${version[1]}, which this system's ${library} lacks: the prebuilt files need ` +
        "glibc 2.34 and libstdc++ 3.4.29 or newer (Debian 12, Ubuntu 22.04 or newer).",
    );
  }
  const missing = missingLibraries(file);
  const first = /(\S+\.so[.\d]*): cannot open shared object file/.exec(text)?.[1];
  if (first && !missing.includes(first)) missing.unshift(first);
  if (missing.length > 0) {
    const packages = [...new Set(missing.map((lib) => PROVIDERS[lib]).filter(Boolean))];
    fail(
      `${file} cannot load: missing shared ${missing.length === 1 ? "library" : "libraries"} ${missing.join(", ")}` +
        (packages.length > 0 ? `; install ${packages.join(" ")} (apt-get install ${packages.join(" ")})` : "") +
        ".",
    );
  }
  fail(`${file} cannot load: ${text}`);
}

/**
 * Loads `<name>.node` for the package rooted at `packageRoot`. `override` is the value of the
 * environment variable `overrideName`.
 */
export function loadNative<T>(
  packageRoot: string,
  name: string,
  overrideName: string,
  override: string | undefined,
): { addon: T; path: string } {
  const file = `${name}.node`;
  let path: string | undefined;
  if (override !== undefined && override.length > 0) {
    if (!existsSync(override)) fail(`${overrideName}=${override} names no file; unset it or point it at ${file}.`);
    path = override;
  } else {
    const prebuilt = join(packageRoot, "prebuilds", `${process.platform}-${process.arch}`, file);
    path = [join(packageRoot, "build", "dev", "lib", file), join(packageRoot, "build", "release", "lib", file), prebuilt].find(
      (p) => existsSync(p),
    );
    if (path === undefined) {
      const setup = join(packageRoot, "scripts", "setup");
      if (existsSync(setup)) fail(`native library ${file} is not built; run ${setup}`);
      fail(
        `this package has no prebuilt ${file} for ${process.platform}-${process.arch} (expected ${prebuilt}); ` +
          "prebuilt libraries exist for linux-x64 only.",
      );
    }
  }
  try {
    return { addon: createRequire(import.meta.url)(path) as T, path };
  } catch (error) {
    explainLoadError(path, error);
  }
}
