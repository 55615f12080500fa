import { Decimal } from "partner-orders";
import { describe, expect, it } from "vitest";
import { MirrorError } from "../../../src/sync/errors";
import { mirrored, queryOrders } from "../../../src/sync/query";
import type { MirrorStore, StoredOrder, StoreOrderQuery } from "../../../src/sync/types";

const row = (orderNumber: number, extra: Partial<StoredOrder> = {}): StoredOrder => ({
  orderNumber,
  siteId: 12,
  order: { orderNumber, siteId: 12, status: "Open", totals: { order: "12.50" } },
  items: [],
  shipments: [],
  closed: false,
  unresolvable: false,
  nextPollAt: null,
  seenInSweep: 0,
  ...extra,
});

/** A store holding orders `numbers`, recording each query it is asked. */
function storeOf(numbers: number[]) {
  const asked: StoreOrderQuery[] = [];
  const store = {
    async orders(query: StoreOrderQuery) {
      asked.push(query);
      return numbers
        .filter((n) => n > query.after)
        .slice(0, query.limit)
        .map((n) => row(n));
    },
  } as unknown as MirrorStore;
  return { store, asked };
}

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iterable) out.push(x);
  return out;
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe("queryOrders", () => {
  it("pages through the store 200 at a time after the last order yielded, until a short page", async () => {
    const { store, asked } = storeOf(range(1, 450));
    let opened = 0;
    const got = await all(queryOrders(store, { status: "Open" }, async () => void opened++));
    expect(got.map((o) => o.orderNumber)).toEqual(range(1, 450));
    expect(opened).toBe(1);
    expect(asked).toEqual([
      { status: "Open", after: 0, limit: 200 },
      { status: "Open", after: 200, limit: 200 },
      { status: "Open", after: 400, limit: 200 },
    ]);
  });

  it("asks once more after a full last page, and stops at an empty one", async () => {
    const { store, asked } = storeOf(range(1, 400));
    expect(await all(queryOrders(store, undefined, async () => undefined))).toHaveLength(400);
    expect(asked.map((q) => q.after)).toEqual([0, 200, 400]);
  });

  it("asks for no more than the limit left", async () => {
    const { store, asked } = storeOf(range(1, 1000));
    const got = await all(queryOrders(store, { limit: 250 }, async () => undefined));
    expect(got.map((o) => o.orderNumber)).toEqual(range(1, 250));
    expect(asked).toEqual([
      { after: 0, limit: 200 },
      { after: 200, limit: 50 },
    ]);
    const small = storeOf(range(1, 10));
    expect(await all(queryOrders(small.store, { limit: 3 }, async () => undefined))).toHaveLength(
      3,
    );
    expect(small.asked).toEqual([{ after: 0, limit: 3 }]);
  });

  it("refuses bad options before opening the store or reading", async () => {
    const { store, asked } = storeOf([1]);
    let opened = 0;
    const error = await all(queryOrders(store, { limit: 0 }, async () => void opened++)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MirrorError);
    expect((error as MirrorError).code).toBe("invalid_query");
    expect(opened).toBe(0);
    expect(asked).toEqual([]);
  });
});

describe("mirrored", () => {
  it("revives money as Decimal, keeps null null, and adds unresolvable and a learnt partnerOrderId", () => {
    const order = mirrored(
      row(7, {
        order: { orderNumber: 7, totals: { order: "12.50", tax: null } },
        items: [{ itemNumber: 1, lineTotal: "3.10" }],
        shipments: [{ shipmentId: "s1" }],
        unresolvable: true,
        partnerOrderId: "PO-7",
      }),
    ) as unknown as Record<string, unknown> & {
      totals: { order: unknown; tax: unknown };
      items: { lineTotal: unknown }[];
    };
    expect(order.totals.order).toBeInstanceOf(Decimal);
    expect(String(order.totals.order)).toBe("12.5");
    expect(order.totals.tax).toBeNull();
    expect(order.items[0]?.lineTotal).toBeInstanceOf(Decimal);
    expect(order.shipments).toEqual([{ shipmentId: "s1" }]);
    expect(order.unresolvable).toBe(true);
    expect(order.partnerOrderId).toBe("PO-7");
  });

  it("gives empty lists for missing items and shipments, and no partnerOrderId key when none is known", () => {
    const order = mirrored(row(8, { items: null, shipments: null })) as unknown as Record<
      string,
      unknown
    >;
    expect(order.items).toEqual([]);
    expect(order.shipments).toEqual([]);
    expect(order.unresolvable).toBe(false);
    expect("partnerOrderId" in order).toBe(false);
    expect(order.orderNumber).toBe(8);
  });
});
