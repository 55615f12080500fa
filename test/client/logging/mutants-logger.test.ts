import { afterEach, describe, expect, it, vi } from "vitest";
import { createLog, type LogLevel, resolveLog } from "../../../src/core/logger";
import { recorder } from "../../support/logger";

const levels = ["debug", "info", "warn", "error"] as const;

function written(level: LogLevel): string[] {
  const logger = recorder();
  const log = createLog(logger, level);
  for (const name of levels) log[name](name);
  return logger.calls.map(([name]) => name as string);
}

describe("log levels", () => {
  it.each([
    ["debug", ["debug", "info", "warn", "error"]],
    ["info", ["info", "warn", "error"]],
    ["warn", ["warn", "error"]],
    ["error", ["error"]],
    ["off", []],
  ] as const)("at %s, lines of that level and above are written", (level, expected) => {
    expect(written(level)).toEqual(expected);
    const log = createLog(recorder(), level);
    expect(levels.filter((name) => log.enabled(name))).toEqual(expected);
  });

  it("an unknown level behaves as warn and reports itself as warn", () => {
    const log = createLog(recorder(), "loud" as LogLevel);
    expect(log.level).toBe("warn");
    expect(written("loud" as LogLevel)).toEqual(["warn", "error"]);
  });

  it.each(["constructor", "toString", "__proto__"])(
    "a level named like a property every object has (%s) behaves as warn too",
    (level) => {
      const log = createLog(recorder(), level as LogLevel);
      expect(log.level).toBe("warn");
      expect(written(level as LogLevel)).toEqual(["warn", "error"]);
      expect(levels.filter((name) => log.enabled(name))).toEqual(["warn", "error"]);
    },
  );

  it("without a logger nothing is enabled", () => {
    const log = createLog(undefined, "debug");
    expect(log.enabled("error")).toBe(false);
    expect(() => log.error("x")).not.toThrow();
  });

  it("lines carry the SDK's prefix, and fields only when there are some", () => {
    const logger = recorder();
    const log = createLog(logger, "debug");
    log.info("retrying", { attempt: 2 });
    log.debug("GET /v1/sites");
    expect(logger.calls).toEqual([
      ["info", "[partner-orders] retrying", { attempt: 2 }],
      ["debug", "[partner-orders] GET /v1/sites"],
    ]);
  });
});

describe("PARTNER_ORDERS_LOG", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is read without case or surrounding spaces", () => {
    const log = resolveLog(recorder(), undefined, "  DeBuG ");
    expect(log.level).toBe("debug");
  });

  it("a logLevel given wins over it", () => {
    expect(resolveLog(recorder(), "error", "debug").level).toBe("error");
  });

  it("unset, the level is warn and the logger the one given (none: no lines)", () => {
    const logger = recorder();
    const log = resolveLog(logger, undefined, undefined);
    expect(log.level).toBe("warn");
    expect(log.logger).toBe(logger);
    expect(resolveLog(undefined, undefined, undefined).logger).toBeUndefined();
  });

  it("set without a logger, lines go to console", () => {
    expect(resolveLog(undefined, undefined, "info").logger).toBe(console);
  });

  it("an unknown value is ignored with one warning that quotes at most 40 characters of it", () => {
    const logger = recorder();
    const value = `verbose${"x".repeat(50)}`;
    const log = resolveLog(logger, undefined, value);
    expect(log.level).toBe("warn");
    expect(logger.calls).toEqual([
      [
        "warn",
        `[partner-orders] PARTNER_ORDERS_LOG=${JSON.stringify(value.slice(0, 40))} is not one of debug, info, warn, error, off; ignored, "warn" applies.`,
      ],
    ]);
  });

  it("a value named like a property every object has is unknown: warned about, warn applies", () => {
    const logger = recorder();
    const log = resolveLog(logger, undefined, "constructor");
    expect(log.level).toBe("warn");
    expect(log.enabled("info")).toBe(false);
    expect(logger.calls).toHaveLength(1);
  });

  it("a known value writes no warning", () => {
    const logger = recorder();
    resolveLog(logger, undefined, "off");
    resolveLog(logger, undefined, "warn");
    expect(logger.calls).toEqual([]);
  });
});
