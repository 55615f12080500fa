import { readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import type { Plugin } from "esbuild";
import { defineConfig, type Options } from "tsup";

// The version every request's User-Agent names, written into the build (src/core/user-agent.ts).
const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };

/**
 * Modules whose classes must be one across entries (src/internal/shared-classes.ts), with the two
 * they import that entries import too (so a bundle of an entry holds one copy of them): built once
 * as dist/shared.js, imported from there by every library entry.
 */
const sharedModules = new Set(
  [
    "src/core/errors.ts",
    "src/core/redact.ts",
    "src/webhooks/events.ts",
    "src/webhooks/body.ts",
  ].map((file) => resolve(file)),
);

/**
 * Each library entry is bundled on its own (with its own copy of what it shares with other entries,
 * all of it stateless or keyed by `Symbol.for`) except the shared classes, which it imports from
 * dist/shared.js. One build with `splitting` across all entries put the code into a chunk per set
 * of entries reaching it, so `import "partner-orders"` loaded eight files, and Node's ESM loader
 * spends about 1.5-2 ms on each (resolve, read, compile, link) before any code runs.
 * `toShared` is the path of dist/shared.js from the entry's own output folder.
 */
function sharedClasses(toShared: string): Plugin {
  return {
    name: "shared-classes",
    setup(build) {
      // tsup builds CommonJS with esbuild too; its files end in .cjs.
      const ext = build.initialOptions.outExtension?.[".js"] ?? ".js";
      build.onResolve({ filter: /\/(errors|redact|events|body)$/ }, (args) => {
        if (!sharedModules.has(`${resolve(args.resolveDir, args.path)}.ts`)) return undefined;
        return { path: `${toShared}shared${ext}`, external: true };
      });
    },
  };
}

/**
 * The instrumentation (src/core/telemetry.ts, loaded on first use when `@opentelemetry/api` is
 * installed) gets its own copy of src/core/user-agent.ts, a constant and two pure functions: shared
 * with the root entry, it would be a chunk of its own that every `import "partner-orders"` loads.
 */
const userAgentCopy: Plugin = {
  name: "user-agent-copy",
  setup(build) {
    build.onResolve({ filter: /\/user-agent$/ }, (args) =>
      args.importer === resolve("src/core/telemetry.ts")
        ? { path: `${resolve(args.resolveDir, args.path)}.ts`, suffix: "?telemetry" }
        : undefined,
    );
  },
};

const common: Options = {
  format: ["esm", "cjs"],
  dts: false,
  // dist/ is emptied once below: the builds run side by side and write into it.
  clean: false,
  target: "node20",
  platform: "neutral",
  // Only for dynamic imports (telemetry, mTLS certificate parsing, the MCP SDK, the webhook
  // handler): each stays a file of its own, loaded on first use.
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
};

/** Library entries: output folder under dist/ and source. */
const entries = {
  index: "src/index.ts",
  "webhooks/index": "src/webhooks/index.ts",
  "testing/index": "src/testing/index.ts",
  "mcp/index": "src/mcp/index.ts",
  "fleet/index": "src/fleet/index.ts",
  "sync/index": "src/sync/index.ts",
};

rmSync("dist", { recursive: true, force: true });

export default defineConfig([
  // The published types, for every entry at once (shared declarations stay one), as before.
  {
    entry: { ...entries, cli: "src/cli.ts" },
    // `@internal` declarations (the request path, `Transport` and `Operation`, and the resource
    // constructors that take it) stay out of the published types; `@hidden` ones (error
    // constructors, the error brand) stay in the .d.ts and out of the API reference.
    dts: { only: true, compilerOptions: { stripInternal: true } },
    format: ["esm", "cjs"],
    clean: false,
  },
  { ...common, entry: { shared: "src/internal/shared-classes.ts" }, outDir: "dist" },
  ...Object.entries(entries).map(([name, source]): Options => {
    const folder = name.includes("/") ? name.slice(0, name.indexOf("/")) : "";
    return {
      ...common,
      entry: { index: source },
      outDir: folder ? `dist/${folder}` : "dist",
      esbuildPlugins: [sharedClasses(folder ? "../" : "./"), userAgentCopy],
    };
  }),
  // The command line is a program, not an entry partners import: all of it in its own file.
  { ...common, entry: { cli: "src/cli.ts" }, outDir: "dist", esbuildPlugins: [userAgentCopy] },
]);
