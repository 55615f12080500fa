// @ts-nocheck
import type { Change } from "partner-orders/sync";
import { describe, expect, it } from "vitest";
import { setup } from "./support.js";

const MINUTE = 60_000;

/** Lets the mirror's loop work through what is due now (it runs on the sandbox's manual clock). */
async function settle(turns = 50) {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function until(check: () => Promise<boolean> | boolean) {
  for (let i = 0; i < 50_000; i++) {
    if (await check()) return;
    await settle(1);
  }
  throw new Error("never happened");
}

describe("OrderMirror.run", () => {
  it("with every webhook lost, finds a change within one open-order interval, and stops on abort", async () => {
    const s = setup(":memory:", { openOrderIntervalMs: 5 * MINUTE, sweepIntervalMs: 60 * MINUTE });
    const n = s.sandbox.admin.placeOrder({ lines: 1 });
    s.sandbox.admin.shipShipment(n, 1);
    const abort = new AbortController();
    const running = s.mirror.run({ signal: abort.signal });
    await until(async () => (await s.mirror.get(n))?.shipments.length === 1);

    const seen: Change[] = [];
    const watching = (async () => {
      for await (const change of s.mirror.changes({ signal: abort.signal })) seen.push(change);
    })();
    await settle();
    // Shipped silently: no webhook is registered, and the order's list row does not move.
    const shippedAt = s.sandbox.clock.now();
    s.sandbox.admin.shipShipment(n, 2, { packages: ["1ZLATE"] });
    for (let minute = 0; minute < 5 && !seen.length; minute++) {
      s.sandbox.clock.advance(MINUTE);
      await settle();
    }
    await until(() => seen.some((c) => c.type === "shipment.shipped"));
    const shipped = seen.find((c) => c.type === "shipment.shipped") as Change;
    expect(shipped).toMatchObject({ cause: "poll", orderNumber: n, trackingNumbers: ["1ZLATE"] });
    expect(Date.parse(shipped.observedAt) - shippedAt).toBeLessThanOrEqual(5 * MINUTE);

    abort.abort();
    await running;
    await watching;
    await s.mirror.close();
    await s.sandbox.close();
  });

  it("reads a webhook's change at the delivery, not at the next poll", async () => {
    const s = setup(":memory:", { openOrderIntervalMs: 5 * MINUTE });
    const n = s.sandbox.admin.placeOrder({ lines: 2 });
    await s.mirror.sync();
    s.sandbox.webhooks.register({
      url: "https://partner.example/hooks",
      fetch: async (request) => {
        const { parseWebhook } = await import("partner-orders/webhooks");
        await s.mirror.handleEvent(parseWebhook(await request.text()));
        return new Response(null, { status: 204 });
      },
    });
    const item = (await s.mirror.get(n))?.items[0]?.itemNumber as number;
    const at = s.sandbox.clock.now();
    s.sandbox.admin.cancelLine(n, item);
    await s.sandbox.webhooks.settled();
    const abort = new AbortController();
    const changes: Change[] = [];
    for await (const change of s.mirror.changes({ consumer: "c", signal: abort.signal })) {
      changes.push(change);
      if (change.type === "item.cancelled" && change.orderNumber === n) abort.abort();
    }
    const cancelled = changes.at(-1) as Change;
    expect(cancelled).toMatchObject({ type: "item.cancelled", cause: "webhook" });
    expect(Date.parse(cancelled.observedAt) - at).toBeLessThan(1_000);
    await s.mirror.close();
    await s.sandbox.close();
  });
});
