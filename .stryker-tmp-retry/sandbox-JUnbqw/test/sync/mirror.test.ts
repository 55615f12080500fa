// @ts-nocheck
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Decimal } from "partner-orders";
import type { Change } from "partner-orders/sync";
import { FIXTURES } from "partner-orders/testing";
import { parseWebhook } from "partner-orders/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { listed, setup, truth } from "./support.js";

const FIVE_MIN = 5 * 60_000;
const of = (changes: Change[], type: string) => changes.filter((c) => c.type === type);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function tracked(s: ReturnType<typeof setup>) {
  cleanups.push(
    () => s.mirror.close(),
    () => s.sandbox.close(),
  );
  return s;
}

describe("OrderMirror on SQLite against the sandbox", () => {
  it("a first sync mirrors every listed order, its items and shipments, exactly as served", async () => {
    const s = tracked(setup());
    const report = await s.mirror.sync();
    const numbers = await listed(s.client);
    expect(report.ordersSeen).toBe(numbers.length);
    expect(report.ordersAdded).toBe(numbers.length);
    for (const n of [FIXTURES.orders.tracking, numbers[0], numbers.at(-1)] as number[]) {
      const mirrored = await s.mirror.get(n);
      expect(mirrored).toEqual({ ...(await truth(s.client, n)), unresolvable: false });
    }
    // Money is Decimal, exact; null stays null.
    const withNull = (await Promise.all(numbers.map((n) => s.mirror.get(n)))).find(
      (o) => o?.totals.tax === null,
    );
    expect(withNull).toBeDefined();
    const priced = (await s.mirror.get(numbers[0] as number))?.totals.order;
    expect(priced === null || priced instanceof Decimal).toBe(true);
  });

  it("a second sync with nothing changed reads only the list and records nothing", async () => {
    const s = tracked(setup());
    await s.mirror.sync();
    const again = await s.mirror.sync();
    expect(again.changesWritten).toBe(0);
    expect(again.itemsReread).toBe(0);
    expect(again.shipmentsReread).toBe(0);
  });

  it("finds a shipment shipped without a webhook at the next open-order poll, with its tracking", async () => {
    const s = tracked(setup());
    const n = s.sandbox.admin.placeOrder({ lines: 2 });
    s.sandbox.admin.shipShipment(n, 1, { packages: ["1ZFIRST0001"] });
    await s.mirror.sync();
    // The order's shippedOn is already set, so a second shipment moves nothing on the list
    // (updatedOn does not move either: API document, Order.updatedOn).
    s.sandbox.admin.shipShipment(n, 2, { packages: ["1ZKNOWN0001"] });
    // Before the open-order interval nothing is due: the shipment is not seen yet.
    const early = await s.mirror.sync();
    expect(early.shipmentsReread).toBe(0);
    s.sandbox.clock.advance(FIVE_MIN);
    const report = await s.mirror.sync();
    expect(report.shipmentsReread).toBeGreaterThan(0);
    const shipped = (await s.mirror.get(n))?.shipments[1];
    expect(shipped?.trackingNumbers).toEqual(["1ZKNOWN0001"]);
  });

  it("reports shipped-without-tracking as a tracking fault, and a hidden order as unresolvable, never deleted", async () => {
    const s = tracked(setup());
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    await s.mirror.sync();
    const shipment = s.sandbox.admin.addShipment(n);
    s.sandbox.admin.updateShipment(n, shipment, { shippedOn: "2030-01-02T00:00:00.000Z" });
    const changes = await s.mirror.refresh(n);
    expect(of(changes, "shipment.tracking_fault")).toHaveLength(1);
    expect(of(changes, "shipment.shipped")[0]).toMatchObject({ trackingNumbers: [] });

    s.sandbox.admin.hideOrder(n);
    const gone = await s.mirror.refresh(n);
    expect(gone.map((c) => c.type)).toEqual(["order.unresolvable"]);
    const kept = await s.mirror.get(n);
    expect(kept?.unresolvable).toBe(true);
    expect(kept?.status).toBe("Submitted");
    expect(kept?.items).toHaveLength(1);
    // Reported once, not at every read.
    expect(await s.mirror.refresh(n)).toEqual([]);
    // And a sweep finds hidden orders too, as missing from the list.
    const m = s.sandbox.admin.placeOrder();
    await s.mirror.sync();
    s.sandbox.admin.hideOrder(m);
    const report = await s.mirror.sync();
    expect(report.changesWritten).toBe(1);
    expect((await s.mirror.get(m))?.unresolvable).toBe(true);
  });

  it("a webhook re-reads exactly what it names; duplicates and bursts coalesce into one read", async () => {
    const s = tracked(setup());
    const n = s.sandbox.admin.placeOrder({ lines: 3 });
    await s.mirror.sync();
    s.sandbox.admin.shipShipment(n, 1, { packages: ["1ZA", "1ZB"] });
    const event = parseWebhook(
      JSON.stringify({
        eventId: "evt-1",
        type: "shipment.shipped",
        occurredAt: "2030-01-01T00:00:00Z",
        siteId: 101,
        orderNumber: n,
        shipmentNumber: 1,
      }),
    );
    const abort = new AbortController();
    const live = s.mirror.changes({ signal: abort.signal });
    const next = live.next();
    s.sandbox.resetCounters();
    await Promise.all(Array.from({ length: 5 }, () => s.mirror.handleEvent(event)));
    expect(s.sandbox.counters.requests["GET /v1/orders/{orderNumber}/shipments"]).toBe(1);
    expect(s.sandbox.counters.requests["GET /v1/orders/{orderNumber}"]).toBeUndefined();
    expect(s.sandbox.counters.requests["GET /v1/orders/{orderNumber}/items"]).toBeUndefined();
    // A new shipment, shipped: added, then shipped, each once.
    expect((await next).value).toMatchObject({ type: "shipment.added", cause: "webhook" });
    const shipped = (await live.next()).value as Change;
    expect(shipped).toMatchObject({
      type: "shipment.shipped",
      cause: "webhook",
      orderNumber: n,
      trackingNumbers: ["1ZA", "1ZB"],
    });
    const after = live.next();
    s.sandbox.resetCounters();
    // Test events and unknown types do nothing.
    await s.mirror.handleEvent({ ...event, eventId: "test_1", orderNumber: 0, siteId: 0 });
    await s.mirror.handleEvent({ ...event, type: "order.renamed" } as never);
    expect(s.sandbox.counters.requests).toEqual({});
    // Exactly one change came from the five deliveries: the stream has nothing more.
    abort.abort();
    expect((await after).done).toBe(true);
  });

  it("a consumer gets every change once in id order, and a change whose body did not finish again", async () => {
    const s = tracked(setup());
    const n = s.sandbox.admin.placeOrder({ lines: 2 });
    await s.mirror.sync();
    const [item] = (await s.mirror.get(n))?.items ?? [];
    s.sandbox.admin.cancelLine(n, item?.itemNumber as number);
    await s.mirror.refresh(n);

    const abort = new AbortController();
    const seen: Change[] = [];
    for await (const change of s.mirror.changes({ consumer: "billing", signal: abort.signal })) {
      seen.push(change);
      // A crash in the body: not acknowledged. (Lines the seed placed cancelled come first.)
      if (change.type === "item.cancelled" && change.orderNumber === n) break;
    }
    const ids = seen.map((c) => c.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const cancelled = seen.at(-1) as Change;
    expect(cancelled).toMatchObject({ type: "item.cancelled", orderNumber: n });

    // Next time it starts with the change it broke out of.
    const next = s.mirror.changes({ consumer: "billing", signal: abort.signal });
    expect((await next.next()).value).toEqual(cancelled);
    await next.return(undefined);

    // Without a consumer: only changes from now on.
    const live = s.mirror.changes({ signal: abort.signal });
    const first = live.next();
    const m = s.sandbox.admin.placeOrder();
    await s.mirror.refresh(m);
    expect(((await first).value as Change).orderNumber).toBe(m);
    abort.abort();
  });

  it("keeps its state and its change ids in a SQLite file across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "partner-orders-mirror-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const s = tracked(setup(join(dir, "orders.db")));
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    const first = await s.mirror.refresh(n);
    await s.mirror.close();

    const again = s.restart();
    cleanups.push(() => again.close());
    expect((await again.get(n))?.orderNumber).toBe(n);
    s.sandbox.admin.shipShipment(n, 1);
    const later = await again.refresh(n);
    expect(Math.min(...later.map((c) => c.id))).toBeGreaterThan(
      Math.max(...first.map((c) => c.id)),
    );
  });
});
