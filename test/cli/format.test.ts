import { describe, expect, it } from "vitest";
import { formatDuration, formatStart, formatStatus } from "../../src/cli/format";
import type { MirrorStatus } from "../../src/sync/types";
import { noWebhooks } from "../support/fixtures";

/** `partner-orders status` prints what `mirror.status()` says; this is its text form. */

const now = Date.parse("2024-05-01T10:15:00.000Z");

const holder = {
  holder: "web-2/311/9c1e",
  since: "2024-05-01T10:14:00.000Z",
  expiresAt: "2024-05-01T10:15:40.000Z",
  self: false,
};

const busy: MirrorStatus = {
  lastSweep: { at: "2024-05-01T10:12:00.000Z", ok: false, code: "service_unavailable" },
  sweepHolder: holder,
  openOrders: 1_204,
  ...noWebhooks,
  dueNow: 37,
  oldestDueLagMs: 125_000,
  invalidOrders: [
    { orderNumber: 100_123, field: "totals.order", reason: 'not a decimal: "12,5"', at: "x" },
    { orderNumber: null, field: "orderNumber", reason: "missing", at: "x" },
  ],
  lastError: {
    at: "2024-05-01T10:12:00.000Z",
    code: "service_unavailable",
    message: "GET /v1/orders failed with 503 service_unavailable",
  },
  consumers: [
    { name: "billing", position: 5_120, lagChanges: 12, lagMs: 185_000 },
    { name: "mailer-eu", position: 5_132, lagChanges: 0, lagMs: 0 },
  ],
  schemaVersion: 2,
  account: { partnerId: "ptn_acme", baseUrl: "https://api.example.com/" },
};

describe("status in text", () => {
  it("webhook health in words: healthy with its last webhook, degraded by a change found without one, or by silence", () => {
    const health = busy.webhookHealth;
    const line = (status: MirrorStatus) =>
      formatStatus(status, now)
        .split("\n")
        .filter((l) => /^(webhooks|poll interval):/.test(l));
    expect(
      line({
        ...busy,
        webhookHealth: { ...health, state: "healthy", lastEventAt: "2024-05-01T10:14:00.000Z" },
        pollIntervalMs: 3_600_000,
      }),
    ).toEqual([
      "webhooks:       healthy, the last at 2024-05-01T10:14:00.000Z (1 min ago)",
      "poll interval:  1 h at most (adaptive policy)",
    ]);
    expect(
      line({
        ...busy,
        webhookHealth: {
          ...health,
          state: "degraded",
          reason: "unannounced",
          lastEventAt: "2024-05-01T10:14:00.000Z",
          lastUnannounced: {
            at: "2024-05-01T10:15:00.000Z",
            orderNumber: 7,
            type: "shipment.shipped",
          },
        },
        pollPolicy: "fixed",
      })[0],
    ).toBe(
      "webhooks:       degraded: a shipment.shipped on order 7 found without its webhook at 2024-05-01T10:15:00.000Z, the last at 2024-05-01T10:14:00.000Z (1 min ago)",
    );
    expect(
      line({
        ...busy,
        webhookHealth: {
          ...health,
          state: "degraded",
          reason: "silence",
          lastEventAt: "2024-05-01T10:14:00.000Z",
        },
      })[0],
    ).toBe(
      "webhooks:       degraded: silent for longer than their rate makes likely, the last at 2024-05-01T10:14:00.000Z (1 min ago)",
    );
  });

  it("a compact block: sweep, holder, open and due orders, invalid orders, last error, consumers", () => {
    expect(formatStatus(busy, now)).toBe(
      [
        "store:          schema 2, partner ptn_acme at https://api.example.com/",
        "last sweep:     2024-05-01T10:12:00.000Z (3 min ago), failed: service_unavailable",
        "sweep holder:   web-2/311/9c1e since 2024-05-01T10:14:00.000Z, lease until 2024-05-01T10:15:40.000Z",
        "open orders:    1204",
        "due now:        37, the oldest 2 min 5 s late",
        "webhooks:       unknown, none received yet",
        "poll interval:  5 min at most (adaptive policy)",
        "invalid orders: 2",
        '                100123 totals.order: not a decimal: "12,5"',
        "                ? orderNumber: missing",
        "last error:     2024-05-01T10:12:00.000Z (3 min ago) service_unavailable: GET /v1/orders failed with 503 service_unavailable",
        "consumers:      billing    at 5120, 12 changes behind (3 min 5 s)",
        "                mailer-eu  at 5132, caught up",
      ].join("\n"),
    );
  });

  it("a store never synced: nothing yet, nothing due, no consumers", () => {
    const fresh: MirrorStatus = {
      lastSweep: null,
      sweepHolder: null,
      openOrders: 0,
      ...noWebhooks,
      dueNow: 0,
      oldestDueLagMs: null,
      invalidOrders: [],
      lastError: null,
      consumers: [],
      schemaVersion: 2,
      account: null,
    };
    expect(formatStatus(fresh, now)).toBe(
      [
        "store:          schema 2, no account yet (never synced)",
        "last sweep:     none yet",
        "sweep holder:   none",
        "open orders:    0",
        "due now:        0",
        "webhooks:       unknown, none received yet",
        "poll interval:  5 min at most (adaptive policy)",
        "invalid orders: 0",
        "last error:     none",
        "consumers:      none",
      ].join("\n"),
    );
  });

  it("a sweep held by this very process, and a good last sweep", () => {
    const text = formatStatus(
      {
        ...busy,
        lastSweep: { at: "2024-05-01T10:00:00.000Z", ok: true },
        sweepHolder: { ...holder, self: true, since: null },
      },
      now,
    );
    expect(text).toContain("last sweep:     2024-05-01T10:00:00.000Z (15 min ago), ok\n");
    expect(text).toContain(
      "sweep holder:   web-2/311/9c1e (this process), lease until 2024-05-01T10:15:40.000Z\n",
    );
  });
});

describe("durations and the start line", () => {
  it("reads durations the way people say them", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(1_500)).toBe("1.5 s");
    expect(formatDuration(42_000)).toBe("42 s");
    expect(formatDuration(60_000)).toBe("1 min");
    expect(formatDuration(185_000)).toBe("3 min 5 s");
    expect(formatDuration(2 * 3_600_000 + 600_000)).toBe("2 h 10 min");
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000)).toBe("3 d 4 h");
  });

  it("says which sites go into which store, and how often", () => {
    expect(
      formatStart({
        store: "orders.db (SQLite)",
        siteIds: [101],
        sweepIntervalMs: 900_000,
        openOrderIntervalMs: 300_000,
      }),
    ).toBe(
      "mirroring site 101 into orders.db (SQLite): a sweep every 15 min, open orders every 5 min; Ctrl-C stops after the current write",
    );
    expect(
      formatStart({
        store: "x",
        siteIds: undefined,
        sweepIntervalMs: 60_000,
        openOrderIntervalMs: 30_000,
      }),
    ).toMatch(/^mirroring every granted site into x: a sweep every 1 min, open orders every 30 s;/);
  });
});
