import { defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * The tests mutation testing of the PostgreSQL store runs (stryker.postgres.config.mjs): the store
 * contract and the PostgreSQL store's own tests, on one real server started once for the run
 * (test/support/shared-postgres.ts), each test in a database of its own; and the unit tests of its
 * statements on a scripted connection (test/sync/unit), which the default run does not mutate for.
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
      "test/sync/stores/**/*.test.ts",
      "test/sync/unit/pg-*.test.ts",
      "test/sync/unit/postgres-*.test.ts",
    ],
    globalSetup: ["test/support/shared-postgres.ts"],
    reporters: ["default"],
  },
});
