import type { Change } from "partner-orders/sync";
import { createWorld } from "partner-orders/testing";
import { parseWebhook } from "partner-orders/webhooks";
import { describe, expect, it } from "vitest";
import { setup } from "./support.js";

const MINUTE = 60_000;

async function settle(turns = 60) {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * End to end on the sandbox (manual clock): run() with webhooks delivered polls quiet open orders
 * less often; once webhooks are lost, the first announceable change a poll finds unannounced brings
 * every open order back to openOrderIntervalMs, and the next changes are found within it.
 */
describe("OrderMirror.run: polling follows webhook health", () => {
  it("relaxes with webhooks delivered, tightens on the first change found unannounced", async () => {
    const s = setup(":memory:", {
      openOrderIntervalMs: 5 * MINUTE,
      sweepIntervalMs: 15 * MINUTE,
      maxOpenOrderIntervalMs: 60 * MINUTE,
    });
    // Only the world's orders are open: the sandbox's seeded ones are closed.
    for (let n = 100_001; n <= 100_320; n++)
      s.sandbox.admin.setOrderStatus(n, "Delivered", { closed: true });
    const world = createWorld(s.sandbox, { seed: 5 });
    await world.place(20);
    let deliver = true;
    s.sandbox.webhooks.register({
      url: "https://partner.example/hooks",
      fetch: async (request) => {
        const event = parseWebhook(await request.text());
        if (deliver) await s.mirror.handleEvent(event);
        return new Response(null, { status: 204 });
      },
    });
    await s.mirror.sync();
    const abort = new AbortController();
    const running = s.mirror.run({ signal: abort.signal });
    const seen: Change[] = [];
    const watching = (async () => {
      for await (const c of s.mirror.changes({ signal: abort.signal })) seen.push(c);
    })();
    const minutes = async (n: number, each?: (minute: number) => Promise<void>) => {
      for (let m = 0; m < n; m++) {
        await each?.(m);
        s.sandbox.clock.advance(MINUTE);
        await settle();
      }
    };
    const itemsReads = () =>
      Object.entries(s.sandbox.counters.requests)
        .filter(([route]) => route.includes("/items"))
        .reduce((sum, [, n]) => sum + n, 0);

    // Three hours with a webhook every 20 minutes: the orders go quiet, and are polled less.
    let quietPolls = 0;
    await minutes(180, async (m) => {
      if (m % 20 === 0) {
        const o = world.openOrders[m % world.openOrders.length] as number;
        s.sandbox.admin.setOrderStatus(o, "On Hold");
        await s.sandbox.webhooks.settled();
      }
      if (m === 120) s.sandbox.resetCounters();
    });
    quietPolls = itemsReads();
    expect((await s.mirror.status()).webhookHealth.state).toBe("healthy");
    // The last hour: 20 open orders every 5 min would be 240 reads of items; relaxed, one each (the
    // status changes were read by their webhooks), and none skipped: the hour is the promise.
    expect(quietPolls).toBe(20);

    // Webhooks lost from now on. A line cancelled silently is found by a poll, at worst within the
    // longest interval; it tightens.
    deliver = false;
    const target = world.openOrders[0] as number;
    const item = (await s.mirror.get(target))?.items[0]?.itemNumber as number;
    const cancelledAt = s.sandbox.clock.now();
    s.sandbox.admin.cancelLine(target, item);
    await s.sandbox.webhooks.settled();
    await minutes(61);
    const cancelled = seen.find((c) => c.type === "item.cancelled" && c.orderNumber === target);
    expect(cancelled).toMatchObject({ cause: "poll" });
    expect(Date.parse((cancelled as Change).observedAt) - cancelledAt).toBeLessThanOrEqual(
      60 * MINUTE,
    );
    expect(await s.mirror.status()).toMatchObject({
      webhookHealth: { state: "degraded", reason: "unannounced" },
      pollIntervalMs: 5 * MINUTE,
    });

    // From now on a shipment shipped silently, on any open order, is found within 5 minutes.
    await minutes(10);
    for (const o of world.openOrders.slice(1, 4)) {
      const shippedAt = s.sandbox.clock.now();
      s.sandbox.admin.shipShipment(o, 7);
      await minutes(5);
      const shipped = seen.find((c) => c.type === "shipment.shipped" && c.orderNumber === o);
      expect(shipped, `order ${o}`).toBeDefined();
      expect(Date.parse((shipped as Change).observedAt) - shippedAt).toBeLessThanOrEqual(
        5 * MINUTE,
      );
    }

    abort.abort();
    await running;
    await watching;
    await s.mirror.close();
    await s.sandbox.close();
  }, 120_000);
});
