// @ts-nocheck
import { existsSync } from "node:fs";
import { join } from "node:path";
import { defineConfig, mergeConfig } from "vitest/config";
import base from "../vitest.config";

/**
 * The project's test config with `decimal.js` taken from `DECIMAL_JS_DIR` (a decimal.js package
 * directory) instead of the locked copy: see scripts/decimal-latest.sh.
 */
const dir = process.env.DECIMAL_JS_DIR;
if (!dir) throw new Error("DECIMAL_JS_DIR must name a decimal.js package directory.");
const entry = join(dir, "decimal.mjs");
if (!existsSync(entry)) throw new Error(`No decimal.js ESM build at ${entry}.`);

export default mergeConfig(
  base,
  defineConfig({
    resolve: { alias: [{ find: /^decimal\.js$/, replacement: entry }] },
    test: { reporters: ["default"] },
  }),
);
