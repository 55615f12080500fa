import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MirrorError } from "../../../src/sync/errors";
import {
  checkOrderQuery,
  externalIdsMoved,
  externalIdsOf,
  isoTime,
  orderColumnsV3Postgres,
  orderColumnsV3Sqlite,
  orderFilter,
  TYPED_ORDER_COLUMNS,
  typedColumns,
} from "../../../src/sync/stores/order-columns";
import type { StoredOrder } from "../../../src/sync/types";
import { V2_SQLITE_SCHEMA } from "../stores/support";

const stored = (order: Record<string, unknown>, extra: Partial<StoredOrder> = {}): StoredOrder => ({
  orderNumber: 1,
  siteId: 12,
  order,
  items: [],
  shipments: [],
  closed: false,
  unresolvable: false,
  nextPollAt: null,
  seenInSweep: 0,
  ...extra,
});

describe("typedColumns", () => {
  it("gives status, updatedOn as UTC ISO text, the exact total and the partnerOrderId, in column order", () => {
    expect(TYPED_ORDER_COLUMNS).toEqual(["status", "updated_on", "total", "partner_order_id"]);
    expect(
      typedColumns(
        stored(
          {
            status: "Shipped",
            updatedOn: "2026-01-02T10:00:00+02:00",
            totals: { order: "12345678901234.1234567891" },
          },
          { partnerOrderId: "PO-7" },
        ),
      ),
    ).toEqual(["Shipped", "2026-01-02T08:00:00.000Z", "12345678901234.1234567891", "PO-7"]);
    expect(typedColumns(stored({ totals: { order: "-12" } }))[2]).toBe("-12");
  });

  it("leaves null what the service sent in another shape", () => {
    expect(typedColumns(stored({}))).toEqual([null, null, null, null]);
    expect(typedColumns(stored({ status: 3, updatedOn: "soon", totals: { order: 12.5 } }))).toEqual(
      [null, null, null, null],
    );
    for (const total of ["1e5", "12.", ".5", "1,50", " 12", "12 ", "--1", "1.2.3", ""])
      expect(typedColumns(stored({ totals: { order: total } }))[2], total).toBeNull();
    expect(typedColumns(stored({ totals: null }))[2]).toBeNull();
    expect(typedColumns(stored({ totals: "12.50" }))[2]).toBeNull();
  });
});

describe("isoTime", () => {
  it("turns a Date or ISO text into UTC ISO text with milliseconds", () => {
    expect(isoTime(new Date(Date.UTC(2026, 0, 2)))).toBe("2026-01-02T00:00:00.000Z");
    expect(isoTime("2026-01-02")).toBe("2026-01-02T00:00:00.000Z");
    expect(isoTime("2026-01-02T03:04:05-01:00")).toBe("2026-01-02T04:04:05.000Z");
  });

  it("is null for an invalid Date, text not starting with a date, and other values", () => {
    expect(isoTime(new Date(Number.NaN))).toBeNull();
    expect(isoTime("Jan 2 2026")).toBeNull(); // Date.parse would take it
    expect(isoTime("x2026-01-02")).toBeNull();
    // Text Date.parse takes but the service never writes: a date not first, a one-digit day.
    expect(isoTime("Sat 2026-01-02")).toBeNull();
    expect(isoTime(" 2026-01-02")).toBeNull();
    expect(isoTime("2026-01-2")).toBeNull();
    // Not text, though it reads as a date once made text.
    expect(isoTime(["2026-01-02"])).toBeNull();
    expect(isoTime("2026-13-45T00:00:00Z")).toBeNull();
    expect(isoTime(1_767_312_000_000)).toBeNull();
    expect(isoTime(null)).toBeNull();
  });
});

describe("external ids", () => {
  it("are the distinct ids of the lines, sorted, lines without one left out", () => {
    expect(
      externalIdsOf([
        { externalId: "b" },
        { externalId: "a" },
        { externalId: "b" },
        { externalId: null },
        { externalId: 7 },
        {},
        null as never,
      ]),
    ).toEqual(["a", "b"]);
    expect(externalIdsOf(null)).toEqual([]);
    expect(externalIdsOf(undefined)).toEqual([]);
  });

  it("moved: only when the sets differ", () => {
    const lines = (...ids: string[]) => ids.map((externalId) => ({ externalId }));
    expect(externalIdsMoved(lines("a", "b"), lines("b", "a", "a"))).toBe(false);
    expect(externalIdsMoved(null, [])).toBe(false);
    expect(externalIdsMoved(lines("a"), lines("a", "b"))).toBe(true);
    expect(externalIdsMoved(lines("a", "b"), lines("a"))).toBe(true);
    expect(externalIdsMoved(lines("a", "b"), lines("a", "c"))).toBe(true);
    expect(externalIdsMoved(lines("a", "c"), lines("b", "c"))).toBe(true);
    expect(externalIdsMoved(undefined, lines("a"))).toBe(true);
  });
});

describe("the version 3 migration's SQL", () => {
  it("on SQLite adds the typed columns, the external ids table and the indexes to a version 2 database", () => {
    const db = new Database(":memory:");
    db.exec(V2_SQLITE_SCHEMA);
    db.exec(orderColumnsV3Sqlite());
    const columns = (db.prepare("PRAGMA table_info(po_orders)").all() as { name: string }[]).map(
      (c) => c.name,
    );
    for (const c of TYPED_ORDER_COLUMNS) expect(columns).toContain(c);
    const ids = db.prepare("PRAGMA table_info(po_external_ids)").all() as {
      name: string;
      pk: number;
      notnull: number;
    }[];
    expect(ids.map((c) => [c.name, c.pk, c.notnull])).toEqual([
      ["external_id", 1, 1],
      ["order_number", 2, 1],
    ]);
    const indexes = (
      db
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        .all() as {
        name: string;
        sql: string;
      }[]
    ).map((i) => `${i.name}: ${i.sql.replace(/\s+/g, " ")}`);
    expect(indexes).toEqual(
      expect.arrayContaining([
        "po_external_ids_order: CREATE INDEX po_external_ids_order ON po_external_ids (order_number)",
        "po_orders_site: CREATE INDEX po_orders_site ON po_orders (site_id, order_number)",
        "po_orders_status: CREATE INDEX po_orders_status ON po_orders (status, order_number)",
        "po_orders_updated: CREATE INDEX po_orders_updated ON po_orders (updated_on)",
        "po_orders_partner_order: CREATE INDEX po_orders_partner_order ON po_orders (partner_order_id)",
        "po_orders_open: CREATE INDEX po_orders_open ON po_orders (order_number) WHERE closed = 0",
      ]),
    );
    const withoutRowid = db
      .prepare("SELECT sql FROM sqlite_master WHERE name = 'po_external_ids'")
      .get() as { sql: string };
    expect(withoutRowid.sql).toMatch(/WITHOUT ROWID$/);
    db.close();
  });

  it("on PostgreSQL names the store's own tables, jsonb payloads, a NUMERIC total and a timestamptz", () => {
    const sql = orderColumnsV3Postgres({
      orders: '"s".po_orders',
      changes: '"s".po_changes',
      externalIds: '"s".po_external_ids',
    }).replace(/\s+/g, " ");
    for (const part of [
      'ALTER TABLE "s".po_orders ALTER COLUMN data TYPE jsonb USING data::jsonb, ALTER COLUMN items TYPE jsonb USING items::jsonb, ALTER COLUMN shipments TYPE jsonb USING shipments::jsonb, ADD COLUMN status TEXT, ADD COLUMN updated_on TIMESTAMPTZ, ADD COLUMN total NUMERIC, ADD COLUMN partner_order_id TEXT;',
      'ALTER TABLE "s".po_changes ALTER COLUMN payload TYPE jsonb USING payload::jsonb;',
      'CREATE TABLE "s".po_external_ids ( external_id TEXT NOT NULL, order_number BIGINT NOT NULL, PRIMARY KEY (external_id, order_number) );',
      'CREATE INDEX po_external_ids_order ON "s".po_external_ids (order_number);',
      'CREATE INDEX po_orders_site ON "s".po_orders (site_id, order_number);',
      'CREATE INDEX po_orders_status ON "s".po_orders (status, order_number);',
      'CREATE INDEX po_orders_updated ON "s".po_orders (updated_on);',
      'CREATE INDEX po_orders_partner_order ON "s".po_orders (partner_order_id);',
      'CREATE INDEX po_orders_open ON "s".po_orders (order_number) WHERE NOT closed;',
    ])
      expect(sql).toContain(part);
  });
});

describe("orderFilter", () => {
  const dollar = (i: number) => `$${i}`;
  const bool = (value: boolean) => (value ? "TRUE" : "FALSE");

  it("starts after the keyset's last order, with nothing else when no filter is given", () => {
    expect(orderFilter({ after: 7, limit: 10 }, "ids", dollar, bool)).toEqual({
      where: "o.order_number > $1",
      values: [7],
    });
  });

  it("adds each filter given, values numbered in order, booleans as literals", () => {
    expect(
      orderFilter(
        {
          after: 0,
          limit: 10,
          siteId: 12,
          status: "Open",
          closed: false,
          unresolvable: true,
          updatedSince: "2026-01-01T00:00:00.000Z",
          partnerOrderId: "PO-1",
          externalId: "ext-a",
        },
        '"s".po_external_ids',
        dollar,
        bool,
      ),
    ).toEqual({
      where: [
        "o.order_number > $1",
        "o.site_id = $2",
        "o.status = $3",
        "o.closed = FALSE",
        "o.unresolvable = TRUE",
        "o.updated_on >= $4",
        "o.partner_order_id = $5",
        'o.order_number IN (SELECT e.order_number FROM "s".po_external_ids e WHERE e.external_id = $6)',
      ].join(" AND "),
      values: [0, 12, "Open", "2026-01-01T00:00:00.000Z", "PO-1", "ext-a"],
    });
    expect(
      orderFilter({ after: 0, limit: 1, closed: true, unresolvable: false }, "x", () => "?", bool)
        .where,
    ).toBe("o.order_number > ? AND o.closed = TRUE AND o.unresolvable = FALSE");
  });
});

describe("checkOrderQuery", () => {
  const refusal = (options: unknown) => {
    try {
      checkOrderQuery(options);
    } catch (error) {
      expect(error).toBeInstanceOf(MirrorError);
      expect((error as MirrorError).code).toBe("invalid_query");
      const hint = "See OrderQuery in the API reference for the filters and their types.";
      expect((error as MirrorError).hint).toBe(hint);
      expect((error as Error).message.endsWith(` ${hint}`)).toBe(true);
      return (error as Error).message.slice(0, -hint.length - 1);
    }
    throw new Error(`accepted ${JSON.stringify(options)}`);
  };

  it("takes no options as every order, and each filter as given", () => {
    expect(checkOrderQuery(undefined)).toEqual({ limit: Number.POSITIVE_INFINITY });
    expect(checkOrderQuery({})).toEqual({ limit: Number.POSITIVE_INFINITY });
    expect(
      checkOrderQuery({
        siteId: 12,
        status: "Open",
        externalId: "ext-a",
        partnerOrderId: "PO-1",
        closed: false,
        unresolvable: true,
        updatedSince: new Date(Date.UTC(2026, 0, 1)),
        limit: 5,
        // An option given as undefined is as if left out.
        extra: undefined,
      }),
    ).toEqual({
      siteId: 12,
      status: "Open",
      externalId: "ext-a",
      partnerOrderId: "PO-1",
      closed: false,
      unresolvable: true,
      updatedSince: "2026-01-01T00:00:00.000Z",
      limit: 5,
    });
    expect(checkOrderQuery({ updatedSince: "2026-01-01T02:00:00+02:00" }).updatedSince).toBe(
      "2026-01-01T00:00:00.000Z",
    );
    expect(checkOrderQuery({ closed: true, status: "" })).toEqual({
      closed: true,
      status: "",
      limit: Number.POSITIVE_INFINITY,
    });
  });

  it("refuses what is no object, an unknown option, and each filter of the wrong type, naming it", () => {
    for (const bad of [null, "x", 3, [], true])
      expect(refusal(bad)).toBe("orders(): the options must be an object.");
    expect(refusal({ site: 12 })).toBe("orders(): it has no option site.");
    expect(refusal({ [`x${"y".repeat(60)}`]: 1 })).toBe(
      `orders(): it has no option x${"y".repeat(39)}.`,
    );
    for (const siteId of [0, -1, 1.5, "12", Number.NaN, 2 ** 53])
      expect(refusal({ siteId })).toBe("orders(): siteId must be a positive whole number.");
    for (const key of ["status", "externalId", "partnerOrderId"])
      expect(refusal({ [key]: 1 })).toBe(`orders(): ${key} must be a string.`);
    for (const key of ["closed", "unresolvable"])
      expect(refusal({ [key]: "true" })).toBe(`orders(): ${key} must be true or false.`);
    for (const updatedSince of ["yesterday", 0, new Date(Number.NaN)])
      expect(refusal({ updatedSince })).toBe(
        "orders(): updatedSince must be a Date or an ISO 8601 date-time text.",
      );
    for (const limit of [0, -5, 2.5, "5"])
      expect(refusal({ limit })).toBe("orders(): limit must be a positive whole number.");
    expect(checkOrderQuery({ siteId: 1, limit: 1 })).toEqual({ siteId: 1, limit: 1 });
  });
});
