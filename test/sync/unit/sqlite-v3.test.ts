import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { PartnerOrders } from "partner-orders";
import { Decimal } from "partner-orders";
import {
  MIRROR_SCHEMA_VERSION,
  MirrorError,
  type MirrorStore,
  OrderMirror,
  type StoredOrder,
  type StoreOrderQuery,
  sqliteStore,
} from "partner-orders/sync";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { V2_ORDERS, V2_SQLITE_SCHEMA } from "../stores/support.js";

/**
 * Schema version 3 on SQLite: the orders' typed columns and external ids, filled by every write
 * and by the migration of a version 2 file; `orders()` over them.
 */
const dir = mkdtempSync(join(tmpdir(), "po-sqlite-v3-"));
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function memory(): Promise<MirrorStore> {
  const s = sqliteStore(":memory:");
  await s.open();
  open.push(s);
  return s;
}

/** A version 2 file holding `V2_ORDERS`, as the released version 2 wrote them. */
function versionTwoFile(): string {
  const path = join(dir, `${crypto.randomUUID()}.db`);
  const db = new Database(path);
  db.exec(V2_SQLITE_SCHEMA);
  const insert = db.prepare("INSERT INTO po_orders VALUES (?, ?, ?, ?, '[]', ?, 0, NULL, 1)");
  for (const o of V2_ORDERS)
    insert.run(
      o.orderNumber,
      o.siteId,
      JSON.stringify(o.order),
      JSON.stringify(o.items),
      Number(o.order.closed),
    );
  db.close();
  return path;
}

const put = (s: MirrorStore, order: StoredOrder) =>
  s.commit(order.orderNumber, () => ({ next: order, changes: [] }));

function order(n: number, fields: Record<string, unknown> = {}, extra: Partial<StoredOrder> = {}) {
  const data = { orderNumber: n, siteId: 12, status: "Open", closed: false, ...fields };
  return {
    orderNumber: n,
    siteId: data.siteId as number,
    order: data,
    items: [],
    shipments: [],
    closed: data.closed === true,
    unresolvable: false,
    nextPollAt: null,
    seenInSweep: 0,
    ...extra,
  } as StoredOrder;
}

const query = (fields: Partial<StoreOrderQuery> = {}): StoreOrderQuery => ({
  after: 0,
  limit: 100,
  ...fields,
});
const numbers = (rows: { orderNumber: number }[]) => rows.map((r) => r.orderNumber);

describe("a version 2 SQLite file", () => {
  it("migrates to version 3, the typed columns and external ids filled from its JSON", async () => {
    const path = versionTwoFile();
    const s = sqliteStore(path);
    open.push(s);
    await s.open();
    expect((await s.info()).schemaVersion).toBe(MIRROR_SCHEMA_VERSION);
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma("user_version", { simple: true })).toBe(3);
      expect(
        db
          .prepare(
            "SELECT order_number, status, updated_on, total, typeof(total) AS kind, partner_order_id FROM po_orders ORDER BY order_number",
          )
          .all(),
      ).toEqual([
        {
          order_number: 100001,
          status: "In Production",
          updated_on: "2026-01-02T08:00:00.000Z",
          total: "0.3000000000",
          kind: "text",
          partner_order_id: null,
        },
        {
          order_number: 100002,
          status: "Delivered",
          updated_on: null, // not a date: the JSON keeps it as sent
          total: "12345678901234.1234567891",
          kind: "text",
          partner_order_id: null,
        },
      ]);
      expect(
        db.prepare("SELECT external_id, order_number FROM po_external_ids ORDER BY 1").all(),
      ).toEqual([
        { external_id: "ext-a", order_number: 100001 },
        { external_id: "ext-b", order_number: 100001 },
      ]);
    } finally {
      db.close();
    }
    expect(numbers(await s.orders(query({ externalId: "ext-a" })))).toEqual([100001]);
    expect(numbers(await s.orders(query({ status: "Delivered", closed: true })))).toEqual([100002]);
    // The stored JSON is untouched by the migration.
    expect((await s.get(100002))?.order).toEqual(V2_ORDERS[1].order);
  });
});

describe("the typed columns on SQLite", () => {
  it("keep the order total as the exact decimal text, never a float", async () => {
    const s = await memory();
    await put(s, order(1, { totals: { order: "0.1000000000" } }));
    await put(s, order(2, { totals: { order: "0.2000000000" } }));
    await put(s, order(3, { totals: { order: "12345678901234.1234567891" } }));
    await put(s, order(4, { totals: { order: null } }));
    await put(s, order(5, { totals: { order: "1e3" } })); // not the service's form: left null
    const path = join(dir, `${crypto.randomUUID()}.db`);
    const file = sqliteStore(path);
    open.push(file);
    await file.open();
    await put(file, order(1, { totals: { order: "0.3000000000" } }));
    await put(file, order(2, { totals: { order: "12345678901234.1234567891" } }));
    const db = new Database(path, { readonly: true });
    try {
      expect(
        db
          .prepare("SELECT total, typeof(total) AS kind FROM po_orders ORDER BY order_number")
          .all(),
      ).toEqual([
        { total: "0.3000000000", kind: "text" },
        { total: "12345678901234.1234567891", kind: "text" },
      ]);
    } finally {
      db.close();
    }
    const mirror = new OrderMirror({ client: {} as PartnerOrders, store: s });
    const got = await mirror.get(3);
    expect(got?.totals.order).toBeInstanceOf(Decimal);
    expect(got?.totals.order?.toFixed()).toBe("12345678901234.1234567891");
    expect((await mirror.get(4))?.totals.order).toBeNull();
  });

  it("keep a line's external ids in step with its items, in the commit", async () => {
    const s = await memory();
    const items = (...ids: (string | null)[]) =>
      ids.map((externalId, i) => ({ itemNumber: i + 1, externalId }));
    await put(s, order(1, {}, { items: items("a", "b", null) }));
    await put(s, order(2, {}, { items: items("b") }));
    expect(numbers(await s.orders(query({ externalId: "b" })))).toEqual([1, 2]);
    await put(s, order(1, {}, { items: items("c") }));
    expect(numbers(await s.orders(query({ externalId: "b" })))).toEqual([2]);
    expect(numbers(await s.orders(query({ externalId: "a" })))).toEqual([]);
    expect(numbers(await s.orders(query({ externalId: "c" })))).toEqual([1]);
    await put(s, order(1, {}, { items: null }));
    expect(numbers(await s.orders(query({ externalId: "c" })))).toEqual([]);
  });

  it("keep a learnt partnerOrderId when a later write does not carry it", async () => {
    const s = await memory();
    await put(s, order(1, {}, { partnerOrderId: "po-1" }));
    await put(s, order(1, { status: "Shipped" }));
    expect((await s.get(1))?.partnerOrderId).toBe("po-1");
    expect(numbers(await s.orders(query({ partnerOrderId: "po-1" })))).toEqual([1]);
    expect((await s.get(1))?.order.status).toBe("Shipped");
  });
});

describe("orders()", () => {
  /** A mirror on an in-memory store whose order queries are recorded. */
  async function mirrorOver(rows: StoredOrder[]) {
    const s = await memory();
    for (const row of rows) await put(s, row);
    const asked: StoreOrderQuery[] = [];
    const store = new Proxy(s, {
      get(target, key) {
        if (key === "orders")
          return (q: StoreOrderQuery) => {
            asked.push(q);
            return target.orders(q);
          };
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const mirror = new OrderMirror({ client: {} as PartnerOrders, store });
    const all = async (q?: Parameters<OrderMirror["orders"]>[0]) => {
      const out: number[] = [];
      for await (const o of mirror.orders(q)) out.push(o.orderNumber);
      return out;
    };
    return { mirror, asked, all, store: s };
  }

  it("filters on each typed column, every filter given applying", async () => {
    const t = await mirrorOver([
      order(1, { siteId: 12, status: "Open", updatedOn: "2026-01-01T00:00:00Z" }),
      order(2, { siteId: 14, status: "Open", updatedOn: "2026-01-03T00:00:00Z" }),
      order(3, { siteId: 12, status: "Delivered", closed: true, updatedOn: null }),
      order(4, { siteId: 12, status: "Open" }, { unresolvable: true, partnerOrderId: "po-4" }),
      order(5, { siteId: 12, status: "open" }, { items: [{ externalId: "x-5" }] }),
    ]);
    expect(await t.all()).toEqual([1, 2, 3, 4, 5]);
    expect(await t.all({ siteId: 12 })).toEqual([1, 3, 4, 5]);
    expect(await t.all({ status: "Open" })).toEqual([1, 2, 4]); // exact, case included
    expect(await t.all({ closed: true })).toEqual([3]);
    expect(await t.all({ closed: false, siteId: 12 })).toEqual([1, 4, 5]);
    expect(await t.all({ unresolvable: true })).toEqual([4]);
    expect(await t.all({ unresolvable: false, status: "Open" })).toEqual([1, 2]);
    expect(await t.all({ updatedSince: "2026-01-02T00:00:00Z" })).toEqual([2]);
    expect(await t.all({ updatedSince: new Date("2026-01-01T00:00:00Z") })).toEqual([1, 2]);
    // Another offset, the same instant: compared as times, not as text.
    expect(await t.all({ updatedSince: "2026-01-03T02:00:00+02:00" })).toEqual([2]);
    expect(await t.all({ updatedSince: "2026-01-03T02:00:00.001+02:00" })).toEqual([]);
    expect(await t.all({ partnerOrderId: "po-4" })).toEqual([4]);
    expect(await t.all({ externalId: "x-5" })).toEqual([5]);
    expect(await t.all({ externalId: "x-5", siteId: 14 })).toEqual([]);
    expect(await t.all({ limit: 2 })).toEqual([1, 2]);
    expect(await t.all({ siteId: undefined, limit: undefined })).toEqual([1, 2, 3, 4, 5]);
  });

  it("pages through the store by order number (a keyset), never by offset", async () => {
    const rows = Array.from({ length: 450 }, (_, i) => order(1_000 + i * 3));
    const t = await mirrorOver(rows);
    const all = await t.all({ siteId: 12 });
    expect(all).toEqual(rows.map((r) => r.orderNumber));
    expect(t.asked.map((q) => [q.after, q.limit])).toEqual([
      [0, 200],
      [1_000 + 199 * 3, 200],
      [1_000 + 399 * 3, 200],
    ]);
    expect(t.asked.every((q) => q.siteId === 12)).toBe(true);
    t.asked.length = 0;
    expect((await t.all({ limit: 250 })).length).toBe(250);
    expect(t.asked.map((q) => [q.after, q.limit])).toEqual([
      [0, 200],
      [1_000 + 199 * 3, 50],
    ]);
    // A full last page ends with one more (empty) query.
    t.asked.length = 0;
    expect((await t.all({ limit: 400 })).length).toBe(400);
    expect(t.asked.map((q) => q.limit)).toEqual([200, 200]);
  });

  it("an order written while the loop runs is yielded at most once, never shifting the others", async () => {
    const t = await mirrorOver(Array.from({ length: 250 }, (_, i) => order(2 * (i + 1))));
    const seen: number[] = [];
    for await (const o of t.mirror.orders()) {
      seen.push(o.orderNumber);
      if (o.orderNumber === 100) {
        // Behind the keyset (the first page is read): not yielded. Ahead of it: yielded once.
        await put(t.store, order(101));
        await put(t.store, order(401));
      }
    }
    const expected = [...Array.from({ length: 250 }, (_, i) => 2 * (i + 1)), 401].sort(
      (a, b) => a - b,
    );
    expect(seen).toEqual(expected);
  });

  it("gives orders as get() does: money as Decimal, null kept null, the partnerOrderId once learnt", async () => {
    const t = await mirrorOver([
      order(
        1,
        { totals: { item: "0.10", shipping: null, tax: null, order: "0.30" } },
        { items: [{ itemNumber: 1, lineTotal: "0.10", lineListTotal: null }], partnerOrderId: "p" },
      ),
    ]);
    const [got] = await (async () => {
      const out = [];
      for await (const o of t.mirror.orders()) out.push(o);
      return out;
    })();
    expect(got).toEqual(await t.mirror.get(1));
    expect(got?.totals.order?.toFixed()).toBe("0.3");
    expect(got?.totals.shipping).toBeNull();
    expect(got?.items[0]?.lineTotal).toBeInstanceOf(Decimal);
    expect(got?.items[0]?.lineListTotal).toBeNull();
    expect(got?.partnerOrderId).toBe("p");
  });

  it.each([
    ["siteId as text", { siteId: "12" }, "siteId must be a positive whole number"],
    ["siteId 0", { siteId: 0 }, "siteId must be a positive whole number"],
    ["status as a number", { status: 3 }, "status must be a string"],
    ["externalId as null", { externalId: null }, "externalId must be a string"],
    ["partnerOrderId as a number", { partnerOrderId: 7 }, "partnerOrderId must be a string"],
    ["closed as text", { closed: "false" }, "closed must be true or false"],
    ["unresolvable as 1", { unresolvable: 1 }, "unresolvable must be true or false"],
    ["updatedSince not a date", { updatedSince: "yesterday" }, "updatedSince must be a Date"],
    ["updatedSince an invalid Date", { updatedSince: new Date("x") }, "updatedSince must be"],
    ["limit 0", { limit: 0 }, "limit must be a positive whole number"],
    ["limit 1.5", { limit: 1.5 }, "limit must be a positive whole number"],
    ["an unknown option", { site: 12 }, "it has no option site"],
    ["no object", 12, "the options must be an object"],
  ])("refuses %s with invalid_query, reading nothing", async (_, options, message) => {
    const t = await mirrorOver([order(1)]);
    const error = await t.all(options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MirrorError);
    expect(error).toMatchObject({ code: "invalid_query" });
    expect((error as Error).message).toContain(message);
    expect(t.asked).toEqual([]);
  });
});
