import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { sqliteStore } from "partner-orders/sync";
import { afterAll, describe, expect, it } from "vitest";
import { JsonTexts } from "../../../src/sync/stores/json-texts";
import { changePayload } from "../../../src/sync/stores/rows";
import type { NewChange, StoredOrder } from "../../../src/sync/types";

const base = { orderNumber: 7, siteId: 3, observedAt: "2026-03-01T00:00:00.000Z", cause: "sweep" };
const order = { orderNumber: 7, siteId: 3, status: "Open", totals: { order: "1.50", tax: null } };
const item = { itemNumber: 1, lineTotal: "1.50", externalId: "x-1", tags: [] };
const shipment = { shipmentNumber: 2, shippedOn: "2026-03-01", trackingNumbers: ["1Z"] };

/** Changes of every shape: shared rows, fields and previous values, nulls, arrays, odd keys. */
const changes = [
  { ...base, type: "order.added", order },
  { ...base, type: "order.changed", order, fields: ["status"], previous: { status: null } },
  { ...base, type: "item.added", item },
  { ...base, type: "item.cancelled", item: { ...item, cancelled: true } },
  { ...base, type: "shipment.shipped", shipment, trackingNumbers: shipment.trackingNumbers },
  { ...base, type: "order.unresolvable", snapshot: true },
  {
    ...base,
    type: "odd",
    at: new Date("2026-03-01T00:00:00.000Z"),
    gone: undefined,
    'a"b': 1,
    2: "two",
  },
] as unknown as NewChange[];

describe("JsonTexts: each row serialised once, the texts as JSON.stringify writes them", () => {
  it("gives every payload as JSON.stringify(changePayload(change)), rows shared with the order's row or not", () => {
    const json = new JsonTexts();
    expect(json.of(order)).toBe(JSON.stringify(order));
    expect(json.list([item])).toBe(JSON.stringify([item]));
    for (const change of changes)
      expect(json.payload(change)).toBe(JSON.stringify(changePayload(change)));
  });

  it("writes lists as JSON does: empty, null, and elements that are not rows", () => {
    const json = new JsonTexts();
    expect(json.list(null)).toBeNull();
    expect(json.list([])).toBe("[]");
    const odd = [item, null, 3, "x", undefined] as unknown as object[];
    expect(json.list(odd)).toBe(JSON.stringify(odd));
  });

  it("keeps one text per object: the same row asked again is the same text", () => {
    const json = new JsonTexts();
    const row = { a: 1 };
    expect(json.of(row)).toBe('{"a":1}');
    expect(json.of({ a: 2 })).toBe('{"a":2}');
    expect(json.of(row)).toBe('{"a":1}');
  });
});

const dir = mkdtempSync(join(tmpdir(), "po-json-texts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the SQLite store writes rows and payloads from one serialisation", () => {
  it("stores the order's row and each change's payload exactly as JSON.stringify writes them", async () => {
    const file = join(dir, "orders.db");
    const store = sqliteStore(file);
    await store.open();
    const next: StoredOrder = {
      orderNumber: 7,
      siteId: 3,
      order,
      items: [item],
      shipments: [shipment],
      closed: false,
      unresolvable: false,
      nextPollAt: null,
      seenInSweep: 1,
    };
    await store.commitPage({ commits: [{ orderNumber: 7, decide: () => ({ next, changes }) }] });
    await store.close();
    const db = new Database(file, { readonly: true });
    const row = db.prepare("SELECT data, items, shipments FROM po_orders").get() as Record<
      string,
      string
    >;
    const payloads = (
      db.prepare("SELECT payload FROM po_changes ORDER BY id").all() as { payload: string }[]
    ).map((r) => r.payload);
    db.close();
    expect(row).toEqual({
      data: JSON.stringify(order),
      items: JSON.stringify([item]),
      shipments: JSON.stringify([shipment]),
    });
    expect(payloads).toEqual(changes.map((c) => JSON.stringify(changePayload(c))));
  });
});
