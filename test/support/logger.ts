import type { Logger } from "../../src/core/logger";

/** A logger that records each call as `[level, message, fields?]`. */
export function recorder(): Logger & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    debug: (...args: unknown[]) => calls.push(["debug", ...args]),
    info: (...args: unknown[]) => calls.push(["info", ...args]),
    warn: (...args: unknown[]) => calls.push(["warn", ...args]),
    error: (...args: unknown[]) => calls.push(["error", ...args]),
  };
}

/** A logger that drops everything: for tests whose warnings are expected and not under test. */
export const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
