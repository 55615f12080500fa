// @ts-nocheck
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createSandbox, signWebhook } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computeSignature } from "../../src/webhooks/signature";
import { api, tokenFor, validOrder } from "./helpers";

interface Received {
  headers: IncomingMessage["headers"];
  method: string | undefined;
  body: string;
}

/** A real receiver on loopback that records raw bodies and answers with `status`. */
const received: Received[] = [];
let status = 204;
let receiverUrl = "";
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    received.push({
      headers: req.headers,
      method: req.method,
      body: Buffer.concat(chunks).toString("utf8"),
    });
    res.statusCode = status;
    res.end();
  });
});
beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

const take = () => received.splice(0).map((r) => ({ ...r, json: JSON.parse(r.body) }));

describe("webhook deliveries", () => {
  it("POSTs a signed JSON notification for each staff-side change, partnerOrderId only for API orders", async () => {
    const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
    const secret = "whsec_sandbox";
    sandbox.webhooks.register({ url: receiverUrl, secret });
    const O = sandbox.fixtures.orders;

    sandbox.admin.setOrderStatus(O.tracking, "On Hold");
    sandbox.admin.shipShipment(O.tracking, 3, { trackingNumber: "MAN-3" });
    sandbox.admin.cancelShipment(O.tracking, 2);
    sandbox.admin.cancelLine(O.manyItems, 500_010);
    await sandbox.webhooks.settled();
    const events = take();
    expect(events.map((e) => e.json.type)).toEqual([
      "order.status_changed",
      "shipment.shipped",
      "shipment.cancelled",
      "order_line.cancelled",
    ]);
    for (const e of events) {
      expect(e.method).toBe("POST");
      expect(e.headers["content-type"]).toBe("application/json");
      expect(e.headers["platform-event-id"]).toBe(e.json.eventId);
      const [, t, v1] =
        /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(e.headers["platform-signature"])) ?? [];
      expect(v1).toBe(await computeSignature(secret, t as string, e.body));
      expect(Math.abs(Number(t) - sandbox.clock.now() / 1000)).toBeLessThan(2);
      expect(e.json).not.toHaveProperty("partnerOrderId");
    }
    expect(Object.keys(events[0]?.json)).toEqual([
      "eventId",
      "type",
      "occurredAt",
      "siteId",
      "orderNumber",
    ]);
    expect(events[1]?.json).toMatchObject({
      siteId: 101,
      orderNumber: O.tracking,
      shipmentNumber: 3,
    });
    expect(events[3]?.json).not.toHaveProperty("shipmentNumber");

    // The change is visible on re-read: tracking now present on the shipped shipment.
    const client = api(sandbox, await tokenFor(sandbox));
    const shipments = await client.get(`/v1/orders/${O.tracking}/shipments`);
    const three = shipments.json.shipments.find(
      (s: { shipmentNumber: number }) => s.shipmentNumber === 3,
    );
    expect(three).toMatchObject({ trackingNumbers: ["MAN-3"], shippedOn: expect.any(String) });
    expect(
      shipments.json.shipments.map((s: { shipmentNumber: number }) => s.shipmentNumber),
    ).toEqual([1, 3]);

    // A completed API submission announces itself with the partnerOrderId.
    const created = await client.post("/v1/orders", validOrder("po-hook"));
    sandbox.clock.advance(1500);
    await sandbox.webhooks.settled();
    const [completed] = take();
    expect(completed?.json).toMatchObject({
      type: "order.status_changed",
      partnerOrderId: "po-hook",
      siteId: 101,
    });
    const sub = await client.get(`/v1/orders/submissions/${created.json.submissionId}`);
    expect(completed?.json.orderNumber).toBe(sub.json.order.orderNumber);
    expect(
      sandbox.webhooks.deliveries.every((d) => d.state === "delivered" && d.status === 204),
    ).toBe(true);
    await sandbox.close();
  });

  it("sends no signature without a secret, and only to partners granted the site", async () => {
    const sandbox = createSandbox();
    sandbox.webhooks.register({ url: receiverUrl });
    sandbox.webhooks.register({
      url: `${receiverUrl}?other`,
      partnerId: sandbox.fixtures.otherPartnerId,
    });
    sandbox.admin.setOrderStatus(sandbox.fixtures.orders.tracking, "Shipped");
    await sandbox.webhooks.settled();
    const [only, ...rest] = take();
    expect(rest).toHaveLength(0);
    expect(only?.headers["platform-signature"]).toBeUndefined();
    expect(only?.headers["platform-event-id"]).toBe(only?.json.eventId);
    await sandbox.close();
  });

  it("sends the synthetic test event with a test_ eventId and zero ids", async () => {
    const sandbox = createSandbox();
    sandbox.webhooks.register({ url: receiverUrl, secret: "s" });
    const eventId = sandbox.webhooks.sendTestEvent();
    await sandbox.webhooks.settled();
    const [event] = take();
    expect(event?.json).toMatchObject({ eventId, siteId: 0, orderNumber: 0 });
    expect(eventId).toMatch(/^test_/);
    await sandbox.close();
  });

  it("records a non-2xx, a refused connection and a timeout as failed, never retried", async () => {
    const sandbox = createSandbox({ webhooks: { timeoutMs: 50 } });
    status = 500;
    sandbox.webhooks.register({ url: receiverUrl });
    sandbox.webhooks.register({ url: "http://127.0.0.1:1/refused" });
    sandbox.webhooks.register({
      url: "http://hang.invalid/",
      fetch: () => new Promise<Response>(() => {}),
    });
    sandbox.admin.setOrderStatus(sandbox.fixtures.orders.tracking, "Shipped");
    await sandbox.webhooks.settled();
    status = 204;
    const log = sandbox.webhooks.deliveries.map((d) => ({
      state: d.state,
      status: d.status,
      error: d.error,
    }));
    expect(log).toEqual([
      { state: "failed", status: 500, error: undefined },
      { state: "failed", status: undefined, error: expect.stringContaining("TypeError") },
      { state: "failed", status: undefined, error: expect.stringContaining("TimeoutError") },
    ]);
    expect(take()).toHaveLength(1);
    expect(sandbox.counters.webhookDeliveries).toBe(3);
    await sandbox.close();
  });

  it("can duplicate deliveries and deliver a burst out of order", async () => {
    const sandbox = createSandbox({ webhooks: { duplicate: true, outOfOrder: true } });
    const seen: string[] = [];
    sandbox.webhooks.register({
      url: "https://partner.example/hooks",
      fetch: async (request) => {
        const body = await request.json();
        seen.push(`${body.type}:${body.eventId}`);
        return new Response(null, { status: 200 });
      },
    });
    sandbox.admin.setOrderStatus(sandbox.fixtures.orders.tracking, "Shipped");
    sandbox.admin.cancelLine(sandbox.fixtures.orders.manyItems, 500_010);
    await sandbox.webhooks.settled();
    expect(seen.map((s) => s.split(":")[0])).toEqual([
      "order_line.cancelled",
      "order_line.cancelled",
      "order.status_changed",
      "order.status_changed",
    ]);
    expect(seen[0]).toBe(seen[1]);
    expect(sandbox.webhooks.deliveries.filter((d) => d.duplicate)).toHaveLength(2);
    await sandbox.close();
  });
});

describe("signWebhook", () => {
  it("gives a header that verifies against computeSignature for the given t", async () => {
    const body = '{"eventId":"test_1"}';
    const header = await signWebhook(body, "whsec", { t: 1_700_000_000 });
    expect(header).toBe(`t=1700000000,v1=${await computeSignature("whsec", 1_700_000_000, body)}`);
  });
});
