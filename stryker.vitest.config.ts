import { defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * The tests mutation testing runs (stryker.config.mjs): the unit tests of the mutated code, on the
 * fake clock, fake servers and in-memory stores, so each mutant costs seconds. Tests that start
 * Redis or PostgreSQL, run the sandbox end to end or build the package are left to `npm test`.
 * (Spread, not mergeConfig: merging would add these globs to the base ones, not replace them.)
 */
// The base config's projects (the fetch and undici wires) would replace this include list.
const { projects: _wires, ...shared } = base.test ?? {};

export default defineConfig({
  ...base,
  test: {
    ...shared,
    // As the base config's fetch project: the tests' fake servers answer through fetch.
    env: { PARTNER_ORDERS_HTTP: "fetch" },
    include: [
      "test/webhooks/**/*.test.ts",
      "test/client/**/*.test.ts",
      // The request checks of src/core/validation, tested on their own.
      "test/validation/**/*.test.ts",
      // The mirror's pure parts: what a read changes (decide), stored values, the event table.
      "test/sync/unit/**/*.test.ts",
      // Traces and metrics (src/core/telemetry.ts, src/sync/telemetry.ts): the SDK's in-memory
      // exporters against the sandbox, a few seconds in all.
      "test/telemetry/**/*.test.ts",
      // The client's shared token cache and rate-limit gate, on in-memory stores.
      "test/fleet/client-fleet.test.ts",
      // Mutual TLS: certificates made by the openssl CLI in a temp dir, and a bare HTTPS server on
      // loopback (mtls.e2e.test.ts runs the sandbox end to end and stays with `npm test`).
      "test/mtls/check.test.ts",
      "test/mtls/check-messages.test.ts",
      "test/mtls/connection.test.ts",
      "test/mtls/undici-missing.test.ts",
    ],
    exclude: ["test/webhooks/dedupe-redis.test.ts"],
    reporters: ["default"],
  },
});
