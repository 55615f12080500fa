import type { Change } from "partner-orders/sync";
import type { WebhookEvent } from "partner-orders/webhooks";
import { expect, it } from "vitest";
import { quiet } from "../support/logger.js";
import { settle, setupWith } from "./support.js";

/**
 * A list page is a picture of a moment. A webhook's read of an order committed after that moment
 * is newer than the page's row: the sweep must not write the older row back (nor report the order
 * changing back), but read the order anew.
 */
it("a list row older than a webhook read committed since is not written back", async () => {
  let n = 0;
  let pending: Promise<void> | undefined;
  const s = setupWith({ logger: quiet }, async (request, sandbox) => {
    if (new URL(request.url).pathname !== "/v1/orders" || pending) return undefined;
    const page = await sandbox.fetch(request);
    const body = (await page.clone().json()) as { orders: { orderNumber: number }[] };
    if (!body.orders.some((o) => o.orderNumber === n)) return page;
    // The page with the order is answered; then the order ships and its webhook is read before the sweep gets to it.
    sandbox.admin.setOrderStatus(n, "Shipped");
    pending = s.mirror.handleEvent({
      eventId: "5d0c1b9e-0f43-4e0e-9d2b-3f6a1c2b7e11",
      type: "order.status_changed",
      occurredAt: new Date(sandbox.clock.now()).toISOString(),
      siteId: 101,
      orderNumber: n,
    } as WebhookEvent);
    return page;
  });
  n = s.sandbox.admin.placeOrder({ lines: 1 });
  await s.mirror.sync();
  await pending;
  expect((await s.mirror.get(n))?.status).toBe("Shipped");
  const changes: Change[] = [];
  const abort = new AbortController();
  const reading = (async () => {
    for await (const change of s.mirror.changes({ consumer: "c", signal: abort.signal }))
      if (change.orderNumber === n) changes.push(change);
  })();
  // Every change is already written: the feed hands them out without waiting on the clock.
  await settle(2_000);
  abort.abort();
  await reading;
  expect(changes.map((c) => c.type)).toContain("order.added");
  // Never reported as moving back from Shipped.
  const backwards = changes.filter(
    (c) => c.type === "order.changed" && (c.previous as { status?: string }).status === "Shipped",
  );
  expect(backwards).toEqual([]);
  await s.mirror.close();
  await s.sandbox.close();
});
