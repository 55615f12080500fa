import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { decide } from "../../../src/sync/diff";
import { change, NEXT_POLL, order, seen, stored } from "./support";

// Errors rule 4 of the API document: a 404 `order_not_found` is no proof the order is gone, so
// nothing is deleted or marked cancelled; the order is kept and flagged.
describe("decide: an order that answers 404", () => {
  it("stored is flagged once, and not polled until something names it", () => {
    const before = stored({ items: [{ itemNumber: 1 }], seenInSweep: 4 });
    expect(decide(before, seen({ order: "gone", sweep: 9 }))).toStrictEqual({
      next: { ...before, unresolvable: true, nextPollAt: null },
      changes: [change("order.unresolvable")],
    });
  });

  it("stored under another site is flagged under that site", () => {
    const commit = decide(stored({ siteId: 102 }), seen({ order: "gone" }));
    expect(commit?.changes).toStrictEqual([change("order.unresolvable", {}, 102)]);
  });

  it("already flagged writes nothing", () => {
    expect(decide(stored({ unresolvable: true }), seen({ order: "gone" }))).toBeUndefined();
    const listed = order({ status: "Shipped" });
    expect(decide(stored({ unresolvable: true }), seen({ order: "gone", listed }))).toBeUndefined();
  });

  it("never stored, and not listed, writes nothing", () => {
    expect(decide(undefined, seen({ order: "gone" }))).toBeUndefined();
    expect(decide(undefined, seen({ order: "gone", items: [], shipments: [] }))).toBeUndefined();
  });

  it("stored keeps its stored row when the list shows another", () => {
    const before = stored();
    const listed = order({ status: "Shipped" });
    expect(decide(before, seen({ order: "gone", listed }))).toStrictEqual({
      next: { ...before, unresolvable: true, nextPollAt: null },
      changes: [change("order.unresolvable")],
    });
  });

  it("listed but never stored is stored as listed, added, then flagged", () => {
    const listed = order({ closed: true });
    expect(decide(undefined, seen({ order: "gone", listed, sweep: 8 }))).toStrictEqual({
      next: {
        orderNumber: 100001,
        siteId: 101,
        order: listed,
        items: null,
        shipments: null,
        closed: true,
        unresolvable: true,
        nextPollAt: null,
        seenInSweep: 8,
      },
      changes: [change("order.added", { order: listed }), change("order.unresolvable")],
    });
  });

  it("listed, open, outside a sweep, and with parts in hand, keeps to the listed row", () => {
    const listed = order({ siteId: 105 });
    const commit = decide(
      undefined,
      seen({ order: "gone", listed, items: [{ itemNumber: 1 }], shipments: [] }),
    );
    expect(commit?.next).toStrictEqual({
      orderNumber: 100001,
      siteId: 105,
      order: listed,
      items: null,
      shipments: null,
      closed: false,
      unresolvable: true,
      nextPollAt: null,
      seenInSweep: 0,
    });
    expect(commit?.changes.map((c) => [c.type, c.siteId])).toEqual([
      ["order.added", 105],
      ["order.unresolvable", 105],
    ]);
  });

  it("listed as something that is not a row writes nothing", () => {
    for (const listed of [null, [], "order"]) {
      const bad = listed as unknown as Record<string, unknown>;
      expect(decide(undefined, seen({ order: "gone", listed: bad }))).toBeUndefined();
    }
  });

  it("listed without a site is refused, not filed under NaN", () => {
    const listed = order({ siteId: undefined });
    expect(() => decide(undefined, seen({ order: "gone", listed }))).toThrow(PartnerOrdersError);
  });
});

describe("decide: a flagged order that answers again", () => {
  it("read whole is restored, as read, its flag cleared and its polls resumed", () => {
    const before = stored({ unresolvable: true, nextPollAt: null });
    expect(decide(before, seen({ order: order(), sweep: 9 }))).toStrictEqual({
      next: { ...before, unresolvable: false, nextPollAt: NEXT_POLL, seenInSweep: 9 },
      changes: [change("order.restored", { order: order() })],
    });
  });

  it("read with other values is restored first, then changed", () => {
    const after = order({ status: "Shipped" });
    const commit = decide(stored({ unresolvable: true }), seen({ order: after }));
    expect(commit?.changes).toStrictEqual([
      change("order.restored", { order: after }),
      change("order.changed", {
        order: after,
        fields: ["status"],
        previous: { status: "In Production" },
      }),
    ]);
  });

  it("read for its items alone is restored with the stored order", () => {
    const before = stored({ unresolvable: true, order: order({ status: "Held" }) });
    const items = [{ itemNumber: 1 }];
    const commit = decide(before, seen({ items }));
    expect(commit?.changes).toStrictEqual([
      change("order.restored", { order: order({ status: "Held" }) }),
      change("item.added", { item: { itemNumber: 1 } }),
    ]);
    expect(commit?.next.unresolvable).toBe(false);
  });

  it("read for its shipments alone is restored too", () => {
    const commit = decide(stored({ unresolvable: true }), seen({ shipments: [] }));
    expect(commit?.changes).toStrictEqual([change("order.restored", { order: order() })]);
    expect(commit?.next.unresolvable).toBe(false);
  });

  it("stays flagged when nothing came back", () => {
    expect(decide(stored({ unresolvable: true }), seen({}))).toBeUndefined();
  });
});
