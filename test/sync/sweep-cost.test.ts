import { afterEach, describe, expect, it } from "vitest";
import { listed, setup } from "./support.js";

/** A sweep's cost: what the list shows unchanged costs nothing beyond the list page itself. */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("a sweep over several pages", () => {
  it("reads no closed order again, wherever it sits on the list, the last page included", async () => {
    const s = setup();
    cleanups.push(
      () => s.mirror.close(),
      () => s.sandbox.close(),
    );
    for (let i = 0; i < 450; i++) s.sandbox.admin.placeOrder({ lines: 1 });
    const numbers = await listed(s.client);
    const pages = Math.ceil(numbers.length / 200);
    expect(pages).toBeGreaterThanOrEqual(3);
    // Every order closed, so only a list row that changed could justify a read.
    for (const n of numbers) s.sandbox.admin.setOrderStatus(n, "Delivered");
    const first = await s.mirror.sync();
    expect(first.ordersAdded).toBe(numbers.length);

    // A closed order is read once more after it closes (late changes settle), then never again
    // without a webhook or refresh().
    s.sandbox.clock.advance(16 * 60_000);
    await s.mirror.sync();
    for (let round = 0; round < 3; round++) {
      const before = s.sandbox.requests.length;
      s.sandbox.clock.advance(16 * 60_000);
      const again = await s.mirror.sync();
      const reads = s.sandbox.requests
        .slice(before)
        .filter((r) => /\/v1\/orders\/\d+/.test(r.path));
      expect(reads.map((r) => r.path)).toEqual([]);
      expect(again.itemsReread + again.shipmentsReread).toBe(0);
      expect(again.requests).toBe(pages);
      expect(s.sandbox.requests.slice(before).filter((r) => r.path === "/v1/orders")).toHaveLength(
        pages,
      );
    }
  }, 120_000);
});
