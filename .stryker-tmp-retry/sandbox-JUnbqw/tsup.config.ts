// @ts-nocheck
import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

// The version every request's User-Agent names, written into the build (src/core/user-agent.ts).
const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "webhooks/index": "src/webhooks/index.ts",
    "testing/index": "src/testing/index.ts",
    "mcp/index": "src/mcp/index.ts",
    "fleet/index": "src/fleet/index.ts",
    "sync/index": "src/sync/index.ts",
    cli: "src/cli.ts",
  },
  format: ["esm", "cjs"],
  // `@internal` declarations (the request path, `Transport` and `Operation`, and the resource
  // constructors that take it) stay out of the published types; `@hidden` ones (error constructors,
  // the error brand) stay in the .d.ts and out of the API reference.
  dts: { compilerOptions: { stripInternal: true } },
  clean: true,
  target: "node20",
  platform: "neutral",
  // Shared code (the error classes above all) lives in shared chunks, so an error thrown through
  // one subpath is `instanceof` the class exported by another.
  splitting: true,
  sourcemap: false,
  treeshake: true,
  // Keep `node:` specifiers as written: Deno and some bundlers need the prefix to tell a built-in.
  removeNodeProtocol: false,
  external: [/^node:/],
  // p-retry is ESM-only; bundling it (and its one dependency) keeps the CommonJS build working on
  // every Node 20 release, including those before require(esm).
  noExternal: ["p-retry", "is-network-error"],
  define: { __PARTNER_ORDERS_VERSION__: JSON.stringify(version) },
});
