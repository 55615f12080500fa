import { afterEach, describe, expect, it } from "vitest";
import { Decimal } from "../../../src/core/money";
import { SweepHeldError } from "../../../src/sync/errors";
import { newHolder, retireHolder } from "../../../src/sync/holder";
import type { SyncProgress } from "../../../src/sync/types";
import { json, problem } from "../../support/fake-server";
import { type MirrorHarness, mirrorHarness, PARTNER, settle, storedRow } from "./mirror-support";

/** sync(), refresh(), get(), close() and the store's opening, on a scripted service. */
const made: MirrorHarness[] = [];
const holders: string[] = [];
function harness(...args: Parameters<typeof mirrorHarness>): MirrorHarness {
  const h = mirrorHarness(...args);
  made.push(h);
  return h;
}
afterEach(async () => {
  for (const h of made.splice(0)) await h.mirror.close();
  for (const holder of holders.splice(0)) retireHolder(holder);
});
const iso = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;

describe("sync", () => {
  it("claims the store for the account, sweeps, reads new orders and reports the pass", async () => {
    const h = harness();
    h.service.add(1).add(2);
    const progress: SyncProgress[] = [];
    const report = await h.mirror.sync({ onProgress: (p) => progress.push(p) });
    expect(h.service.calls).toEqual([
      "GET /v1/me",
      "GET /v1/orders?limit=200",
      "GET /v1/orders/1/items?limit=200",
      "GET /v1/orders/1/shipments?limit=50",
      "GET /v1/orders/2/items?limit=200",
      "GET /v1/orders/2/shipments?limit=50",
    ]);
    expect(report).toEqual({
      ordersSeen: 2,
      ordersAdded: 2,
      ordersChanged: 0,
      itemsReread: 2,
      shipmentsReread: 2,
      changesWritten: 2,
      requests: 5,
      invalidOrders: [],
      durationMs: 0,
    });
    expect(progress[0]).toEqual({ pages: 1, orders: 2, requests: 5, ratePerSecond: 0 });
    const status = await h.mirror.status();
    expect(status.account).toEqual({ partnerId: PARTNER, baseUrl: "https://api.test" });
    expect(status.lastSweep).toEqual({ at: iso(h.clock.now()), ok: true });
    expect(status.openOrders).toBe(2);
    expect(status.lastError).toBeNull();
  });

  it("a pass an interval later polls the open orders that are due, and reports only its own work", async () => {
    const h = harness();
    h.service.add(1).add(2);
    await h.mirror.sync();
    h.clock.advance(5 * MINUTE);
    const before = h.service.calls.length;
    const report = await h.mirror.sync();
    expect(h.service.calls.slice(before)).toEqual([
      "GET /v1/orders?limit=200",
      "GET /v1/orders/1/items?limit=200",
      "GET /v1/orders/1/shipments?limit=50",
      "GET /v1/orders/2/items?limit=200",
      "GET /v1/orders/2/shipments?limit=50",
    ]);
    expect(report).toMatchObject({
      ordersSeen: 2,
      ordersAdded: 0,
      itemsReread: 2,
      shipmentsReread: 2,
      changesWritten: 0,
      requests: 5,
    });
  });

  it("with the sweep held by another process: reads its due orders, then throws SweepHeldError with its report", async () => {
    const h = harness();
    h.service.add(1);
    await h.mirror.sync();
    h.clock.advance(5 * MINUTE);
    const other = newHolder();
    holders.push(other);
    const since = h.clock.now();
    await h.store.lease("sweep", other, since, since + MINUTE);
    const before = h.service.calls.length;
    const error = (await h.mirror.sync().catch((e: unknown) => e)) as SweepHeldError;
    expect(error).toBeInstanceOf(SweepHeldError);
    expect(error.code).toBe("sweep_held");
    expect(error.holder).toBe(other);
    expect(error.since).toBe(iso(since));
    expect(error.report).toMatchObject({ ordersSeen: 0, itemsReread: 1, requests: 2 });
    expect(h.service.calls.slice(before)).toEqual([
      "GET /v1/orders/1/items?limit=200",
      "GET /v1/orders/1/shipments?limit=50",
    ]);
    expect((await h.mirror.status()).lastError).toEqual({
      at: iso(h.clock.now()),
      code: "sweep_held",
      message: error.message,
    });
  });

  it("a failed pass is thrown and recorded as the last error, with its code and message", async () => {
    const h = harness();
    h.service.server.on("GET /v1/orders", () => problem(503, "service_unavailable"));
    const error = (await h.mirror.sync().catch((e: unknown) => e)) as Error & { code: string };
    expect(error.code).toBe("service_unavailable");
    expect((await h.mirror.status()).lastError).toEqual({
      at: iso(h.clock.now()),
      code: "service_unavailable",
      message: error.message,
    });
  });

  it("the last error keeps 500 characters of a long message", async () => {
    const h = harness();
    h.service.add(1);
    h.overrides.claimDue = async () => {
      throw new Error("x".repeat(600));
    };
    await expect(h.mirror.sync()).rejects.toThrow("x".repeat(600));
    expect((await h.mirror.status()).lastError).toEqual({
      at: iso(h.clock.now()),
      code: "Error",
      message: "x".repeat(500),
    });
  });

  it("a start that failed (GET /v1/me away) is tried again by the next call", async () => {
    const h = harness();
    h.service.add(1);
    h.service.server.on(
      "GET /v1/me",
      () => problem(503, "service_unavailable"),
      () => json({ partnerId: PARTNER, grantedSiteIds: [101], scopes: [] }),
    );
    await expect(h.mirror.sync()).rejects.toMatchObject({ code: "service_unavailable" });
    await expect(h.mirror.sync()).resolves.toMatchObject({ ordersAdded: 1 });
    expect(h.service.count("GET /v1/me")).toBe(2);
    // Started once: a third pass does not ask again.
    await h.mirror.sync();
    expect(h.service.count("GET /v1/me")).toBe(2);
  });

  it("a store that failed to open is opened again by the next call", async () => {
    const h = harness();
    h.overrides.open = async () => {
      throw new Error("disk not mounted");
    };
    await expect(h.mirror.status()).rejects.toThrow("disk not mounted");
    delete h.overrides.open;
    await expect(h.mirror.status()).resolves.toMatchObject({ openOrders: 0 });
  });

  it("a store of another account is refused", async () => {
    const h = harness();
    await h.store.open();
    await h.store.claimAccount({ partnerId: "someone-else", baseUrl: "https://api.test" });
    await expect(h.mirror.sync()).rejects.toMatchObject({ code: "store_account_mismatch" });
    expect(h.service.count("GET /v1/orders")).toBe(0);
  });
});

describe("invalid orders across processes", () => {
  it("an order another process kept out is cleared once this one reads it cleanly", async () => {
    const h = harness();
    h.service.add(1);
    await h.store.open();
    const kept = [{ orderNumber: 1, field: "totals.order", reason: "not a decimal", at: iso(0) }];
    await h.store.setCheckpoint("status:invalid-orders", JSON.stringify(kept));
    expect((await h.mirror.status()).invalidOrders).toEqual(kept);
    await h.mirror.refresh(1);
    expect((await h.mirror.status()).invalidOrders).toEqual([]);
  });

  it("a list row whose money does not decode is kept out, named and warned of; the others are stored", async () => {
    const h = harness();
    h.service.add(1);
    h.service.pages = [
      [
        { orderNumber: 1, siteId: 101, status: "In Production", closed: false },
        { orderNumber: 2, siteId: 101, totals: { order: "lots" } },
      ],
    ];
    const report = await h.mirror.sync();
    const invalid = {
      orderNumber: 2,
      field: "totals.order",
      reason: expect.any(String),
      at: iso(h.clock.now()),
    };
    expect(report.invalidOrders).toEqual([invalid]);
    expect((await h.mirror.status()).invalidOrders).toEqual([invalid]);
    expect(h.warnings).toEqual([expect.stringMatching(/^order 2 kept out: totals\.order /)]);
    expect(await h.mirror.get(1)).toMatchObject({ orderNumber: 1 });
    expect(await h.mirror.get(2)).toBeUndefined();
  });
});

describe("the list", () => {
  it("is read per site asked for, 200 at a time, following each site's cursors", async () => {
    const h = harness({ siteIds: [101, 102] });
    h.service.pages = [[], []];
    await h.mirror.sync();
    expect(h.service.calls.filter((c) => c.startsWith("GET /v1/orders?"))).toEqual([
      "GET /v1/orders?siteId=101&limit=200",
      "GET /v1/orders?siteId=101&limit=200&cursor=c1",
      "GET /v1/orders?siteId=102&limit=200",
      "GET /v1/orders?siteId=102&limit=200&cursor=c1",
    ]);
  });

  it("an empty siteIds reads every site in one list", async () => {
    const h = harness({ siteIds: [] });
    await h.mirror.sync();
    expect(h.service.calls.filter((c) => c.startsWith("GET /v1/orders?"))).toEqual([
      "GET /v1/orders?limit=200",
    ]);
  });
});

describe("refresh and get", () => {
  it("refresh reads a stored order whole again and records its changes as refresh", async () => {
    const h = harness();
    h.service.add(1);
    await h.mirror.sync();
    h.service.add(1, { status: "Shipped" });
    const before = h.service.calls.length;
    const changes = await h.mirror.refresh(1);
    expect(h.service.calls.slice(before)).toEqual([
      "GET /v1/orders/1",
      "GET /v1/orders/1/items?limit=200",
      "GET /v1/orders/1/shipments?limit=50",
    ]);
    expect(changes).toEqual([
      expect.objectContaining({ type: "order.changed", orderNumber: 1, cause: "refresh" }),
    ]);
  });

  it("get returns the order with its items and shipments, money as Decimal", async () => {
    const h = harness();
    h.service.add(
      1,
      { totals: { item: "3.50", shipping: "0", tax: null, order: null } },
      [{ orderNumber: 1, siteId: 101, itemNumber: 7, lineTotal: "3.50", lineListTotal: "4" }],
      [{ orderNumber: 1, siteId: 101, shipmentNumber: 1, trackingNumbers: [] }],
    );
    await h.mirror.refresh(1);
    const got = await h.mirror.get(1);
    expect(got?.unresolvable).toBe(false);
    expect(got?.items.map((i) => i.itemNumber)).toEqual([7]);
    expect(got?.items[0]?.lineTotal).toBeInstanceOf(Decimal);
    expect(String(got?.items[0]?.lineTotal)).toBe("3.5");
    expect(got?.shipments.map((s) => s.shipmentNumber)).toEqual([1]);
    expect(String(got?.totals?.item)).toBe("3.5");
  });

  it("get gives empty lists for an order whose items and shipments were never read", async () => {
    const h = harness();
    await h.store.open();
    await h.store.commit(5, () => ({
      next: storedRow(5, null, { items: null, shipments: null, unresolvable: true }),
      changes: [],
    }));
    expect(await h.mirror.get(5)).toMatchObject({
      orderNumber: 5,
      items: [],
      shipments: [],
      unresolvable: true,
    });
  });
});

describe("status while this process sweeps", () => {
  it("names this mirror as the holder, since when and until when", async () => {
    const h = harness({ sweepLeaseMs: 90_000 });
    let seen: unknown;
    h.service.server.on("GET /v1/orders", async () => {
      seen = (await h.mirror.status()).sweepHolder;
      return json({ orders: [], nextCursor: null });
    });
    await h.mirror.sync();
    const now = h.clock.now();
    expect(seen).toEqual({
      holder: expect.stringMatching(/\/\d+\//),
      since: iso(now),
      expiresAt: iso(now + 90_000),
      self: true,
    });
    expect((await h.mirror.status()).sweepHolder).toBeNull();
  });

  it("a holder whose start is unknown has no since", async () => {
    const h = harness();
    h.overrides.leaseHolder = async () => ({
      holder: "elsewhere/1/x",
      since: Number.NaN,
      expiresAt: 0,
    });
    expect((await h.mirror.status()).sweepHolder).toEqual({
      holder: "elsewhere/1/x",
      since: null,
      expiresAt: iso(0),
      self: false,
    });
  });
});

describe("changes", () => {
  it("a loop waiting for news is woken by a change this process writes", async () => {
    const h = harness();
    // Sleeps never end here: only the write can wake the loop.
    h.clock.park = true;
    h.service.add(1);
    const seen: string[] = [];
    const watching = (async () => {
      for await (const change of h.mirror.changes()) seen.push(`${change.type} ${change.cause}`);
    })();
    await settle();
    await h.mirror.refresh(1);
    await settle();
    expect(seen).toEqual(["order.added refresh"]);
    await h.mirror.close();
    await watching;
  });
});

describe("close", () => {
  it("ends changes() loops, waits for a read under way, and refuses more work", async () => {
    const h = harness();
    h.clock.park = true;
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.service.add(1);
    h.service.server.on("GET /v1/orders/1/items", async () => {
      await gate;
      return json({ items: [], nextCursor: null });
    });
    const events: string[] = [];
    const watching = (async () => {
      for await (const change of h.mirror.changes()) events.push(change.type);
      events.push("changes ended");
    })();
    await settle();
    const refreshed = h.mirror.refresh(1).then(() => events.push("refreshed"));
    await settle();
    const closed = h.mirror.close().then(() => events.push("closed"));
    await settle();
    // The loops end at once; the store stays open until the read is recorded.
    expect(events).toEqual(["changes ended"]);
    release();
    await Promise.all([refreshed, closed, watching]);
    expect(events).toEqual(["changes ended", "refreshed", "closed"]);
    await expect(h.mirror.sync()).rejects.toMatchObject({ code: "mirror_closed" });
  });
});
