import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PartnerOrders } from "../../../src/client";
import { createLog, type Logger, type LogLevel, resolveLog } from "../../../src/core/logger";
import { harness } from "../../support/client";
import { baseUrl, json } from "../../support/fake-server";
import { recorder as callRecorder } from "../../support/logger";

const saved = process.env.PARTNER_ORDERS_LOG;

beforeEach(() => {
  delete process.env.PARTNER_ORDERS_LOG;
});

afterEach(() => {
  if (saved === undefined) delete process.env.PARTNER_ORDERS_LOG;
  else process.env.PARTNER_ORDERS_LOG = saved;
  vi.restoreAllMocks();
});

/** A logger that records `level message` lines. */
function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => {
    lines.push(`${level} ${message}`);
  };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** One call that logs a debug line (the attempt) and an info line (a retry). */
async function callWithRetry(options: { logger?: Logger; logLevel?: LogLevel } = {}) {
  const { client, server } = harness(options);
  server.on(
    "GET /v1/sites",
    () => new Response(null, { status: 503 }),
    () => json({ sites: [] }),
  );
  await client.sites.list();
}

describe("PARTNER_ORDERS_LOG", () => {
  it("sets the level when logLevel is not given", async () => {
    process.env.PARTNER_ORDERS_LOG = "debug";
    const logger = recorder();
    await callWithRetry({ logger });
    expect(logger.lines).toContain("debug [partner-orders] GET /v1/sites");
    expect(logger.lines.some((l) => l.startsWith("info [partner-orders] retrying"))).toBe(true);
  });

  it("info shows retries and hides each attempt", async () => {
    process.env.PARTNER_ORDERS_LOG = "info";
    const logger = recorder();
    await callWithRetry({ logger });
    expect(logger.lines.some((l) => l.startsWith("info "))).toBe(true);
    expect(logger.lines.some((l) => l.startsWith("debug "))).toBe(false);
  });

  it("off writes nothing", async () => {
    process.env.PARTNER_ORDERS_LOG = "off";
    const logger = recorder();
    await callWithRetry({ logger });
    expect(logger.lines).toEqual([]);
  });

  it("is read whatever its case or surrounding spaces", async () => {
    process.env.PARTNER_ORDERS_LOG = " DEBUG ";
    const logger = recorder();
    await callWithRetry({ logger });
    expect(logger.lines).toContain("debug [partner-orders] GET /v1/sites");
  });

  it("gives way to the logLevel option", async () => {
    process.env.PARTNER_ORDERS_LOG = "debug";
    const logger = recorder();
    await callWithRetry({ logger, logLevel: "warn" });
    expect(logger.lines).toEqual([]);
  });

  it("sends lines to console when no logger is given", async () => {
    process.env.PARTNER_ORDERS_LOG = "debug";
    const debug = vi.spyOn(console, "debug").mockImplementation(() => {});
    vi.spyOn(console, "info").mockImplementation(() => {});
    await callWithRetry();
    expect(debug).toHaveBeenCalledWith(
      "[partner-orders] GET /v1/sites",
      expect.objectContaining({ status: 503 }),
    );
  });

  it("leaves the default alone when unset: no logger, nothing written anywhere", async () => {
    const spies = (["debug", "info", "warn", "error"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation(() => {}),
    );
    await callWithRetry();
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
  });

  it("ignores an unknown value with a warning, and keeps the default level", async () => {
    process.env.PARTNER_ORDERS_LOG = "verbose";
    const logger = recorder();
    await callWithRetry({ logger });
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(
      /^warn \[partner-orders\] PARTNER_ORDERS_LOG="verbose" is not one of debug, info, warn, error, off; ignored/,
    );
  });

  it("an unknown value does not stop the client from working", async () => {
    process.env.PARTNER_ORDERS_LOG = "toString";
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    await callWithRetry();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("is read safely on a runtime without process", () => {
    const realProcess = globalThis.process;
    let client: PartnerOrders | undefined;
    try {
      // Edge runtimes have no `process`; the client is built synchronously while it is gone.
      (globalThis as { process?: unknown }).process = undefined;
      client = new PartnerOrders({ baseUrl, accessToken: "t", fetch: async () => json({}) });
    } finally {
      globalThis.process = realProcess;
    }
    expect(client).toBeInstanceOf(PartnerOrders);
  });
});

const levels = ["debug", "info", "warn", "error"] as const;

function written(level: LogLevel): string[] {
  const logger = callRecorder();
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
    const log = createLog(callRecorder(), level);
    expect(levels.filter((name) => log.enabled(name))).toEqual(expected);
  });

  it("an unknown level behaves as warn and reports itself as warn", () => {
    const log = createLog(callRecorder(), "loud" as LogLevel);
    expect(log.level).toBe("warn");
    expect(written("loud" as LogLevel)).toEqual(["warn", "error"]);
  });

  it.each(["constructor", "toString", "__proto__"])(
    "a level named like a property every object has (%s) behaves as warn too",
    (level) => {
      const log = createLog(callRecorder(), level as LogLevel);
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
    const logger = callRecorder();
    const log = createLog(logger, "debug");
    log.info("retrying", { attempt: 2 });
    log.debug("GET /v1/sites");
    expect(logger.calls).toEqual([
      ["info", "[partner-orders] retrying", { attempt: 2 }],
      ["debug", "[partner-orders] GET /v1/sites"],
    ]);
  });
});

describe("PARTNER_ORDERS_LOG as resolveLog reads it", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is read without case or surrounding spaces", () => {
    const log = resolveLog(callRecorder(), undefined, "  DeBuG ");
    expect(log.level).toBe("debug");
  });

  it("a logLevel given wins over it", () => {
    expect(resolveLog(callRecorder(), "error", "debug").level).toBe("error");
  });

  it("unset, the level is warn and the logger the one given (none: no lines)", () => {
    const logger = callRecorder();
    const log = resolveLog(logger, undefined, undefined);
    expect(log.level).toBe("warn");
    expect(log.logger).toBe(logger);
    expect(resolveLog(undefined, undefined, undefined).logger).toBeUndefined();
  });

  it("set without a logger, lines go to console", () => {
    expect(resolveLog(undefined, undefined, "info").logger).toBe(console);
  });

  it("an unknown value is ignored with one warning that quotes at most 40 characters of it", () => {
    const logger = callRecorder();
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
    const logger = callRecorder();
    const log = resolveLog(logger, undefined, "constructor");
    expect(log.level).toBe("warn");
    expect(log.enabled("info")).toBe(false);
    expect(logger.calls).toHaveLength(1);
  });

  it("a known value writes no warning", () => {
    const logger = callRecorder();
    resolveLog(logger, undefined, "off");
    resolveLog(logger, undefined, "warn");
    expect(logger.calls).toEqual([]);
  });
});
