import { afterEach, describe, expect, it } from "vitest";
import type { WebhookEvent } from "../../../src/webhooks/events";
import { json, problem } from "../../support/fake-server";
import { type MirrorHarness, mirrorHarness, orderRow } from "./mirror-support";

/** handleEvent on a scripted service: what each event reads, once, and what it skips. */
const made: MirrorHarness[] = [];
function harness(...args: Parameters<typeof mirrorHarness>): MirrorHarness {
  const h = mirrorHarness(...args);
  made.push(h);
  return h;
}
afterEach(async () => {
  for (const h of made.splice(0)) await h.mirror.close();
});

function event(eventId: string, extra: Record<string, unknown> = {}): WebhookEvent {
  return {
    eventId,
    type: "order.status_changed",
    orderNumber: 1,
    siteId: 101,
    occurredAt: "2030-01-01T00:00:00Z",
    ...extra,
  } as unknown as WebhookEvent;
}

/** A mirror that has stored order 1 once; `calls()` are the requests made since. */
async function synced(options: Parameters<typeof mirrorHarness>[0] = {}) {
  const h = harness(options);
  h.service.add(1);
  await h.mirror.sync();
  const from = h.service.calls.length;
  return { ...h, h, calls: () => h.service.calls.slice(from) };
}

describe("handleEvent", () => {
  it("reads the part the event names, and records the change as the webhook's", async () => {
    const { h, calls } = await synced({ siteIds: [101] });
    h.service.add(1, { status: "Shipped" });
    await expect(h.mirror.handleEvent(event("e1"))).resolves.toBeUndefined();
    expect(calls()).toEqual(["GET /v1/orders/1"]);
    const [change] = await h.store.changesAfter(1, 10);
    expect(change).toMatchObject({ type: "order.changed", orderNumber: 1, cause: "webhook" });
  });

  it("a mirror of every site reads an event of any site", async () => {
    const { h, calls } = await synced();
    await h.mirror.handleEvent(event("e1", { type: "shipment.shipped", siteId: 999 }));
    expect(calls()).toEqual(["GET /v1/orders/1/shipments?limit=50"]);
  });

  it("an event of a site not mirrored reads nothing", async () => {
    const { h, calls } = await synced({ siteIds: [102] });
    await h.mirror.handleEvent(event("e1"));
    expect(calls()).toEqual([]);
  });

  it("a test event and an unknown type read nothing", async () => {
    const { h, calls } = await synced();
    await h.mirror.handleEvent(event("test_1", { orderNumber: 0, siteId: 0 }));
    await h.mirror.handleEvent(event("e2", { type: "order.archived" }));
    expect(calls()).toEqual([]);
  });

  it("an event delivered again, at once or later, is read once", async () => {
    const { h, calls } = await synced();
    await Promise.all([h.mirror.handleEvent(event("e1")), h.mirror.handleEvent(event("e1"))]);
    await h.mirror.handleEvent(event("e1"));
    expect(calls()).toEqual(["GET /v1/orders/1"]);
    await h.mirror.handleEvent(event("e2"));
    expect(calls()).toEqual(["GET /v1/orders/1", "GET /v1/orders/1"]);
  });

  it("a read that failed is forgotten: the event delivered again is read again", async () => {
    const { h, calls } = await synced();
    h.service.server.on(
      "GET /v1/orders/1",
      () => problem(503, "service_unavailable"),
      () => json(orderRow(1)),
    );
    await expect(h.mirror.handleEvent(event("e1"))).rejects.toMatchObject({
      code: "service_unavailable",
    });
    await expect(h.mirror.handleEvent(event("e1"))).resolves.toBeUndefined();
    await h.mirror.handleEvent(event("e1"));
    expect(calls()).toEqual(["GET /v1/orders/1", "GET /v1/orders/1"]);
  });

  it("remembers the last 10,000 event ids: the oldest beyond them is read again", async () => {
    const { h, calls } = await synced();
    // A burst for one order joins one read.
    await Promise.all(
      Array.from({ length: 10_001 }, (_, i) => h.mirror.handleEvent(event(`e${i}`))),
    );
    expect(calls()).toEqual(["GET /v1/orders/1"]);
    await h.mirror.handleEvent(event("e1"));
    await h.mirror.handleEvent(event("e10000"));
    expect(calls()).toEqual(["GET /v1/orders/1"]);
    await h.mirror.handleEvent(event("e0"));
    expect(calls()).toEqual(["GET /v1/orders/1", "GET /v1/orders/1"]);
  });

  it("the first event starts the mirror: the store is claimed for the account before the read", async () => {
    const h = harness();
    h.service.add(1);
    await h.mirror.handleEvent(event("e1"));
    expect(h.service.calls).toEqual([
      "GET /v1/me",
      "GET /v1/orders/1",
      "GET /v1/orders/1/items?limit=200",
      "GET /v1/orders/1/shipments?limit=50",
    ]);
    expect((await h.mirror.status()).account).toMatchObject({ partnerId: "partner-7" });
  });
});
