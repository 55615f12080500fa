#!/usr/bin/env node
// Size budget: what each entry costs a partner's bundle, minified and gzipped, with its runtime
// dependencies, and proof that test-only and optional code is never reachable from the root.
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const KiB = 1024;
const budgets = [
  {
    entry: "dist/index.js",
    limit: 22 * KiB,
    modules: [
      "@modelcontextprotocol",
      "node_modules/msw",
      "node_modules/redis",
      "node_modules/undici",
    ],
  },
  { entry: "dist/webhooks/index.js", limit: 4 * KiB, modules: ["openapi-fetch", "decimal.js"] },
];
/** Module paths and names that must never reach a partner's bundle through these entries. */
const sandboxMarker = "createSandbox";

let failed = false;
for (const { entry, limit, modules } of budgets) {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    write: false,
    metafile: true,
    logLevel: "silent",
    external: ["node:*"],
  });
  const code = result.outputFiles[0].contents;
  const size = gzipSync(code, { level: 9 }).length;
  const inputs = Object.keys(result.metafile.inputs).join("\n");
  const text = new TextDecoder().decode(code);
  const leaks = modules.filter((name) => inputs.includes(name));
  if (text.includes(sandboxMarker)) leaks.push("the sandbox");
  const ok = size <= limit && leaks.length === 0;
  failed ||= !ok;
  console.log(
    `size: ${entry} ${(size / KiB).toFixed(1)} KiB min+gzip (budget ${limit / KiB} KiB)` +
      (leaks.length ? `; must not contain: ${leaks.join(", ")}` : "") +
      (ok ? "" : "  OVER"),
  );
}
if (failed) process.exit(1);
