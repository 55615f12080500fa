// Mutation testing of the mirror's PostgreSQL store (npm run mutate:postgres): as stryker.config.mjs,
// with the tests that need a real PostgreSQL server, which is started once for the whole run.
import base from "./stryker.config.mjs";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  ...base,
  vitest: { configFile: "stryker.postgres.vitest.config.ts", related: false },
  // Every store file whose code only runs against a server; stryker.config.mjs leaves them out.
  mutate: [
    "src/sync/stores/postgres*.ts",
    "src/sync/stores/pg-*.ts",
    "src/sync/stores/order-postgres.ts",
  ],
  htmlReporter: { fileName: "reports/mutation/postgres.html" },
};
