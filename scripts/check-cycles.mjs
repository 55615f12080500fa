#!/usr/bin/env node
// Fails when the modules under src/ import each other in a cycle. Type-only and dynamic imports
// count too: a cycle of types still means two modules that cannot be understood one without the
// other. Also fails when src/core imports src/fleet (the fleet's Redis adapters sit on core).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith(".")) return undefined;
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ""));
  for (const candidate of [`${base}.ts`, join(base, "index.ts")]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

const graph = new Map();
for (const file of files(src)) {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  const targets = importedFiles
    .map((i) => resolveImport(file, i.fileName))
    .filter((target) => target !== undefined);
  graph.set(file, [...new Set(targets)]);
}

const problems = [];
const name = (file) => relative(root, file);

for (const [file, targets] of graph) {
  if (!name(file).startsWith("src/core/")) continue;
  for (const target of targets) {
    if (name(target).startsWith("src/fleet/")) {
      problems.push(`${name(file)} imports ${name(target)}: core must not depend on the fleet.`);
    }
  }
}

// Depth-first search; a back edge closes a cycle, reported once by its members.
const state = new Map();
const stack = [];
const seen = new Set();
function visit(file) {
  state.set(file, "open");
  stack.push(file);
  for (const target of graph.get(file) ?? []) {
    if (state.get(target) === "open") {
      const cycle = stack.slice(stack.indexOf(target)).map(name);
      const key = [...cycle].sort().join(" ");
      if (!seen.has(key)) {
        seen.add(key);
        problems.push(`import cycle: ${[...cycle, name(target)].join(" -> ")}`);
      }
    } else if (!state.has(target)) visit(target);
  }
  stack.pop();
  state.set(file, "done");
}
for (const file of graph.keys()) if (!state.has(file)) visit(file);

if (problems.length) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`check-cycles: ${graph.size} modules under src/, no import cycle.`);
