// Mutation testing (npm run mutate): Stryker changes the code under test one small edit at a time
// (a `>` into `>=`, a `.` into `:`) and checks that some test fails each time. A mutant that
// survives is behaviour no test pins down.
//
// CI gates src/webhooks/verify.ts, where a surviving mutant can mean a forged delivery accepted:
// `npx stryker run --mutate src/webhooks/verify.ts` fails under a score of 90 (`thresholds.break`).
// `npm run mutate` also covers src/core and src/sync (the mirror; its types and entry hold no logic;
// its PostgreSQL store runs under stryker.postgres.config.mjs, against a real server),
// under the same threshold.

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "stryker.vitest.config.ts", related: false },
  mutate: [
    "src/webhooks/verify.ts",
    "src/core/**/*.ts",
    "src/sync/**/*.ts",
    "!src/sync/types.ts",
    "!src/sync/index.ts",
    // Tested against a real PostgreSQL server: stryker.postgres.config.mjs (npm run mutate:postgres).
    "!src/sync/stores/postgres*.ts",
    "!src/sync/stores/pg-*.ts",
    "!src/sync/stores/order-postgres.ts",
  ],
  coverageAnalysis: "perTest",
  // Two cores are shared with other jobs; one test process keeps the run from starving them.
  concurrency: 1,
  timeoutMS: 20_000,
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ["clear-text", "progress", "html"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // Only what the tests need is copied into Stryker's sandbox.
  ignorePatterns: ["/.stryker-deps", "/dist", "/docs", "/coverage", "/reports", "/bench", "*.tgz"],
};
