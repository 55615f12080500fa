import { describe, expect, it, vi } from "vitest";
import { Decimal } from "../../../src/core/money";
import { reviveItem, reviveOrder, reviveShipment } from "../../../src/sync/values";

// A spec that has gained money fields since this version: the mirror revives them from the
// generated table alone, with no list to edit by hand.
vi.mock("../../../src/generated/money", () => ({
  decimalFields: {
    getOrder: [
      ["totals.item", "string"],
      ["adjustments[].amount", "string"],
      ["refund.lines[].amount", "string"],
      ["dimensions.length", "string"],
    ],
    listOrderItems: [
      ["items[].lineTotal", "string"],
      ["items[].parts[].cost", "string"],
      ["summary.total", "string"],
    ],
    listOrderShipments: [["shipments[].postage", "string"]],
  },
}));

const text = (value: unknown) => (value instanceof Decimal ? `Decimal ${value.toFixed()}` : value);
/** The row with each Decimal written as `Decimal <text>`, to compare with a known answer. */
const shown = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(shown)
    : value && typeof value === "object" && !(value instanceof Decimal)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shown(v)]))
      : text(value);

describe("money fields the spec gains are revived from the generated table", () => {
  it("in an order, at any depth, in every element of a list", () => {
    const revived = reviveOrder({
      totals: { item: "1.10", tax: "2" },
      adjustments: [{ amount: "-0.5", reason: "promo" }, { amount: null }, "odd"],
      refund: { lines: [{ amount: "3" }] },
    });
    expect(shown(revived)).toStrictEqual({
      totals: { item: "Decimal 1.1", tax: "2" },
      adjustments: [{ amount: "Decimal -0.5", reason: "promo" }, { amount: null }, "odd"],
      refund: { lines: [{ amount: "Decimal 3" }] },
    });
  });

  it("leaves text where a holder of money was expected as it is, even for a field named length", () => {
    expect(reviveOrder({ dimensions: "10x20" })).toStrictEqual({ dimensions: "10x20" });
    expect(reviveOrder({ dimensions: null })).toStrictEqual({ dimensions: null });
    expect(shown(reviveOrder({ dimensions: { length: "2.5" } }))).toStrictEqual({
      dimensions: { length: "Decimal 2.5" },
    });
  });

  it("leaves a list that is null or not a list as it is", () => {
    expect(reviveOrder({ adjustments: null })).toStrictEqual({ adjustments: null });
    expect(reviveOrder({ adjustments: { amount: "1" } })).toStrictEqual({
      adjustments: { amount: "1" },
    });
    expect(reviveOrder({ refund: { lines: "1" } })).toStrictEqual({ refund: { lines: "1" } });
  });

  it("in a line, below the list it was listed in, and no field of the page around it", () => {
    const revived = reviveItem({
      lineTotal: "4",
      parts: [{ cost: "0.25" }],
      summary: { total: "9" },
      total: "9",
    });
    expect(shown(revived)).toStrictEqual({
      lineTotal: "Decimal 4",
      parts: [{ cost: "Decimal 0.25" }],
      summary: { total: "9" },
      total: "9",
    });
  });

  it("in a shipment, once the spec gives shipments money", () => {
    expect(shown(reviveShipment({ shipmentNumber: 1, postage: "6.5" }))).toStrictEqual({
      shipmentNumber: 1,
      postage: "Decimal 6.5",
    });
  });
});
