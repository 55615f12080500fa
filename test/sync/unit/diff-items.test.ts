import { describe, expect, it } from "vitest";
import { decide } from "../../../src/sync/diff";
import { change, seen, stored } from "./support";

const line = (itemNumber: unknown, extra: Record<string, unknown> = {}) => ({
  itemNumber,
  quantity: 2,
  lineTotal: "20.0000000000",
  cancelled: false,
  ...extra,
});

/** The changes of reading `items` after `before` was stored. */
const changes = (before: Record<string, unknown>[] | null, items: Record<string, unknown>[]) =>
  decide(stored({ items: before }), seen({ items }))?.changes;

describe("decide: the lines of an order", () => {
  // A change the mirror missed the moment of (it happened before the mirror first read the order)
  // is still reported once, so a consumer that reacts to cancellations never misses one.
  it("reports each line of a first read added, and one first seen cancelled cancelled too", () => {
    const cancelled = line(1, { cancelled: true });
    const open = line(2);
    expect(changes(null, [cancelled, open])).toStrictEqual([
      change("item.added", { item: cancelled }),
      change("item.cancelled", { item: cancelled }),
      change("item.added", { item: open }),
    ]);
  });

  it("reports the lines of a new order after the order", () => {
    const read = { orderNumber: 100001, siteId: 101, closed: false };
    const commit = decide(undefined, seen({ order: read, items: [line(1)] }));
    expect(commit?.changes.map((c) => c.type)).toEqual(["order.added", "item.added"]);
    expect(commit?.next.items).toEqual([line(1)]);
  });

  it("reports only the line that is new", () => {
    expect(changes([line(1)], [line(1), line(2)])).toStrictEqual([
      change("item.added", { item: line(2) }),
    ]);
  });

  it("names the fields of a line that moved, with their stored values", () => {
    const after = line(1, { quantity: 3, lineTotal: "30.0000000000" });
    expect(changes([line(1)], [after])).toStrictEqual([
      change("item.changed", {
        item: after,
        fields: ["quantity", "lineTotal"],
        previous: { quantity: 2, lineTotal: "20.0000000000" },
      }),
    ]);
  });

  it("reports a cancellation once, not also as a change of `cancelled`", () => {
    const after = line(1, { cancelled: true });
    expect(changes([line(1)], [after])).toStrictEqual([change("item.cancelled", { item: after })]);
    expect(changes([after], [after])).toStrictEqual([]);
  });

  it("still reports what else moved on a line as it was cancelled", () => {
    const after = line(1, { cancelled: true, quantity: 0 });
    expect(changes([line(1)], [after])).toStrictEqual([
      change("item.cancelled", { item: after }),
      change("item.changed", { item: after, fields: ["quantity"], previous: { quantity: 2 } }),
    ]);
  });

  it("reports a line that is no longer cancelled as a change of `cancelled`", () => {
    const before = line(1, { cancelled: true });
    expect(changes([before], [line(1)])).toStrictEqual([
      change("item.changed", {
        item: line(1),
        fields: ["cancelled"],
        previous: { cancelled: true },
      }),
    ]);
  });

  it("takes only `cancelled: true` as cancelled", () => {
    expect(changes([line(1)], [line(1, { cancelled: "true" })])).toStrictEqual([
      change("item.changed", {
        item: line(1, { cancelled: "true" }),
        fields: ["cancelled"],
        previous: { cancelled: false },
      }),
    ]);
  });

  // Lines never leave the list (a cancelled one stays), so there is nothing true to report.
  it("reports nothing for a stored line missing from the read, and stores the read", () => {
    const commit = decide(stored({ items: [line(1), line(2)] }), seen({ items: [line(2)] }));
    expect(commit?.changes).toStrictEqual([]);
    expect(commit?.next.items).toEqual([line(2)]);
  });

  it("pairs lines that share a number in list order, none compared twice", () => {
    const first = line(5, { quantity: 1 });
    const second = line(5, { quantity: 2 });
    expect(changes([first, second], [first, second])).toStrictEqual([]);
    const moved = line(5, { quantity: 3 });
    expect(changes([first, second], [first, moved])).toStrictEqual([
      change("item.changed", { item: moved, fields: ["quantity"], previous: { quantity: 2 } }),
    ]);
    expect(changes([first], [first, second])).toStrictEqual([
      change("item.added", { item: second }),
    ]);
  });

  it("pairs lines without a number in list order too", () => {
    const { itemNumber: _, ...bare } = line(0);
    const moved = { ...bare, quantity: 9 };
    expect(changes([bare, bare], [bare, moved])).toStrictEqual([
      change("item.changed", { item: moved, fields: ["quantity"], previous: { quantity: 2 } }),
    ]);
  });

  it("pairs no line of a first read with anything, a line without a number included", () => {
    const { itemNumber: _, ...bare } = line(0);
    expect(changes(null, [bare])).toStrictEqual([change("item.added", { item: bare })]);
  });

  it('keeps lines numbered 5 and "5" apart', () => {
    expect(changes([line(5)], [line("5")])).toStrictEqual([
      change("item.added", { item: line("5") }),
    ]);
  });
});
