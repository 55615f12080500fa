import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PartnerOrders } from "../../../src/client";
import type { Logger, LogLevel } from "../../../src/core/logger";
import { harness } from "../../support/client";
import { baseUrl, json } from "../../support/fake-server";

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
