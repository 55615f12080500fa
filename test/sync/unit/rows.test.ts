import { describe, expect, it } from "vitest";
import { Decimal } from "../../../src/core/money";
import {
  type ChangeRow,
  changeToRow,
  orderToRow,
  rowToChange,
  rowToOrder,
} from "../../../src/sync/stores/rows";
import { stored } from "./support";

describe("order rows", () => {
  it("an order is written as its columns, its parts as JSON text", () => {
    const row = orderToRow(
      stored({
        items: [{ itemId: 1 }],
        shipments: [{ shipmentId: 2 }],
        closed: true,
        unresolvable: true,
        nextPollAt: 55,
        seenInSweep: 9,
      }),
    );
    expect(row).toEqual([
      100001,
      101,
      '{"orderNumber":100001,"status":"In Production","siteId":101,"closed":false,"totals":{"item":"10.0000000000","shipping":"2.5000000000","tax":null,"order":null}}',
      '[{"itemId":1}]',
      '[{"shipmentId":2}]',
      true,
      true,
      55,
      9,
      // The typed columns: status, updated_on, total (the order total, null here), partner_order_id.
      "In Production",
      null,
      null,
      null,
    ]);
  });

  it("parts never read are written as NULL, not as JSON null", () => {
    const row = orderToRow(stored({ items: null, shipments: null, nextPollAt: null }));
    expect(row[3]).toBeNull();
    expect(row[4]).toBeNull();
    expect(row[7]).toBeNull();
  });

  it("a row is read back with numbers, booleans and parsed parts (SQLite's 0/1, PostgreSQL's text)", () => {
    expect(
      rowToOrder({
        order_number: "100001",
        site_id: "101",
        data: '{"orderNumber":100001}',
        items: '[{"itemId":1}]',
        shipments: "[]",
        closed: 1,
        unresolvable: 0,
        next_poll_at: "1000",
        seen_in_sweep: "3",
      }),
    ).toEqual({
      orderNumber: 100001,
      siteId: 101,
      order: { orderNumber: 100001 },
      items: [{ itemId: 1 }],
      shipments: [],
      closed: true,
      unresolvable: false,
      nextPollAt: 1000,
      seenInSweep: 3,
    });
  });

  it("NULL parts and poll time are read back as null", () => {
    const order = rowToOrder({
      order_number: 5,
      site_id: 6,
      data: "{}",
      items: null,
      shipments: null,
      closed: false,
      unresolvable: true,
      next_poll_at: null,
      seen_in_sweep: 0,
    });
    expect(order.items).toBeNull();
    expect(order.shipments).toBeNull();
    expect(order.nextPollAt).toBeNull();
    expect(order.closed).toBe(false);
    expect(order.unresolvable).toBe(true);
  });
});

describe("change rows", () => {
  it("a change is written as its common columns and the rest as the payload", () => {
    expect(
      changeToRow({
        type: "order.status_changed",
        orderNumber: 100001,
        siteId: 101,
        observedAt: "2026-03-01T12:00:00.000Z",
        cause: "sweep",
        from: "Open",
        to: "Shipped",
      } as never),
    ).toEqual([
      "order.status_changed",
      100001,
      101,
      "2026-03-01T12:00:00.000Z",
      "sweep",
      '{"from":"Open","to":"Shipped"}',
    ]);
  });

  const base: ChangeRow = {
    id: "7",
    type: "order.added",
    order_number: "100001",
    site_id: "101",
    observed_at: "2026-03-01T12:00:00.000Z",
    cause: "sweep",
    payload: "{}",
    snapshot: 0,
  };

  it("a row is read back as the change, its payload spread in", () => {
    expect(rowToChange({ ...base, payload: '{"from":"Open","to":"Shipped"}' })).toEqual({
      id: 7,
      type: "order.added",
      orderNumber: 100001,
      siteId: 101,
      observedAt: "2026-03-01T12:00:00.000Z",
      cause: "sweep",
      snapshot: false,
      from: "Open",
      to: "Shipped",
    });
    // SQLite keeps the flag as 1, PostgreSQL as true.
    expect(rowToChange({ ...base, snapshot: 1 }).snapshot).toBe(true);
    expect(rowToChange({ ...base, snapshot: true }).snapshot).toBe(true);
    expect(rowToChange({ ...base, snapshot: false }).snapshot).toBe(false);
  });

  it("an order in the payload has its money revived as Decimal", () => {
    const change = rowToChange({
      ...base,
      payload: '{"order":{"orderNumber":100001,"totals":{"item":"10.50"}}}',
    }) as unknown as { order: { totals: { item: unknown } } };
    expect(change.order.totals.item).toBeInstanceOf(Decimal);
    expect((change.order.totals.item as Decimal).toFixed()).toBe("10.5");
  });

  it("an item in the payload has its money revived as Decimal", () => {
    const change = rowToChange({
      ...base,
      payload: '{"item":{"itemId":1,"lineTotal":"3.25"}}',
    }) as unknown as { item: { lineTotal: unknown } };
    expect(change.item.lineTotal).toBeInstanceOf(Decimal);
  });

  it("a payload without order or item keeps its fields as they are", () => {
    const change = rowToChange({ ...base, payload: '{"amount":"3.25"}' }) as unknown as {
      amount: unknown;
      order?: unknown;
      item?: unknown;
    };
    expect(change.amount).toBe("3.25");
    expect("order" in change).toBe(false);
    expect("item" in change).toBe(false);
  });
});
