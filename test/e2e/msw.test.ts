import { setupServer } from "msw/node";
import { Decimal, isProblem, type Order, PartnerOrders } from "partner-orders";
import { createSandbox, FIXTURES, type Sandbox } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeClock } from "../support/fake-clock";
import { linkedClock, rejection } from "./support";

/**
 * The same reads through msw: the sandbox's handlers intercept the client's default `fetch` on the
 * sandbox's https base URL, the way a partner would wire the sandbox into their own test suite.
 */

let sandbox: Sandbox;
let server: ReturnType<typeof setupServer>;
let client: PartnerOrders;
let clock: FakeClock;

beforeAll(async () => {
  sandbox = createSandbox({ clock: "manual" });
  clock = linkedClock(sandbox);
  server = setupServer(...(await sandbox.mswHandlers(sandbox.baseUrl)));
  server.listen({ onUnhandledRequest: "error" });
  // No `fetch` option: the client looks globalThis.fetch up per call, so msw sees every request.
  client = new PartnerOrders({ baseUrl: sandbox.baseUrl, ...sandbox.credentials, clock });
});

afterAll(async () => {
  server.close();
  await sandbox.close();
});

describe("reads through msw", () => {
  it("uses the sandbox's https base URL", () => {
    expect(new URL(sandbox.baseUrl).protocol).toBe("https:");
  });

  it("me()", async () => {
    const me = await client.me();
    expect(me).toMatchObject({ partnerId: FIXTURES.partnerId, authMethod: "COGNITO_M2M" });
    expect(sandbox.counters.tokenRequests).toBe(1);
  });

  it("sites.list()", async () => {
    const sites = await client.sites.list();
    expect(sites.map((s) => s.siteId)).toContain(FIXTURES.sites.notLive);
  });

  it("orders.list() across pages, with exact totals", async () => {
    const orders: Order[] = [];
    for await (const order of client.orders.list({ siteId: FIXTURES.sites.main, limit: 100 }))
      orders.push(order);
    expect(orders).toHaveLength(FIXTURES.mainSiteOrderCount);
    expect(new Set(orders.map((o) => o.orderNumber)).size).toBe(orders.length);
    const totals = orders.flatMap((o) => Object.values(o.totals));
    expect(totals.every((t) => t === null || t instanceof Decimal)).toBe(true);
  });

  it("orders.get() and the 404 outside the grant", async () => {
    const order = await client.orders.get(FIXTURES.orders.tracking);
    expect(order.orderNumber).toBe(FIXTURES.orders.tracking);
    const error = await rejection(client.orders.get(FIXTURES.orders.otherPartner));
    expect(isProblem(error, "order_not_found")).toBe(true);
  });

  it("orders.shipments() with tracking", async () => {
    const page = await client.orders.shipments(FIXTURES.orders.tracking);
    expect(page.data[0]?.trackingNumbers).toEqual(["1ZCARRIER0001", "1ZCARRIER0002"]);
  });

  it("products.quote()", async () => {
    const quote = await client.products.quote(FIXTURES.products.pod, 3);
    expect(quote.totalPrice.equals("67.32")).toBe(true);
  });

  it("a 503 and a dropped connection are retried through msw too", async () => {
    sandbox.faults.inject({ method: "GET", path: "/v1/orders/{orderNumber}", status: 503 });
    sandbox.faults.inject({ method: "GET", path: "/v1/orders/{orderNumber}", drop: "before" });
    const order = await client.orders.get(FIXTURES.orders.manyItems);
    expect(order.orderNumber).toBe(FIXTURES.orders.manyItems);
    expect(clock.sleeps).toHaveLength(2);
  });

  it("still one token for everything", () => {
    expect(sandbox.counters.tokenRequests).toBe(1);
  });
});
