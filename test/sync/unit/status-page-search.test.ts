import { describe, expect, it } from "vitest";
import type { OrderQuery } from "../../../src/sync/query";
import { SEARCH_LIMIT, searchOrders } from "../../../src/sync/status-page/search";
import type { MirroredOrder } from "../../../src/sync/types";

/** A stored order as the mirror gives it back, with only what the search reads. */
const order = (orderNumber: number, extra: Record<string, unknown> = {}) =>
  ({ orderNumber, unresolvable: false, ...extra }) as unknown as MirroredOrder;

/** A mirror over `orders` that answers exact matches and records what it was asked. */
function mirrorOf(orders: MirroredOrder[]) {
  const gets: number[] = [];
  const queries: OrderQuery[] = [];
  return {
    gets,
    queries,
    async get(n: number) {
      gets.push(n);
      return orders.find((o) => o.orderNumber === n);
    },
    async *orders(query: OrderQuery = {}) {
      queries.push(query);
      const matching = orders.filter(
        (o) =>
          (query.status === undefined || o.status === query.status) &&
          (query.partnerOrderId === undefined || o.partnerOrderId === query.partnerOrderId),
      );
      yield* matching.slice(0, query.limit);
    },
  };
}

describe("the status page's order search", () => {
  it("finds by number, partner order id and status at once, each order once, by number", async () => {
    const m = mirrorOf([
      order(300, { status: "Held" }),
      order(7, { partnerOrderId: "300" }),
      order(12, { status: "300" }),
    ]);
    const found = await searchOrders(m, "300");
    expect(found.orders.map((o) => o.orderNumber)).toEqual([7, 12, 300]);
    expect(found.more).toBe(false);
    expect(m.gets).toEqual([300]);
    expect(m.queries).toEqual([
      { partnerOrderId: "300", limit: SEARCH_LIMIT + 1 },
      { status: "300", limit: SEARCH_LIMIT + 1 },
    ]);
    // Found by number and by status: listed once.
    const twice = mirrorOf([order(5, { status: "5" })]);
    expect((await searchOrders(twice, "5")).orders).toHaveLength(1);
  });

  it("reads an order number only for text of 1 to 15 digits", async () => {
    for (const q of ["1e3", "12a", "a12", "-5", "1".repeat(16), "Held"]) {
      const m = mirrorOf([]);
      await searchOrders(m, q);
      expect(m.gets, q).toEqual([]);
    }
    const m = mirrorOf([order(1)]);
    expect((await searchOrders(m, "9".repeat(15))).orders).toEqual([]);
    expect(m.gets).toEqual([999_999_999_999_999]);
  });

  it("answers the first 50 by number, and says when more match", async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => order(100 - i, { status: "Held" }));
    const exactly = await searchOrders(mirrorOf(fifty), "Held");
    expect(exactly.orders).toHaveLength(50);
    expect(exactly.more).toBe(false);
    const more = await searchOrders(mirrorOf([...fifty, order(1, { status: "Held" })]), "Held");
    expect(more.orders).toHaveLength(50);
    expect(more.orders[0]?.orderNumber).toBe(1);
    expect(more.orders[49]?.orderNumber).toBe(99);
    expect(more.more).toBe(true);
  });

  it("shows each field as text or a number, a field the service left out as empty", async () => {
    const full = order(9, {
      siteId: 101,
      status: "Shipped",
      partnerOrderId: "po-9",
      projectName: "Spring",
      closed: true,
      unresolvable: true,
      updatedOn: "2026-03-01T12:00:00Z",
      totals: { order: { toString: () => "12.50" } },
    });
    expect((await searchOrders(mirrorOf([full]), "9")).orders).toEqual([
      {
        orderNumber: 9,
        siteId: 101,
        status: "Shipped",
        partnerOrderId: "po-9",
        projectName: "Spring",
        closed: true,
        unresolvable: true,
        updatedOn: "2026-03-01T12:00:00Z",
        total: "12.50",
      },
    ]);
    const sparse = order(8, { totals: {} });
    expect((await searchOrders(mirrorOf([sparse]), "8")).orders[0]).toEqual({
      orderNumber: 8,
      siteId: null,
      status: null,
      partnerOrderId: null,
      projectName: null,
      closed: null,
      unresolvable: false,
      updatedOn: null,
      total: null,
    });
  });
});
