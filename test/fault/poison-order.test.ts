import { expect, it } from "vitest";
import { recorder } from "../support/logger.js";
import { setupWith } from "../sync/support.js";

/**
 * One malformed order on a list page (a money value of "abc", another of "1e999") must not stop the
 * others: they are stored, the bad ones are kept out and named (number, field, reason) in the logs,
 * the SyncReport and status(), and tried again by the next sweep, which stores them once mended.
 */
it("a poison order on a list page: the others stored, it kept out and named, tried again next sweep", async () => {
  const poison = new Map<number, string>();
  const log = recorder();
  const s = setupWith({ logger: log }, async (request, sandbox) => {
    if (new URL(request.url).pathname !== "/v1/orders" || poison.size === 0) return undefined;
    const body = (await (await sandbox.fetch(request)).json()) as {
      orders: { orderNumber: number; totals: Record<string, unknown> }[];
    };
    for (const order of body.orders) {
      const bad = poison.get(order.orderNumber);
      if (bad !== undefined) order.totals.order = bad;
    }
    return Response.json(body);
  });
  const first = s.sandbox.admin.placeOrder({ lines: 1 });
  const second = s.sandbox.admin.placeOrder({ lines: 1 });
  poison.set(first, "abc");
  poison.set(second, "1e999");

  const report = await s.mirror.sync();
  expect(report.ordersSeen).toBe(report.ordersAdded + 2);
  expect(report.ordersAdded).toBeGreaterThan(300);
  const kept = report.invalidOrders.map(({ orderNumber, field }) => ({ orderNumber, field }));
  expect(kept).toEqual([
    { orderNumber: first, field: "totals.order" },
    { orderNumber: second, field: "totals.order" },
  ]);
  for (const entry of report.invalidOrders)
    expect(entry.reason).toBe("text that is not a plain decimal");
  expect(await s.mirror.get(first)).toBeUndefined();
  const status = await s.mirror.status();
  expect(status.invalidOrders.map((e) => e.orderNumber)).toEqual([first, second]);
  expect(status.lastSweep).toMatchObject({ ok: true });
  const warned = log.calls.filter((c) => String(c[1]).includes("kept out: totals.order"));
  expect(warned.map((c) => (c[2] as { orderNumber: number }).orderNumber)).toEqual([first, second]);

  // Mended on the service: the next sweep stores both and the list empties.
  poison.clear();
  s.sandbox.clock.advance(20 * 60_000);
  const next = await s.mirror.sync();
  expect(next.ordersAdded).toBe(2);
  expect((await s.mirror.get(first))?.orderNumber).toBe(first);
  expect((await s.mirror.status()).invalidOrders).toEqual([]);
  await s.mirror.close();
  await s.sandbox.close();
});
