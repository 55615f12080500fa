import { MirrorError } from "partner-orders/sync";
import { parseWebhook, type WebhookEvent } from "partner-orders/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { quiet, recorder } from "../support/logger.js";
import { setup, setupWith } from "./support.js";

/** Webhook events and list rows that would once pass unnoticed or throw a TypeError. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function tracked<T extends ReturnType<typeof setup>>(s: T): T {
  cleanups.push(
    () => s.mirror.close(),
    () => s.sandbox.close(),
  );
  return s;
}

const event = (fields: Record<string, unknown>): WebhookEvent =>
  ({
    eventId: "7f8c7c64-1b9d-4a39-9d35-2a1d9d6a0c11",
    type: "order.status_changed",
    occurredAt: "2026-11-26T00:00:00Z",
    siteId: 12,
    ...fields,
  }) as unknown as WebhookEvent;

describe("handleEvent", () => {
  it("reads a thousand deliveries of one event once, one after another or together", async () => {
    const s = tracked(setup(":memory:", { logger: quiet }));
    await s.mirror.sync();
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    const delivered = event({ orderNumber: n });
    for (let i = 0; i < 500; i++) await s.mirror.handleEvent(delivered);
    await Promise.all(Array.from({ length: 500 }, () => s.mirror.handleEvent(delivered)));
    const reads = s.sandbox.requests.filter((r) => r.path.startsWith(`/v1/orders/${n}`));
    // One read of a new order: the order, its items and its shipments.
    expect(reads.map((r) => r.path).sort()).toEqual(
      [`/v1/orders/${n}`, `/v1/orders/${n}/items`, `/v1/orders/${n}/shipments`].sort(),
    );
  });

  it("a new event id for the same order is read again", async () => {
    const s = tracked(setup(":memory:", { logger: quiet }));
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    await s.mirror.handleEvent(event({ orderNumber: n }));
    const before = s.sandbox.requests.length;
    await s.mirror.handleEvent(
      event({ orderNumber: n, eventId: "0b1e2d3c-4f5a-4b6c-8d7e-9f0a1b2c3d4e" }),
    );
    expect(s.sandbox.requests.slice(before).map((r) => r.path)).toEqual([`/v1/orders/${n}`]);
  });

  it.each([
    ["a numeric eventId", { eventId: 42, orderNumber: 100001 }, "eventId must be a string"],
    [
      "an orderNumber of 1e300",
      { orderNumber: 1e300 },
      "orderNumber must be a positive whole number, not 1e+300",
    ],
    [
      "an orderNumber of 0 on a real event",
      { orderNumber: 0 },
      "orderNumber must be a positive whole number, not 0",
    ],
    ["a fractional orderNumber", { orderNumber: 100001.5 }, "not 100001.5"],
    ["a type that is no string", { type: 7, orderNumber: 100001 }, "type must be a string"],
  ])("refuses %s with MirrorError invalid_event, reading nothing", async (_, fields, says) => {
    const s = tracked(setup(":memory:", { logger: quiet }));
    const error = await s.mirror.handleEvent(event(fields)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MirrorError);
    expect(error).toMatchObject({ code: "invalid_event" });
    expect((error as Error).message).toContain(says);
    expect(s.sandbox.requests).toEqual([]);
  });

  it("ignores the synthetic test event and unknown types without a request", async () => {
    const s = tracked(setup(":memory:", { logger: quiet }));
    await s.mirror.handleEvent(
      parseWebhook(
        JSON.stringify({
          eventId: "test_123",
          type: "order.status_changed",
          occurredAt: "2026-11-26T00:00:00Z",
          siteId: 0,
          orderNumber: 0,
        }),
      ),
    );
    await s.mirror.handleEvent(event({ type: "order.invoiced", orderNumber: 100001 }));
    expect(s.sandbox.requests).toEqual([]);
  });
});

describe("list rows", () => {
  it("an order listed twice on one page is read once, and said", async () => {
    const log = recorder();
    let twice: unknown;
    const s = tracked(
      setupWith({ logger: log }, (request) => {
        const url = new URL(request.url);
        if (url.pathname !== "/v1/orders" || !twice) return undefined;
        return Response.json({ orders: [twice, twice], nextCursor: null });
      }),
    );
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    const row = await fetchRow(s.sandbox, n);
    twice = row;
    const report = await s.mirror.sync();
    expect(report.ordersSeen).toBe(2);
    expect(report.ordersAdded).toBe(1);
    const itemReads = s.sandbox.requests.filter((r) => r.path === `/v1/orders/${n}/items`);
    expect(itemReads).toHaveLength(1);
    expect(
      log.calls.some((c) => String(c[1]).includes(`order ${n} is listed twice on one page`)),
    ).toBe(true);
  });
});

/** The order's list row exactly as the service serves it. */
async function fetchRow(sandbox: ReturnType<typeof setup>["sandbox"], n: number): Promise<unknown> {
  const token = await sandbox.fetch(
    new Request(`${sandbox.baseUrl}/oauth2/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: sandbox.credentials.clientId,
        client_secret: sandbox.credentials.clientSecret,
      }),
    }),
  );
  const { access_token } = (await token.json()) as { access_token: string };
  const page = await sandbox.fetch(
    new Request(`${sandbox.baseUrl}/v1/orders/${n}`, {
      headers: { authorization: `Bearer ${access_token}` },
    }),
  );
  return page.json();
}
