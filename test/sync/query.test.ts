import { Decimal, PartnerOrders } from "partner-orders";
import type { Change } from "partner-orders/sync";
import { afterEach, describe, expect, it } from "vitest";
import type { WebhookEvent } from "../../src/webhooks/events";
import { validOrder } from "../sandbox/helpers";
import { quiet } from "../support/logger.js";
import { drive, settle, setup, truth } from "./support";

/**
 * The mirror as a data product, against the sandbox: orders() over the typed columns, resync()
 * finding what sweeps and polls cannot, and the partnerOrderId learnt from events and submissions.
 */
const made: ReturnType<typeof setup>[] = [];
afterEach(async () => {
  for (const s of made.splice(0)) {
    await s.mirror.close();
    await s.sandbox.close();
  }
});
function make(...args: Parameters<typeof setup>) {
  const s = setup(...args);
  made.push(s);
  return s;
}

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) out.push(x);
  return out;
}

describe("resync()", () => {
  it("finds a shipment added to a closed order without a webhook, which sweeps and polls never see", async () => {
    const s = make(":memory:", { logger: quiet });
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    s.sandbox.admin.setOrderStatus(n, "Delivered", { closed: true });
    await s.mirror.sync();
    // Read once more after it closed, then never by a sweep or a poll.
    s.sandbox.clock.advance(10 * 60_000);
    await s.mirror.sync();
    expect((await s.mirror.get(n))?.closed).toBe(true);
    s.sandbox.admin.addShipment(n); // no event, updatedOn unchanged
    s.sandbox.clock.advance(60 * 60_000);
    const swept = await s.mirror.sync();
    expect(swept.changesWritten).toBe(0);
    expect((await s.mirror.get(n))?.shipments).toEqual([]);

    // The changes from now on: the resync's.
    const stream = s.mirror.changes()[Symbol.asyncIterator]();
    const next = stream.next();
    const progress: number[] = [];
    const report = await s.mirror.resync({ onProgress: (p) => progress.push(p.pages) });
    expect(report.changesWritten).toBe(1);
    expect(progress.length).toBeGreaterThan(0);
    const change = (await next).value as Change;
    await stream.return?.(undefined);
    expect(change).toMatchObject({ type: "shipment.added", orderNumber: n, cause: "resync" });
    const stored = await s.mirror.get(n);
    const service = await truth(s.client, n);
    expect(stored?.shipments).toEqual(service.shipments);
    // Every order was re-read whole: its items and shipments, closed ones included.
    const itemReads = s.sandbox.requests.filter((r) => /^\/v1\/orders\/\d+\/items$/.test(r.path));
    expect(itemReads.length).toBeGreaterThanOrEqual(report.ordersSeen);
    // A second resync finds nothing more.
    expect((await s.mirror.resync()).changesWritten).toBe(0);
  }, 60_000);

  it("refuses a site the mirror does not keep, and a malformed list, before reading anything", async () => {
    const s = make(":memory:", { logger: quiet, siteIds: [101] });
    const before = s.sandbox.requests.length;
    await expect(s.mirror.resync({ siteIds: [102] })).rejects.toMatchObject({
      code: "invalid_sites",
    });
    await expect(s.mirror.resync({ siteIds: [] })).rejects.toMatchObject({
      code: "invalid_sites",
    });
    await expect(
      s.mirror.resync({ siteIds: ["101"] as unknown as number[] }),
    ).rejects.toMatchObject({ code: "invalid_sites" });
    expect(s.sandbox.requests.length).toBe(before);
  });
});

describe("orders()", () => {
  it("yields stored orders as get() gives them, filtered on the typed columns, by order number", async () => {
    const s = make(":memory:", { logger: quiet });
    await s.mirror.sync();
    const everything = await all(s.mirror.orders());
    expect(everything.length).toBeGreaterThan(200); // more than one page of the keyset
    const numbers = everything.map((o) => o.orderNumber);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    const first = everything[0];
    expect(first).toEqual(await s.mirror.get(first?.orderNumber as number));

    const open = await all(s.mirror.orders({ closed: false }));
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((o) => o.closed === false)).toBe(true);
    expect(open.length).toBe(everything.filter((o) => o.closed === false).length);

    const site = everything[0]?.siteId as number;
    const status = everything[0]?.status as string;
    const matching = everything.filter((o) => o.siteId === site && o.status === status);
    expect(await all(s.mirror.orders({ siteId: site, status }))).toEqual(matching);
    expect(await all(s.mirror.orders({ siteId: site, status, limit: 2 }))).toEqual(
      matching.slice(0, 2),
    );

    const withId = everything.find((o) => o.items.some((i) => typeof i.externalId === "string"));
    const externalId = withId?.items.find((i) => i.externalId)?.externalId as string;
    const byExternal = await all(s.mirror.orders({ externalId }));
    expect(byExternal.map((o) => o.orderNumber)).toEqual(
      everything
        .filter((o) => o.items.some((i) => i.externalId === externalId))
        .map((o) => o.orderNumber),
    );
    expect(byExternal.length).toBeGreaterThan(0);

    const totals = everything.filter((o) => o.totals.order !== null);
    expect(totals[0]?.totals.order).toBeInstanceOf(Decimal);
  }, 60_000);
});

describe("partnerOrderId", () => {
  it("is written to an order already stored when the mirror's client resubmits it, without a read", async () => {
    const s = make(":memory:", { logger: quiet });
    const other = new PartnerOrders({
      baseUrl: s.sandbox.baseUrl,
      ...s.sandbox.credentials,
      fetch: s.sandbox.fetch,
      clock: s.sandbox.clock,
    });
    const request = validOrder("po-elsewhere");
    const first = await drive(s.sandbox, other.submitOrderAndWait(request));
    const n = first.order?.orderNumber as number;
    await s.mirror.sync();
    expect((await s.mirror.get(n))?.partnerOrderId).toBeUndefined();
    const before = s.sandbox.requests.length;
    // The same request again, through the mirror's client: the service answers the original.
    const again = await s.client.orders.submit(request);
    expect(again.created).toBe(false);
    await settle();
    expect((await s.mirror.get(n))?.partnerOrderId).toBe("po-elsewhere");
    expect(s.sandbox.requests.slice(before).map((r) => r.path)).toEqual(["/v1/orders"]);
  });

  it("is learnt from a submission through the mirror's client, and from a webhook event", async () => {
    const s = make(":memory:", { logger: quiet });
    await s.mirror.sync();
    const request = validOrder("po-mirror-1");
    const submission = await drive(s.sandbox, s.client.submitOrderAndWait(request));
    expect(submission.status).toBe("completed");
    const n = submission.order?.orderNumber as number;
    await s.mirror.sync();
    expect((await s.mirror.get(n))?.partnerOrderId).toBe("po-mirror-1");
    const found = await all(s.mirror.orders({ partnerOrderId: "po-mirror-1" }));
    expect(found.map((o) => o.orderNumber)).toEqual([n]);

    // An order the mirror already stores learns it from an event.
    const m = s.sandbox.admin.placeOrder({ lines: 1 });
    await s.mirror.sync();
    expect((await s.mirror.get(m))?.partnerOrderId).toBeUndefined();
    await s.mirror.handleEvent({
      eventId: "9d0c4a4e-0d5e-4c56-9d1e-1f2a3b4c5d6e",
      type: "order.status_changed",
      occurredAt: "2026-11-26T00:00:00Z",
      siteId: (await s.mirror.get(m))?.siteId as number,
      orderNumber: m,
      partnerOrderId: "po-from-event",
    } as WebhookEvent);
    expect((await s.mirror.get(m))?.partnerOrderId).toBe("po-from-event");
    expect((await all(s.mirror.orders({ partnerOrderId: "po-from-event" })))[0]?.orderNumber).toBe(
      m,
    );
  }, 60_000);
});
