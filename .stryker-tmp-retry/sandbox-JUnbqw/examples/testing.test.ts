/**
 * Testing your integration against the sandbox, with vitest. Copy this file into your project; it
 * needs only `partner-orders` and `vitest`:
 *
 *   npx vitest run testing.test.ts
 *
 * The sandbox is an in-memory Partner Order Service on a manual clock. The client is given the
 * sandbox's fetch and the same clock, so `await sandbox.clock.runAll()` plays every wait to its end
 * (the service moving a submission on, the client's polls and retry backoff) in no real time: the
 * whole file runs well under a second.
 */
// @ts-nocheck

import { type OrderRequest, PartnerOrders } from "partner-orders";
import { createSandbox, type Sandbox } from "partner-orders/testing";
import { createWebhookHandler, type KnownWebhookEvent } from "partner-orders/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let sandbox: Sandbox;
let client: PartnerOrders;

beforeEach(() => {
  sandbox = createSandbox({ clock: "manual" });
  client = new PartnerOrders({
    baseUrl: sandbox.baseUrl,
    ...sandbox.credentials,
    fetch: sandbox.fetch, // no socket; `await sandbox.listen()` gives a real HTTP server instead
    clock: sandbox.clock, // the client's waits follow sandbox time
  });
});

afterEach(() => sandbox.close());

/** An order for the sandbox's main site: one stocked line. */
function anOrder(partnerOrderId: string): OrderRequest {
  return {
    siteId: sandbox.fixtures.sites.main,
    partnerOrderId,
    shipTo: {
      name: "Ada Lovelace",
      address1: "1 Analytical Way",
      city: "London",
      state: "LDN",
      postalCode: "N1 9GU",
      country: "GB",
    },
    lines: [
      {
        productId: sandbox.fixtures.products.stockTracked,
        variantId: sandbox.fixtures.variants.plenty,
        partnerLineId: "line-1",
        quantity: 2,
      },
    ],
  };
}

describe("my integration", () => {
  it("submits an order and waits until it is completed", async () => {
    const waiting = client.submitOrderAndWait(anOrder("po-1001"));
    await sandbox.clock.runAll();
    const submission = await waiting;

    // `status` narrows the submission: a completed one always carries its order.
    if (submission.status !== "completed") throw new Error(`submission ${submission.status}`);
    expect(submission.order.lines[0]?.partnerLineId).toBe("line-1");
    // Money is a Decimal, exact to the last digit.
    expect(submission.order.totalPrice.gt(0)).toBe(true);
  });

  it("survives a 503 from the service: the call is retried and one order is created", async () => {
    sandbox.faults.inject({ method: "POST", path: "/v1/orders", status: 503 });

    const waiting = client.submitOrderAndWait(anOrder("po-1002"));
    await sandbox.clock.runAll();
    const submission = await waiting;

    expect(submission.status).toBe("completed");
    const posts = sandbox.requests.filter((r) => r.method === "POST" && r.path === "/v1/orders");
    expect(posts.map((r) => r.status)).toEqual([503, 201]);
    expect(sandbox.counters.ordersCreated).toBe(1);
  });

  it("receives the signed webhook in my own handler", async () => {
    const secret = "whsec_my_test_secret";
    const received: KnownWebhookEvent[] = [];
    const webhooks = createWebhookHandler({
      secret,
      onEvent: async (event) => {
        received.push(event);
      },
    });
    // Deliveries go straight into the handler; `url` is only recorded.
    sandbox.webhooks.register({
      url: "https://partner.example/webhooks",
      secret,
      fetch: webhooks.fetch,
    });

    const waiting = client.submitOrderAndWait(anOrder("po-1003"));
    await sandbox.clock.runAll();
    const submission = await waiting;
    if (submission.status !== "completed") throw new Error(`submission ${submission.status}`);
    await sandbox.webhooks.settled();
    await webhooks.idle();

    expect(sandbox.webhooks.deliveries.map((d) => [d.state, d.status])).toEqual([
      ["delivered", 200],
    ]);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      type: "order.status_changed",
      partnerOrderId: "po-1003",
      orderNumber: submission.order.orderNumber,
    });
  });
});
