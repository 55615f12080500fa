// @ts-nocheck
import { describe, expect, it } from "vitest";
import { decide, type Observation } from "../../src/sync/diff";

const seen = (extra: Partial<Observation>): Observation => ({
  orderNumber: 100001,
  cause: "sweep",
  observedAt: "2026-01-01T00:00:00Z",
  nextPollAt: () => null,
  ...extra,
});
const order = { orderNumber: 100001, siteId: 101, closed: false };
const types = (commit: ReturnType<typeof decide>) => commit?.changes.map((c) => c.type);

describe("decide: what a first read reports", () => {
  // A change the mirror missed the moment of (it happened before the mirror first read the order)
  // is still reported once, so a consumer that reacts to cancellations or shipments never misses one.
  it("a line first seen cancelled is added and cancelled", () => {
    const items = [
      { itemNumber: 1, cancelled: true },
      { itemNumber: 2, cancelled: false },
    ];
    expect(types(decide(undefined, seen({ order, items })))).toEqual([
      "order.added",
      "item.added",
      "item.cancelled",
      "item.added",
    ]);
  });

  it("a shipment first seen shipped is added and shipped", () => {
    const shipments = [{ shipmentNumber: 7, shippedOn: "2026-01-01", trackingNumbers: ["1Z"] }];
    expect(types(decide(undefined, seen({ order, shipments })))).toEqual([
      "order.added",
      "shipment.added",
      "shipment.shipped",
    ]);
  });
});
