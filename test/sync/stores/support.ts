import { spawn } from "node:child_process";
import { hostname } from "node:os";
import { decide, type Observation } from "../../../src/sync/diff";
import type { Change, MirrorStore, StoredOrder } from "../../../src/sync/types";

/**
 * The tables as the stores created them before stores carried a schema version (version 1), copied
 * from the released code, to test the migration of a real old store.
 */
export const V1_SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS po_orders (
  order_number INTEGER PRIMARY KEY,
  site_id INTEGER NOT NULL,
  data TEXT NOT NULL,
  items TEXT,
  shipments TEXT,
  closed INTEGER NOT NULL,
  unresolvable INTEGER NOT NULL,
  next_poll_at INTEGER,
  seen_in_sweep INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS po_orders_due ON po_orders (next_poll_at);
CREATE TABLE IF NOT EXISTS po_changes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  order_number INTEGER NOT NULL,
  site_id INTEGER NOT NULL,
  observed_at TEXT NOT NULL,
  cause TEXT NOT NULL,
  payload TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS po_checkpoints (name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS po_consumers (name TEXT PRIMARY KEY, position INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS po_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);
`;
export const V1_POSTGRES_SCHEMA = `
CREATE TABLE IF NOT EXISTS po_orders (
  order_number BIGINT PRIMARY KEY,
  site_id BIGINT NOT NULL,
  data TEXT NOT NULL,
  items TEXT,
  shipments TEXT,
  closed BOOLEAN NOT NULL,
  unresolvable BOOLEAN NOT NULL,
  next_poll_at BIGINT,
  seen_in_sweep BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS po_orders_due ON po_orders (next_poll_at);
CREATE TABLE IF NOT EXISTS po_changes (
  id BIGSERIAL PRIMARY KEY,
  type TEXT NOT NULL,
  order_number BIGINT NOT NULL,
  site_id BIGINT NOT NULL,
  observed_at TEXT NOT NULL,
  cause TEXT NOT NULL,
  payload TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS po_checkpoints (name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS po_consumers (name TEXT PRIMARY KEY, position BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS po_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at BIGINT NOT NULL);
`;

/**
 * The tables as version 2 of the stores created them (before the orders' typed columns), copied
 * from the released code, to test the migration of a real version 2 store.
 */
export const V2_SQLITE_SCHEMA = `${V1_SQLITE_SCHEMA.replace(
  "CREATE TABLE IF NOT EXISTS po_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);",
  "CREATE TABLE IF NOT EXISTS po_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, since INTEGER NOT NULL DEFAULT 0, expires_at INTEGER NOT NULL);",
)}
CREATE TABLE IF NOT EXISTS po_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS po_writer (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  holder TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  since INTEGER NOT NULL
);
PRAGMA user_version = 2;
`;
export const V2_POSTGRES_SCHEMA = `${V1_POSTGRES_SCHEMA}
ALTER TABLE po_leases ADD COLUMN since BIGINT NOT NULL DEFAULT 0;
ALTER TABLE po_leases ADD COLUMN locked BOOLEAN NOT NULL DEFAULT false;
CREATE TABLE po_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO po_meta (name, value) VALUES ('schema_version', '2');
`;

/** Orders as a version 2 store holds them, JSON text only: money, dates and external ids inside. */
export const V2_ORDERS = [
  {
    orderNumber: 100001,
    siteId: 12,
    order: {
      orderNumber: 100001,
      siteId: 12,
      status: "In Production",
      closed: false,
      updatedOn: "2026-01-02T10:00:00+02:00",
      totals: { item: "0.1000000000", shipping: "0.2000000000", tax: null, order: "0.3000000000" },
    },
    items: [
      { itemNumber: 1, externalId: "ext-a", lineTotal: "0.10" },
      { itemNumber: 2, externalId: "ext-b", lineTotal: "0.20" },
      { itemNumber: 3, externalId: "ext-a", lineTotal: null },
    ],
  },
  {
    orderNumber: 100002,
    siteId: 14,
    order: {
      orderNumber: 100002,
      siteId: 14,
      status: "Delivered",
      closed: true,
      updatedOn: "not a date",
      // Beyond a double's precision: kept exactly.
      totals: { item: null, shipping: null, tax: null, order: "12345678901234.1234567891" },
    },
    items: [{ itemNumber: 1, externalId: null }],
  },
] as const;
/**
 * Rows of a version 2 store, as SQL for either store: order 100001 with a change written by a sweep
 * and one by a webhook, a consumer, and (`swept`) the checkpoint of a sweep that reached the end.
 */
export function v2Rows(swept: boolean): string {
  return `
INSERT INTO po_orders VALUES (100001, 12, '{"orderNumber":100001,"siteId":12,"status":"Open","closed":false}', '[]', '[]', false, false, 1767225600000, 3);
INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload) VALUES
  ('order.added', 100001, 12, '2026-01-01T00:00:00.000Z', 'sweep', '{}'),
  ('order.changed', 100001, 12, '2026-01-01T00:01:00.000Z', 'webhook', '{"fields":[],"previous":{}}');
INSERT INTO po_consumers VALUES ('billing', 1);
${swept ? "INSERT INTO po_checkpoints VALUES ('sweep:last', '3');" : "INSERT INTO po_checkpoints VALUES ('sweep:current', '1');"}
`;
}

/** A stored order row with plain values, open and due at `nextPollAt`. */
export function row(orderNumber: number, extra: Partial<StoredOrder> = {}): StoredOrder {
  return {
    orderNumber,
    siteId: 12,
    order: { orderNumber, siteId: 12, status: "Open", closed: false },
    items: [],
    shipments: [],
    closed: false,
    unresolvable: false,
    nextPollAt: null,
    seenInSweep: 0,
    ...extra,
  };
}

/** What a read of order `n` brought back, as the mirror hands it to `decide`. */
export function observation(n: number, status = "Open"): Observation {
  return {
    orderNumber: n,
    cause: "refresh",
    observedAt: "2026-01-01T00:00:00.000Z",
    order: { orderNumber: n, siteId: 12, status, closed: false, totals: { order: "12.50" } },
    items: [],
    shipments: [],
    nextPollAt: () => null,
  };
}

/** Records order `n` as the mirror does: the real `decide` inside the store's transaction. */
export function record(store: MirrorStore, n: number, status = "Open"): Promise<Change[]> {
  const seen = observation(n, status);
  return store.commit(n, (current) => decide(current, seen));
}

/** The pid of a process of this host that has exited (and been reaped), for a dead holder. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

/** A holder name of this host whose process is gone. */
export async function deadHolder(): Promise<string> {
  return `${hostname()}/${await deadPid()}/${crypto.randomUUID()}`;
}
