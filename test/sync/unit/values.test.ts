import { describe, expect, it } from "vitest";
import { Decimal } from "../../../src/core/money";
import { reviveItem, reviveOrder, reviveShipment, storable } from "../../../src/sync/values";

/** The decimal text of a revived value, or the value itself when it was not revived. */
const text = (value: unknown) => (value instanceof Decimal ? `Decimal ${value.toFixed()}` : value);

describe("storable: what the store keeps", () => {
  it("writes money as its exact decimal text, never with an exponent or through a float", () => {
    const row = storable({
      totals: {
        item: new Decimal("12345678901234567890.0000000001"),
        shipping: new Decimal("1e21"),
        tax: new Decimal("1e-7"),
        order: null,
      },
      lines: [new Decimal("-3.10"), new Decimal("0.1")],
    });
    expect(row).toStrictEqual({
      totals: {
        item: "12345678901234567890.0000000001",
        shipping: "1000000000000000000000",
        tax: "0.0000001",
        order: null,
      },
      lines: ["-3.1", "0.1"],
    });
  });

  it("keeps every other value as JSON has it, unknown fields included", () => {
    const row = storable({
      orderNumber: 100001,
      status: "In Production",
      closed: false,
      placedOn: new Date("2026-03-01T12:00:00.000Z"),
      tags: ["a", 1, null],
      somethingNew: { nested: true },
      dropped: undefined,
    });
    expect(row).toStrictEqual({
      orderNumber: 100001,
      status: "In Production",
      closed: false,
      placedOn: "2026-03-01T12:00:00.000Z",
      tags: ["a", 1, null],
      somethingNew: { nested: true },
    });
  });
});

describe("storable: the one walk gives what a JSON round trip gives", () => {
  /** The round trip storable stands for: JSON, money as its exact decimal text. */
  const roundTrip = (value: unknown) =>
    JSON.parse(
      JSON.stringify(value, function (this: Record<string, unknown>, key: string, json: unknown) {
        const raw = this[key];
        return raw instanceof Decimal ? raw.toFixed() : json;
      }),
    );

  class Tagged {
    kind = "tagged";
    get hidden() {
      return "not an own field";
    }
  }
  const cases: [string, unknown][] = [
    ["numbers JSON cannot hold", { a: Number.NaN, b: [Number.POSITIVE_INFINITY, -0], c: 1.5 }],
    [
      "undefined, functions and symbols",
      { a: undefined, b: () => 1, c: Symbol("s"), d: [undefined, () => 1, Symbol("t")] },
    ],
    ["a null-prototype object", Object.assign(Object.create(null), { a: 1, b: { c: "d" } })],
    [
      "a __proto__ field as JSON.parse makes it",
      JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'),
    ],
    [
      "a toJSON of its own",
      { a: { toJSON: () => ({ made: "by toJSON" }) }, b: new Decimal("2.50") },
    ],
    ["a class instance", { a: new Tagged(), b: new Map([["k", 1]]) }],
    ["a Date in a list", { a: [new Date("2026-03-01T12:00:00.000Z"), new Decimal("1e-7")] }],
    ["integer-like keys", { b: 1, 2: "two", a: 3, 1: "one" }],
    ["a list with a toJSON of its own", { a: Object.assign([1, 2], { toJSON: () => "made" }) }],
    ["a list of another class", { a: new (class Listed extends Array {})() }],
    ["a holed list", { a: Object.assign(new Array(3), { 0: 1, 2: 3 }) }],
    ["deep rows", { items: [{ lineTotal: new Decimal("10.00"), tags: [[null, true, "x"]] }] }],
  ];
  it.each(cases)("%s", (_name, value) => {
    const row = storable(value);
    expect(row).toStrictEqual(roundTrip(value));
    expect(JSON.stringify(row)).toBe(JSON.stringify(roundTrip(value)));
    expect(Object.getPrototypeOf({ ...row })).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("gives a copy: changing the stored row leaves the client's row alone", () => {
    const client = { orderNumber: 1, totals: { order: new Decimal("3.10") }, tags: ["a"] };
    const row = storable(client) as { totals: Record<string, unknown>; tags: string[] };
    row.totals.order = "changed";
    row.tags.push("b");
    expect(client.totals.order).toBeInstanceOf(Decimal);
    expect(client.tags).toEqual(["a"]);
  });

  it("refuses a bigint as JSON does, rather than storing something else", () => {
    expect(() => storable({ a: 1n })).toThrow(TypeError);
  });

  it("refuses undefined on its own as the round trip does, rather than giving undefined", () => {
    expect(() => storable(undefined)).toThrow(SyntaxError);
  });
});

describe("reviveOrder: a stored order as the client gives it", () => {
  it("makes each of the four totals a Decimal of the exact stored text, null staying null", () => {
    const row = {
      orderNumber: 100001,
      totals: { item: "12345678901234567890.0000000001", shipping: "-0.5", tax: null, order: "7" },
    };
    const revived = reviveOrder<{ totals: Record<string, unknown> }>(row);
    expect(
      Object.fromEntries(Object.entries(revived.totals).map(([k, v]) => [k, text(v)])),
    ).toEqual({
      item: "Decimal 12345678901234567890.0000000001",
      shipping: "Decimal -0.5",
      tax: null,
      order: "Decimal 7",
    });
    expect(revived.totals.item).toBeInstanceOf(Decimal);
  });

  it("passes unknown fields through, in and beside the totals, and leaves the stored row alone", () => {
    const row = {
      orderNumber: 100001,
      somethingNew: "kept",
      totals: { item: "1.5", currency: "USD", discount: "0.5" },
    };
    const copy = structuredClone(row);
    const revived = reviveOrder<Record<string, unknown>>(row);
    expect(revived.orderNumber).toBe(100001);
    expect(revived.somethingNew).toBe("kept");
    const totals = revived.totals as Record<string, unknown>;
    expect(Object.keys(totals)).toEqual(["item", "currency", "discount"]);
    expect(text(totals.item)).toBe("Decimal 1.5");
    expect(totals.currency).toBe("USD");
    expect(totals.discount).toBe("0.5");
    expect(row).toStrictEqual(copy);
  });

  it("adds no total the row did not have", () => {
    const revived = reviveOrder<Record<string, unknown>>({ totals: { tax: "1" } });
    expect(Object.keys(revived.totals as object)).toEqual(["tax"]);
  });

  it.each([
    ["missing", {}],
    ["null", { totals: null }],
    ["text", { totals: "12.5" }],
  ])("leaves an order whose totals are %s as stored", (_, row) => {
    expect(reviveOrder(row)).toStrictEqual(row);
  });

  it("leaves a total that is not text as it is", () => {
    const revived = reviveOrder<{ totals: Record<string, unknown> }>({
      totals: { item: 12.5, shipping: true },
    });
    expect(revived.totals).toStrictEqual({ item: 12.5, shipping: true });
  });
});

describe("reviveItem: a stored line as the client gives it", () => {
  it("makes both line amounts a Decimal of the exact stored text, null staying null", () => {
    const revived = reviveItem<Record<string, unknown>>({
      itemNumber: 1,
      lineListTotal: "0.1000000001",
      lineTotal: null,
      sku: null,
      somethingNew: "kept",
    });
    expect(Object.fromEntries(Object.entries(revived).map(([k, v]) => [k, text(v)]))).toEqual({
      itemNumber: 1,
      lineListTotal: "Decimal 0.1000000001",
      lineTotal: null,
      sku: null,
      somethingNew: "kept",
    });
  });

  it("revives one amount when the other is absent, and adds none", () => {
    const revived = reviveItem<Record<string, unknown>>({ itemNumber: 1, lineTotal: "30" });
    expect(Object.keys(revived)).toEqual(["itemNumber", "lineTotal"]);
    expect(text(revived.lineTotal)).toBe("Decimal 30");
  });

  it("leaves the stored line alone", () => {
    const row = { itemNumber: 1, lineTotal: "30" };
    reviveItem(row);
    expect(row).toStrictEqual({ itemNumber: 1, lineTotal: "30" });
  });
});

describe("reviveShipment: a stored shipment as the client gives it", () => {
  it("has no money today, so every field stays as stored", () => {
    const row = { shipmentNumber: 1, trackingNumbers: ["1Z999"], weight: "1.5" };
    expect(reviveShipment(row)).toStrictEqual(row);
  });
});
