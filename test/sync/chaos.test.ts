import { describe, expect, it } from "vitest";
import { missedOrRepeated, reported, runChaos } from "../support/chaos.js";

/**
 * Correctness under chaos (issue: the order mirror), at a size the suite can afford: 120 orders, a
 * simulated day in 15-minute steps. `npm run bench:sync` runs the same at the size.
 */
describe("the mirror under chaos", () => {
  it("converges on the service and reports every change once", async () => {
    const result = await runChaos({
      orders: 120,
      steps: 96,
      stepMs: 15 * 60_000,
      changesPerStep: 3,
    });
    expect(result.resumedWithCursor).toBe(true);

    // Field by field, every order the service lists.
    for (const { orderNumber, mirrored, served } of result.compared) {
      expect(mirrored, `order ${orderNumber}`).toEqual({
        ...(served as object),
        unresolvable: false,
      });
    }
    const h = result.history;
    expect(h.shipped.length).toBeGreaterThan(20);
    expect(h.hidden.length).toBeGreaterThan(0);
    for (const hidden of result.hiddenInMirror) expect(hidden?.unresolvable).toBe(true);

    // Every change of the world reported exactly once; nothing flagged but by a 404.
    expect(missedOrRepeated(result)).toEqual([]);
    // Nothing invented: no shipment or line change on the world's orders that the world did not make.
    const r = reported(result.outbox);
    const worldOrders = new Set(h.placed.map(String));
    const ours = (m: Map<string, number>) =>
      [...m.keys()].filter((k) => worldOrders.has(k.split(":")[0] as string)).sort();
    expect(ours(r.shipped)).toEqual([...h.shipped].sort());
    expect(ours(r.cancelled)).toEqual([...h.cancelled].sort());

    // A consumer reads every change once, in id order.
    expect(result.consumed).toEqual(result.outbox.map((row) => row.id));
  }, 120_000);
});
