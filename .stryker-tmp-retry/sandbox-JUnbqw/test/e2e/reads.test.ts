// @ts-nocheck
import { Decimal, type Order, type OrderItem, PartnerOrdersError } from "partner-orders";
import { FIXTURES } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2E, orderFor, rawWalk, rejection, startE2E } from "./support";

/** Every read operation through the SDK against the sandbox over real HTTP on loopback. */

let e2e: E2E;
beforeAll(async () => {
  e2e = await startE2E({ syncWaitMs: 0 });
});
afterAll(() => e2e.close());

const grantedSites: readonly number[] = [
  FIXTURES.sites.main,
  FIXTURES.sites.notProvisioned,
  FIXTURES.sites.notLive,
];

describe("account", () => {
  it("me() describes the bearer credential", async () => {
    const me = await e2e.client.me();
    expect(me.partnerId).toBe(FIXTURES.partnerId);
    expect([...me.grantedSiteIds].sort()).toEqual([...grantedSites].sort());
    expect(me.authMethod).toBe("COGNITO_M2M");
    expect(me.scopes).toEqual(
      expect.arrayContaining(["partner-api/orders:read", "partner-api/sites:read"]),
    );
  });

  it("ping() resolves without a credential being needed", async () => {
    const pinger = e2e.newClient({ clientSecret: "not-the-secret" });
    await expect(pinger.ping()).resolves.toBeUndefined();
  });

  it("sites.list() gives the whole grant, the not-live site included", async () => {
    const sites = await e2e.client.sites.list();
    expect(sites.map((s) => s.siteId).sort()).toEqual([...grantedSites].sort());
    const notLive = sites.find((s) => s.siteId === FIXTURES.sites.notLive);
    expect(notLive).toMatchObject({ live: false, homeUrl: null });
  });
});

describe("orders.list", () => {
  const byListOrder = (a: Order, b: Order) =>
    (a.placedOn ?? "") < (b.placedOn ?? "")
      ? -1
      : (a.placedOn ?? "") > (b.placedOn ?? "")
        ? 1
        : a.orderNumber - b.orderNumber;

  it("for await walks every page: each granted order once, by (placedOn, orderNumber)", async () => {
    const seen: Order[] = [];
    for await (const order of e2e.client.orders.list()) seen.push(order);
    const expected = await rawWalk<{ orderNumber: number }>(e2e, "/v1/orders?limit=200", "orders");
    expect(seen.length).toBe(expected.length);
    expect(seen.length).toBeGreaterThan(50 * 5);
    expect(new Set(seen.map((o) => o.orderNumber)).size).toBe(seen.length);
    expect(seen.map((o) => o.orderNumber)).toEqual(expected.map((o) => o.orderNumber));
    expect([...seen].sort(byListOrder)).toEqual(seen);
    expect(seen.every((o) => grantedSites.includes(o.siteId as number))).toBe(true);
    // Requests went page by page at the default size of 50.
    expect(e2e.sandbox.counters.requests["GET /v1/orders"]).toBeGreaterThanOrEqual(
      Math.ceil(seen.length / 50),
    );
  });

  it("a siteId filter counts exactly the sandbox's orders on that site", async () => {
    let count = 0;
    for await (const order of e2e.client.orders.list({ siteId: FIXTURES.sites.main, limit: 200 })) {
      expect(order.siteId).toBe(FIXTURES.sites.main);
      count++;
    }
    expect(count).toBe(FIXTURES.mainSiteOrderCount);
  });

  it("await gives the first page; getNextPage and { cursor } resume where it stopped", async () => {
    const first = await e2e.client.orders.list({ limit: 30 });
    expect(first.data).toHaveLength(30);
    expect(first.hasNextPage()).toBe(true);
    const cursor = first.nextCursor as string;
    const second = await first.getNextPage();
    expect(second.data).toHaveLength(30);

    // A later process, with only the stored cursor, gets the same second page and goes on.
    const resumed = await e2e.newClient().orders.list({ limit: 30, cursor });
    expect(resumed.data.map((o) => o.orderNumber)).toEqual(second.data.map((o) => o.orderNumber));
    const all = [...first.data];
    for await (const order of e2e.client.orders.list({ limit: 30, cursor })) all.push(order);
    const expected = await rawWalk<{ orderNumber: number }>(e2e, "/v1/orders?limit=200", "orders");
    expect(all.map((o) => o.orderNumber)).toEqual(expected.map((o) => o.orderNumber));
  });

  it("pages() ends on the page whose nextCursor is null", async () => {
    const sizes: number[] = [];
    let last: string | null = "start";
    for await (const page of e2e.client.orders
      .list({ siteId: FIXTURES.sites.main, limit: 100 })
      .pages()) {
      sizes.push(page.data.length);
      last = page.nextCursor;
    }
    expect(sizes).toEqual([100, 100, FIXTURES.mainSiteOrderCount - 200]);
    expect(last).toBeNull();
  });

  it("orders.get returns the same order the list shows", async () => {
    const order = await e2e.client.orders.get(FIXTURES.orders.tracking);
    expect(order.orderNumber).toBe(FIXTURES.orders.tracking);
    expect(order.siteId).toBe(FIXTURES.sites.main);
    const raw = (await e2e.raw(`/v1/orders/${FIXTURES.orders.tracking}`)).json as Order;
    expect(order.status).toBe(raw.status);
    expect(order.placedOn).toBe(raw.placedOn);
  });
});

describe("orders.items", () => {
  it("walks every page: cancelled lines kept, null skus and null line totals kept null", async () => {
    const items: OrderItem[] = [];
    for await (const item of e2e.client.orders.items(FIXTURES.orders.manyItems)) items.push(item);
    const raw = await rawWalk<{ itemNumber: number; sku: string | null; lineTotal: string | null }>(
      e2e,
      `/v1/orders/${FIXTURES.orders.manyItems}/items?limit=200`,
      "items",
    );
    expect(items.length).toBe(120);
    expect(items.map((i) => i.itemNumber)).toEqual(raw.map((i) => i.itemNumber));
    expect(new Set(items.map((i) => i.itemNumber)).size).toBe(items.length);
    expect(items.some((i) => i.cancelled === true)).toBe(true);
    expect(items.some((i) => i.sku === null)).toBe(true);
    const unpriced = items.filter((i) => i.lineTotal === null);
    expect(unpriced.length).toBeGreaterThan(0);
    for (const item of unpriced) expect(item.lineListTotal).toBeNull();
    for (const item of items.filter((i) => i.lineTotal !== null))
      expect(item.lineTotal).toBeInstanceOf(Decimal);
  });

  it("an order whose lines are all hidden gives an empty list, not an error", async () => {
    const page = await e2e.client.orders.items(FIXTURES.orders.noVisibleItems);
    expect(page.data).toEqual([]);
    expect(page.hasNextPage()).toBe(false);
  });
});

describe("orders.shipments", () => {
  it("carries trackingNumbers as the sandbox computes them (precedence rule)", async () => {
    const page = await e2e.client.orders.shipments(FIXTURES.orders.tracking);
    const byNumber = new Map(page.data.map((s) => [s.shipmentNumber, s]));
    expect(byNumber.get(1)?.trackingNumbers).toEqual(["1ZCARRIER0001", "1ZCARRIER0002"]);
    expect(byNumber.get(2)?.trackingNumbers).toEqual(["MANUAL-0002"]);
    expect(byNumber.get(3)?.trackingNumbers).toEqual([]);
    expect(byNumber.get(3)?.shippedOn).toBeNull();
    const raw = (await e2e.raw(`/v1/orders/${FIXTURES.orders.tracking}/shipments`)).json as {
      shipments: unknown[];
    };
    expect(page.data).toEqual(raw.shipments);
  });

  it("an order with no shipments gives []", async () => {
    const all = [];
    for await (const s of e2e.client.orders.shipments(FIXTURES.orders.noShipments)) all.push(s);
    expect(all).toEqual([]);
  });

  it("walks the 60 shipments of one order across pages", async () => {
    const numbers: number[] = [];
    for await (const s of e2e.client.orders.shipments(FIXTURES.orders.manyShipments))
      numbers.push(s.shipmentNumber);
    expect(numbers).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
  });
});

describe("orders.shipments past the packages ceiling", () => {
  const carrier = (shipment: number, p: number) =>
    `1Z${FIXTURES.orders.manyPackages}${String(shipment * 100 + p).padStart(4, "0")}`;

  it("re-requests with a smaller limit so every package and tracking number is complete", async () => {
    const small = await startE2E({ packagesPerResponse: 50 });
    try {
      const shipments = [];
      for await (const s of small.client.orders.shipments(FIXTURES.orders.manyPackages))
        shipments.push(s);
      expect(shipments.map((s) => s.shipmentNumber)).toEqual([1, 2, 3]);
      for (const s of shipments) {
        const expected = Array.from({ length: 40 }, (_, i) => carrier(s.shipmentNumber, i + 1));
        expect(s.packages.map((p) => p.trackingNumber)).toEqual(expected);
        expect(s.trackingNumbers).toEqual(expected);
      }
      // The first answer (3 shipments, 120 packages) was cut at 50, so a smaller page was asked for.
      const asked = small.sandbox.requests
        .filter((r) => r.template === "/v1/orders/{orderNumber}/shipments")
        .map((r) => new URLSearchParams(r.search).get("limit"));
      expect(asked[0]).toBeNull();
      expect(asked.length).toBeGreaterThan(1);
      expect(asked[1]).toBe("12");
    } finally {
      await small.close();
    }
  });

  it("throws, never truncates, when one shipment alone is over the ceiling", async () => {
    const tiny = await startE2E({ packagesPerResponse: 30 });
    try {
      const error = await rejection(async () => {
        for await (const _ of tiny.client.orders.shipments(FIXTURES.orders.manyPackages)) {
          // consume
        }
      });
      expect(error).toBeInstanceOf(PartnerOrdersError);
    } finally {
      await tiny.close();
    }
  });
});

describe("products", () => {
  it("products.list: STOCK per variant, POD with null variantId/sku/weight, untracked inventory null", async () => {
    const all = [];
    for await (const p of e2e.client.products.list()) all.push(p);
    const raw = await rawWalk<{ productId: string; variantId: number | null }>(
      e2e,
      "/v1/products?limit=500",
      "products",
    );
    expect(all.map((p) => [p.productId, p.variantId])).toEqual(
      raw.map((p) => [p.productId, p.variantId]),
    );
    expect(all.length).toBeGreaterThan(100); // more than one default page

    const stock = all.filter((p) => p.productId === FIXTURES.products.stockTracked);
    expect(stock.map((p) => p.variantId)).toEqual([
      FIXTURES.variants.plenty,
      FIXTURES.variants.scarce,
    ]);
    expect(stock[0]?.weight).toBeInstanceOf(Decimal);
    expect(stock[0]?.weight?.equals("0.25")).toBe(true);

    const pod = all.find((p) => p.productId === FIXTURES.products.pod);
    expect(pod).toMatchObject({ serviceType: "POD", variantId: null, sku: null, weight: null });
    expect(pod?.availableInventory).toBeNull();

    const untracked = all.find((p) => p.productId === FIXTURES.products.stockUntracked);
    expect(untracked).toMatchObject({ inventoryTracked: false, availableInventory: null });
    const outOfStock = all.find((p) => p.productId === FIXTURES.products.stockOutOfStock);
    expect(outOfStock).toMatchObject({ inventoryTracked: true, availableInventory: 0 });
    expect(all.some((p) => p.productId === FIXTURES.products.unlisted)).toBe(false);
  });

  it("products.list filters by serviceType", async () => {
    const pods = [];
    for await (const p of e2e.client.products.list({ serviceType: "POD" })) pods.push(p);
    expect(pods.length).toBeGreaterThan(0);
    expect(pods.every((p) => p.serviceType === "POD")).toBe(true);
  });

  it("products.get gives the variants", async () => {
    const detail = await e2e.client.products.get(FIXTURES.products.stockTracked);
    expect(detail.productId).toBe(FIXTURES.products.stockTracked);
    expect(detail.variants.map((v) => v.variantId)).toEqual([
      FIXTURES.variants.plenty,
      FIXTURES.variants.scarce,
    ]);
    expect(detail.variants[1]).toMatchObject({ sku: "BC-PREM", availableInventory: 3 });
    expect(detail.variants[0]?.weight).toBeInstanceOf(Decimal);
  });

  it("products.quote gives an exact Decimal totalPrice", async () => {
    const quote = await e2e.client.products.quote(FIXTURES.products.pod, 3);
    expect(quote.productId).toBe(FIXTURES.products.pod);
    expect(quote.quantity).toBe(3);
    expect(quote.totalPrice).toBeInstanceOf(Decimal);
    // 24.00 x 3, +10 % site markup, -15 % offering discount = 67.32.
    expect(quote.totalPrice.equals(new Decimal("67.32"))).toBe(true);
  });
});

describe("submissions.list", () => {
  it("lists what this partner submitted, newest first", async () => {
    const before = await e2e.client.submissions.list();
    expect(before.data).toEqual([]);
    const a = await e2e.client.orders.submit(orderFor("reads-a"));
    const b = await e2e.client.orders.submit(orderFor("reads-b"));
    const ids = [];
    for await (const s of e2e.client.submissions.list()) ids.push(s.submissionId);
    expect(ids).toEqual([b.submission.submissionId, a.submission.submissionId]);
  });
});

describe("list parameters on the wire", () => {
  it("a status with a space filters exactly", async () => {
    const sdk: number[] = [];
    for await (const o of e2e.client.orders.list({ status: "In Production", limit: 200 }))
      sdk.push(o.orderNumber);
    const raw = await rawWalk<{ orderNumber: number; status: string }>(
      e2e,
      "/v1/orders?limit=200",
      "orders",
    );
    const expected = raw.filter((o) => o.status === "In Production").map((o) => o.orderNumber);
    expect(expected.length).toBeGreaterThan(0);
    expect(sdk).toEqual(expected);
  });

  it("limits above the service's caps are sent and capped by the service, not refused", async () => {
    const orders = await e2e.client.orders.list({ limit: 1_000 });
    expect(orders.data).toHaveLength(200);
    const products = await e2e.client.products.list({ limit: 1_000 });
    expect(products.data.length).toBeGreaterThan(100);
    const shipments = await e2e.client.orders.shipments(FIXTURES.orders.manyShipments, {
      limit: 500,
    });
    expect(shipments.data).toHaveLength(50);
    const submissions = await e2e.client.submissions.list({ limit: 1_000 });
    expect(Array.isArray(submissions.data)).toBe(true);
  });
});
