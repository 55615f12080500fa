// @ts-nocheck
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Order, OrderItem, Shipment } from "partner-orders";
import { FIXTURES } from "partner-orders/testing";
import {
  createWebhookHandler,
  isTestEvent,
  type KnownWebhookEvent,
  verifyWebhook,
  type WebhookHandler,
} from "partner-orders/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type E2E, orderFor, startE2E } from "./support";

/**
 * Webhooks end to end (API document, "Events"): the sandbox delivers signed events over real HTTP to
 * a node:http server running `createWebhookHandler`, which verifies, dedupes and hands each event to
 * `onEvent`; `client.refetch(event)` then reads what the event names.
 */

const SECRET = "whsec_e2e_5f1d0c9b2a";
const ORDER = FIXTURES.orders.tracking;

let e2e: E2E;
let server: Server;
let url: string;
let handler: WebhookHandler;
let events: KnownWebhookEvent[];
let logged: string[];

beforeEach(async () => {
  // The sandbox signs with its clock; a manual clock starts at the real now, well within 300 s.
  e2e = await startE2E({
    syncWaitMs: 0,
    submissionTimings: { processingAfterMs: 0, completeAfterMs: 0 },
    webhooks: { duplicate: true },
  });
  events = [];
  logged = [];
  const log = (message: string, details?: Record<string, unknown>) => {
    logged.push(`${message} ${JSON.stringify(details ?? {})}`);
  };
  handler = createWebhookHandler({
    secret: SECRET,
    onEvent: (event) => {
      events.push(event);
    },
    logger: { error: log, warn: log },
  });
  server = createServer((req, res) => void handler.node(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
});

afterEach(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  await e2e.close();
});

/** Every delivery sent and answered, and every accepted event handled. */
async function settle() {
  await e2e.sandbox.webhooks.settled();
  await handler.idle();
}

describe("signed deliveries over real HTTP", () => {
  it("status change, shipment shipped, line cancelled: each verified, deduped, refetched", async () => {
    e2e.sandbox.webhooks.register({ url, secret: SECRET });
    const items: OrderItem[] = [];
    for await (const item of e2e.client.orders.items(ORDER)) items.push(item);
    const line = items.find((i) => !i.cancelled) as OrderItem;
    expect(line).toBeDefined();

    e2e.sandbox.admin.setOrderStatus(ORDER, "Shipped");
    e2e.sandbox.admin.shipShipment(ORDER, 3, { packages: ["1ZE2ENEW0001"] });
    e2e.sandbox.admin.cancelLine(ORDER, line.itemNumber);
    await settle();

    // Sent twice each (the duplicate option), all acknowledged with a 2xx, signed.
    const deliveries = e2e.sandbox.webhooks.deliveries;
    expect(deliveries).toHaveLength(6);
    expect(deliveries.filter((d) => d.duplicate)).toHaveLength(3);
    expect(deliveries.every((d) => d.state === "delivered" && d.status === 200)).toBe(true);
    expect(
      deliveries.every((d) =>
        /^t=\d+,v1=[0-9a-f]{64}$/.test(d.headers["platform-signature"] ?? ""),
      ),
    ).toBe(true);

    // onEvent saw each eventId once.
    expect(events.map((e) => e.type)).toEqual([
      "order.status_changed",
      "shipment.shipped",
      "order_line.cancelled",
    ]);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(3);
    expect(events.every((e) => e.orderNumber === ORDER && e.siteId === FIXTURES.sites.main)).toBe(
      true,
    );
    // A seeded order was not submitted through the API: no partnerOrderId (Events rule 7).
    expect(events.every((e) => e.partnerOrderId === undefined)).toBe(true);

    for (const event of events) {
      switch (event.type) {
        case "order.status_changed": {
          const order: Order = await e2e.client.refetch(event);
          expect(order).toMatchObject({ orderNumber: ORDER, status: "Shipped", closed: false });
          break;
        }
        case "shipment.shipped": {
          expect(event.shipmentNumber).toBe(3);
          const shipments: Shipment[] = await e2e.client.refetch(event);
          const shipped = shipments.find((s) => s.shipmentNumber === 3);
          expect(shipped?.shippedOn).toEqual(expect.any(String));
          expect(shipped?.trackingNumbers).toEqual(["1ZE2ENEW0001"]);
          break;
        }
        case "order_line.cancelled": {
          const refetched: OrderItem[] = await e2e.client.refetch(event);
          expect(refetched).toHaveLength(items.length);
          expect(refetched.find((i) => i.itemNumber === line.itemNumber)?.cancelled).toBe(true);
          break;
        }
        default:
          throw new Error(`unexpected event ${event.type}`);
      }
    }
    expect(logged).toEqual([]);
  });

  it("a cancelled shipment: refetch shows it gone from the list", async () => {
    e2e.sandbox.webhooks.register({ url, secret: SECRET });
    e2e.sandbox.admin.cancelShipment(ORDER, 2);
    await settle();
    expect(events).toHaveLength(1);
    const [event] = events as [KnownWebhookEvent];
    if (event.type !== "shipment.cancelled") throw new Error(`unexpected ${event.type}`);
    expect(event.shipmentNumber).toBe(2);
    const shipments: Shipment[] = await e2e.client.refetch(event);
    expect(shipments.map((s) => s.shipmentNumber)).toEqual([1, 3]);
  });

  it("a completed submission announces its order with the partnerOrderId", async () => {
    e2e.sandbox.webhooks.register({ url, secret: SECRET });
    const done = await e2e.client.submitOrderAndWait(orderFor("hook-1"));
    expect(done.status).toBe("completed");
    await settle();
    expect(events).toHaveLength(1);
    const [event] = events as [KnownWebhookEvent];
    expect(event).toMatchObject({
      type: "order.status_changed",
      orderNumber: done.order?.orderNumber,
      partnerOrderId: "hook-1",
    });
    const order = (await e2e.client.refetch(event)) as Order;
    expect(order.orderNumber).toBe(done.order?.orderNumber);
  });

  it("the synthetic test event is verified and discarded; refetch gives null", async () => {
    e2e.sandbox.webhooks.register({ url, secret: SECRET });
    const eventId = e2e.sandbox.webhooks.sendTestEvent();
    await settle();
    expect(eventId.startsWith("test_")).toBe(true);
    const delivered = e2e.sandbox.webhooks.deliveries.filter((d) => d.eventId === eventId);
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.every((d) => d.state === "delivered" && d.status === 200)).toBe(true);
    expect(events).toEqual([]);

    const delivery = delivered[0] as (typeof delivered)[0];
    const event = await verifyWebhook({
      body: delivery.body,
      headers: delivery.headers,
      secret: SECRET,
    });
    expect(isTestEvent(event)).toBe(true);
    expect(await e2e.client.refetch(event)).toBeNull();
  });

  it("a wrong secret: deliveries refused with a non-2xx and recorded as failed", async () => {
    e2e.sandbox.webhooks.register({ url, secret: "whsec_not_the_one" });
    e2e.sandbox.admin.setOrderStatus(ORDER, "On Hold");
    await settle();
    const deliveries = e2e.sandbox.webhooks.deliveries;
    expect(deliveries.length).toBeGreaterThan(0);
    for (const d of deliveries) {
      expect(d.state).toBe("failed");
      expect(d.status).toBe(400);
    }
    expect(events).toEqual([]);
    // The refusal is logged without either secret.
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join("\n")).not.toContain(SECRET);
    expect(logged.join("\n")).not.toContain("whsec_not_the_one");
  });

  it("an endpoint down: the delivery is recorded as failed and never retried", async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    e2e.sandbox.webhooks.register({ url, secret: SECRET });
    e2e.sandbox.admin.setOrderStatus(ORDER, "On Hold");
    await settle();
    const deliveries = e2e.sandbox.webhooks.deliveries;
    expect(deliveries).toHaveLength(2); // the original and its duplicate, no retry
    expect(deliveries.every((d) => d.state === "failed" && d.status === undefined)).toBe(true);
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
});
