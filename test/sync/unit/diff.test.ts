import { describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { decide, sameJson } from "../../../src/sync/diff";
import { AT, change, NEXT_POLL, order, seen, stored } from "./support";

describe("decide: an order read for the first time", () => {
  it("is stored with nothing else read yet, and reported added", () => {
    const read = order();
    expect(decide(undefined, seen({ order: read, sweep: 7 }))).toStrictEqual({
      next: {
        orderNumber: 100001,
        siteId: 101,
        order: read,
        items: null,
        shipments: null,
        closed: false,
        unresolvable: false,
        nextPollAt: NEXT_POLL,
        seenInSweep: 7,
      },
      changes: [
        {
          orderNumber: 100001,
          observedAt: AT,
          cause: "sweep",
          siteId: 101,
          type: "order.added",
          order: read,
        },
      ],
    });
  });

  it("carries the cause and time of the read that found it", () => {
    const commit = decide(
      undefined,
      seen({ order: order(), cause: "webhook", observedAt: "2026-03-02T08:30:00.000Z" }),
    );
    expect(commit?.changes[0]).toStrictEqual({
      orderNumber: 100001,
      observedAt: "2026-03-02T08:30:00.000Z",
      cause: "webhook",
      siteId: 101,
      type: "order.added",
      order: order(),
    });
  });

  it("gives each change the common fields first, then its own, in that order", () => {
    const commit = decide(
      undefined,
      seen({ order: order(), items: [{ itemNumber: 1, cancelled: true }], shipments: [] }),
    );
    expect(commit?.changes.map((c) => Object.keys(c))).toEqual([
      ["orderNumber", "observedAt", "cause", "siteId", "type", "order"],
      ["orderNumber", "observedAt", "cause", "siteId", "type", "item"],
      ["orderNumber", "observedAt", "cause", "siteId", "type", "item"],
    ]);
    expect(Object.getPrototypeOf(commit?.changes[0])).toBe(Object.prototype);
  });

  it("is not stored from its items or shipments alone: it is read whole first", () => {
    expect(decide(undefined, seen({ items: [{ itemNumber: 1 }] }))).toBeUndefined();
    expect(decide(undefined, seen({ shipments: [{ shipmentNumber: 1 }] }))).toBeUndefined();
    expect(decide(undefined, seen({}))).toBeUndefined();
  });

  it("is closed only when `closed` is true, and scheduled from that", () => {
    const calls: unknown[][] = [];
    const nextPollAt = (closed: boolean, wasClosed: boolean | undefined) => {
      calls.push([closed, wasClosed]);
      return closed ? null : 42;
    };
    const closedOne = decide(undefined, seen({ order: order({ closed: true }), nextPollAt }));
    const odd = decide(undefined, seen({ order: order({ closed: "true" }), nextPollAt }));
    expect([closedOne?.next.closed, closedOne?.next.nextPollAt]).toEqual([true, null]);
    expect([odd?.next.closed, odd?.next.nextPollAt]).toEqual([false, 42]);
    expect(calls).toEqual([
      [true, undefined],
      [false, undefined],
    ]);
  });

  it("counts as seen in no sweep when no sweep read it", () => {
    expect(decide(undefined, seen({ order: order() }))?.next.seenInSweep).toBe(0);
  });
});

describe("decide: an order read again", () => {
  it("that is the same writes its row again with no change", () => {
    const commit = decide(stored(), seen({ order: order(), sweep: 9 }));
    expect(commit).toStrictEqual({
      next: { ...stored(), nextPollAt: NEXT_POLL, seenInSweep: 9 },
      changes: [],
    });
  });

  it("names the fields that moved, appeared or went, with their stored values", () => {
    const before = order({ purchaseOrder: "PO-1" });
    const { purchaseOrder: _, ...rest } = before;
    const after = { ...rest, status: "Shipped", projectName: "Spring" };
    const commit = decide(stored({ order: before }), seen({ order: after }));
    expect(commit?.changes).toStrictEqual([
      change("order.changed", {
        order: after,
        fields: ["status", "purchaseOrder", "projectName"],
        previous: { status: "In Production", purchaseOrder: "PO-1", projectName: null },
      }),
    ]);
    expect(commit?.next.order).toBe(after);
  });

  it("reports a nested value by its top-level field, with the whole stored value", () => {
    const after = order({
      totals: { item: "10.0000000000", shipping: "2.5", tax: null, order: null },
    });
    expect(decide(stored(), seen({ order: after }))?.changes).toStrictEqual([
      change("order.changed", {
        order: after,
        fields: ["totals"],
        previous: {
          totals: { item: "10.0000000000", shipping: "2.5000000000", tax: null, order: null },
        },
      }),
    ]);
  });

  it("ignores the order of an object's keys, as a jsonb column gives them back", () => {
    const before = {
      totals: { order: null, tax: null, shipping: "2.5000000000", item: "10.0000000000" },
      closed: false,
      siteId: 101,
      status: "In Production",
      orderNumber: 100001,
    };
    expect(decide(stored({ order: before }), seen({ order: order() }))?.changes).toEqual([]);
  });

  it.each([
    ["a list in another order", ["a", "b"], ["b", "a"]],
    ["a longer list", ["a"], ["a", "b"]],
    ["a shorter list", ["a", "b"], ["a"]],
    ["a list for an object with its indexes as keys", { 0: "a" }, ["a"]],
    ["an object for a list", ["a"], { 0: "a" }],
    ["an object with one key more", { a: 1 }, { a: 1, b: 2 }],
    ["an object with one key less", { a: 1, b: 2 }, { a: 1 }],
    ["an object with another key", { a: 1 }, { b: 1 }],
    ["a nested value", { a: { b: [1, { c: 2 }] } }, { a: { b: [1, { c: 3 }] } }],
    ["null for an empty object", {}, null],
    ["an empty object for null", null, {}],
    ["text for a number", 1, "1"],
    ["false for null", null, false],
    ["a null field for an absent one", undefined, null],
  ])("tells %s from the stored value", (_, before, after) => {
    const commit = decide(
      stored({ order: order({ tags: before }) }),
      seen({ order: order({ tags: after }) }),
    );
    expect(commit?.changes.map((c) => "fields" in c && c.fields)).toEqual([["tags"]]);
  });

  it("tells a field named __proto__ from another field", () => {
    const before = JSON.parse('{"orderNumber":100001,"siteId":101,"extra":{"__proto__":{}}}');
    const after = { orderNumber: 100001, siteId: 101, extra: { other: {} } };
    const commit = decide(stored({ order: before }), seen({ order: after }));
    expect(commit?.changes.map((c) => "fields" in c && c.fields)).toEqual([["extra"]]);
  });

  it("files the row under the site the order now names", () => {
    const after = order({ siteId: 102 });
    const commit = decide(stored(), seen({ order: after }));
    expect(commit?.next.siteId).toBe(102);
    expect(commit?.changes).toStrictEqual([
      change("order.changed", { order: after, fields: ["siteId"], previous: { siteId: 101 } }, 102),
    ]);
  });

  it("keeps the stored site when the order names none it can be filed under", () => {
    for (const siteId of [undefined, null, "101", 1.5, Number.NaN]) {
      const commit = decide(stored({ siteId: 103 }), seen({ order: order({ siteId }) }));
      expect(commit?.next.siteId).toBe(103);
      expect(commit?.changes[0]?.siteId).toBe(103);
    }
  });

  it("refuses to store a new order without a whole-number site, rather than file it under NaN", () => {
    for (const siteId of [undefined, "101", 1.5]) {
      let thrown: unknown;
      try {
        decide(undefined, seen({ order: order({ siteId }) }));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(PartnerOrdersError);
      expect((thrown as Error).message).toBe(
        "Order 100001 was read without a whole-number siteId, so it is not stored; it is read again on the next sweep.",
      );
    }
  });

  it("schedules the next poll from whether the order is closed now and was before", () => {
    const calls: unknown[][] = [];
    const nextPollAt = (closed: boolean, wasClosed: boolean | undefined) => {
      calls.push([closed, wasClosed]);
      return 77;
    };
    const commit = decide(
      stored({ closed: true }),
      seen({ order: order({ closed: false }), nextPollAt }),
    );
    expect(commit?.next.nextPollAt).toBe(77);
    expect(commit?.next.closed).toBe(false);
    expect(calls).toEqual([[false, true]]);
  });

  it("keeps the sweep that last saw it when no sweep read it", () => {
    expect(decide(stored({ seenInSweep: 5 }), seen({ order: order() }))?.next.seenInSweep).toBe(5);
  });

  it("keeps the parts not read this time as stored", () => {
    const items = [{ itemNumber: 1, quantity: 2 }];
    const shipments = [{ shipmentNumber: 1, shippedOn: null }];
    const base = stored({ items, shipments });
    const onlyOrder = decide(base, seen({ order: order() }));
    expect([onlyOrder?.next.items, onlyOrder?.next.shipments]).toEqual([items, shipments]);
    const onlyItems = decide(base, seen({ items: [{ itemNumber: 1, quantity: 2 }] }));
    expect([onlyItems?.next.order, onlyItems?.next.shipments]).toEqual([base.order, shipments]);
    const onlyShipments = decide(base, seen({ shipments: [] }));
    expect([onlyShipments?.next.items, onlyShipments?.next.shipments]).toEqual([items, []]);
  });

  it("writes nothing when nothing was read", () => {
    expect(decide(stored(), seen({ sweep: 9 }))).toBeUndefined();
  });

  it.each([
    ["null", null],
    ["an object", { itemNumber: 1 }],
    ["text", "[]"],
    ["a list holding something that is not a row", [{ itemNumber: 1 }, null]],
    ["a list holding a list", [[]]],
    ["a list holding a number", [1]],
  ])("takes items or shipments that are %s as not read", (_, value) => {
    const items = [{ itemNumber: 1, quantity: 2 }];
    const shipments = [{ shipmentNumber: 1, shippedOn: null }];
    const base = stored({ items, shipments });
    const bad = value as unknown as Record<string, unknown>[];
    const commit = decide(base, seen({ order: order(), items: bad, shipments: bad }));
    expect(commit).toStrictEqual({
      next: { ...base, nextPollAt: NEXT_POLL },
      changes: [],
    });
    expect(decide(base, seen({ items: bad, shipments: bad }))).toBeUndefined();
  });

  it.each([
    ["null", null],
    ["a list", []],
    ["text", "{}"],
  ])("takes an order that is %s as not read", (_, value) => {
    const bad = value as unknown as Record<string, unknown>;
    expect(decide(stored(), seen({ order: bad }))).toBeUndefined();
    expect(decide(undefined, seen({ order: bad, items: [] }))).toBeUndefined();
  });
});

describe("sameJson: whether a stored row and a row read are the same", () => {
  it("is true for the same values with keys in another order, at any depth", () => {
    const listed = { orderNumber: 1, totals: { item: "1.5", tax: null }, tags: [{ a: 1, b: 2 }] };
    const fromJsonb = {
      tags: [{ b: 2, a: 1 }],
      totals: { tax: null, item: "1.5" },
      orderNumber: 1,
    };
    expect(sameJson(listed, fromJsonb)).toBe(true);
  });

  it("is false when a value, a key or the order of a list differs", () => {
    expect(sameJson({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameJson({ a: 1 }, { b: 1 })).toBe(false);
    expect(sameJson({ a: { b: "1.5" } }, { a: { b: "1.50" } })).toBe(false);
  });
});
