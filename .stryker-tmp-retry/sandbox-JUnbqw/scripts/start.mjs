#!/usr/bin/env node
// @ts-nocheck
// `npm start`: runs examples/quickstart.ts on the built package, rebuilding dist/ first only when
// it is missing or older than what it is built from (src/, tsup.config.ts, package.json). A full
// build with declarations takes most of a minute on a small machine; a fresh dist/ needs none.
// Prints only the example's output (the build's, only when the build fails).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const bin = (name) =>
  join("node_modules", ".bin", process.platform === "win32" ? `${name}.cmd` : name);

/** Modification times (ms) of every file under `path`, or of `path` itself when it is a file. */
function mtimes(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [statSync(path).mtimeMs];
  return readdirSync(path, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs);
}

const built = mtimes("dist");
const sources = ["src", "tsup.config.ts", "package.json"].flatMap(mtimes);
// The oldest output against the newest input: a build interrupted half-way counts as stale.
const stale = built.length === 0 || Math.max(...sources) > Math.min(...built);

if (stale) {
  const build = spawnSync(bin("tsup"), ["--silent"], {
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  if (build.status !== 0) {
    process.stderr.write(`${build.stdout ?? ""}${build.stderr ?? ""}`);
    console.error("npm start: the build failed (see above).");
    process.exit(build.status ?? 1);
  }
}

const example = spawnSync(
  bin("tsx"),
  ["--tsconfig", "tsconfig.examples.json", "examples/quickstart.ts"],
  { stdio: "inherit", shell: process.platform === "win32" },
);
process.exit(example.status ?? 1);
