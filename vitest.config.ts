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
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // The HTTP behaviour (hostile servers, retries, redirects, aborts, mutual TLS, MCP) is held to
    // the same suites on both wires: fetch everywhere, then undici.request over a real socket.
    projects: [
      {
        extends: true,
        test: {
          name: "fetch",
          include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
          env: { PARTNER_ORDERS_HTTP: "fetch" },
        },
      },
      {
        extends: true,
        test: {
          name: "undici",
          include: [
            "test/client/*/hostile-*.test.ts",
            "test/client/retry/retries.test.ts",
            "test/client/retry/retry-after-*.test.ts",
            "test/client/retry/budget.test.ts",
            "test/client/retry/option.test.ts",
            "test/client/retry/policy.test.ts",
            "test/client/request/one-request-path.test.ts",
            "test/client/request/timeout-on-clock.test.ts",
            "test/client/auth/token-*.test.ts",
            "test/client/headers/headers.test.ts",
            "test/client/headers/user-agent.test.ts",
            "test/client/request/msw.test.ts",
            "test/mtls/*.test.ts",
            "test/mcp/*.test.ts",
            "test/telemetry/*.test.ts",
          ],
          env: { PARTNER_ORDERS_TEST_WIRE: "undici" },
        },
      },
    ],
  },
});
