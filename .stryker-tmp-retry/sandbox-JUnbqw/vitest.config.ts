// @ts-nocheck
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(`./src/${p}`, import.meta.url));

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

export default defineConfig({
  // As in tsup.config.ts: tests run from source see the package's real version (User-Agent).
  define: { __PARTNER_ORDERS_VERSION__: JSON.stringify(version) },
  resolve: {
    alias: [
      { find: /^partner-orders$/, replacement: src("index.ts") },
      { find: /^partner-orders\/webhooks$/, replacement: src("webhooks/index.ts") },
      { find: /^partner-orders\/testing$/, replacement: src("testing/index.ts") },
      { find: /^partner-orders\/mcp$/, replacement: src("mcp/index.ts") },
      { find: /^partner-orders\/fleet$/, replacement: src("fleet/index.ts") },
      { find: /^partner-orders\/sync$/, replacement: src("sync/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
