import { PartnerOrdersError } from "../../core/errors";
import type { Change, MirrorStore } from "../types";
import {
  type ChangeRow,
  changeToRow,
  type OrderRow,
  orderToRow,
  rowToChange,
  rowToOrder,
} from "./rows";

/** The part of better-sqlite3 the store uses; typed here so no declaration needs the package. */
interface Database {
  pragma(source: string): unknown;
  exec(source: string): unknown;
  prepare(source: string): Statement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): unknown;
}
interface Statement {
  run(...params: unknown[]): { lastInsertRowid: number | bigint; changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

const SCHEMA = `
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

const UPSERT = `INSERT INTO po_orders
  (order_number, site_id, data, items, shipments, closed, unresolvable, next_poll_at, seen_in_sweep)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (order_number) DO UPDATE SET site_id = excluded.site_id, data = excluded.data,
  items = excluded.items, shipments = excluded.shipments, closed = excluded.closed,
  unresolvable = excluded.unresolvable, next_poll_at = excluded.next_poll_at,
  seen_in_sweep = MAX(po_orders.seen_in_sweep, excluded.seen_in_sweep)`;

/**
 * The mirror's embedded store: one SQLite file (or `":memory:"`), on better-sqlite3, an optional peer
 * dependency loaded when the mirror first opens it. One process at a time; for many, `postgresStore`.
 *
 * @example
 * const mirror = new OrderMirror({ client, store: sqliteStore("./orders.db") });
 */
export function sqliteStore(path: string): MirrorStore {
  let db: Database | undefined;
  const statements = new Map<string, Statement>();
  const sql = (source: string) => {
    if (!db)
      throw new PartnerOrdersError(
        "The SQLite store is not open: call mirror.sync() or run() first.",
      );
    let statement = statements.get(source);
    if (!statement) {
      statement = db.prepare(source);
      statements.set(source, statement);
    }
    return statement;
  };
  // SQLite stores booleans as 0/1.
  const bind = (values: unknown[]) => values.map((v) => (typeof v === "boolean" ? Number(v) : v));

  return {
    async open() {
      if (db) return;
      const Driver = await loadDriver();
      db = new Driver(path);
      if (path !== ":memory:") {
        // WAL with NORMAL sync: every transaction still atomic, and durable across a crash of the
        // process (a power loss may lose the last ones, never tear one).
        db.pragma("journal_mode = WAL");
        db.pragma("synchronous = NORMAL");
      }
      db.pragma("busy_timeout = 5000");
      db.exec(SCHEMA);
    },
    async claimWriter() {},
    async claimAccount() {},
    async info() {
      return { schemaVersion: 1, account: null };
    },
    async commit(orderNumber, decide) {
      const run = (db as Database).transaction(() => {
        const row = sql("SELECT * FROM po_orders WHERE order_number = ?").get(orderNumber);
        const decided = decide(row ? rowToOrder(row as OrderRow) : undefined);
        if (!decided) return [] as Change[];
        sql(UPSERT).run(...bind(orderToRow(decided.next)));
        const insert = sql(
          "INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload) VALUES (?, ?, ?, ?, ?, ?)",
        );
        return decided.changes.map((change) => {
          const id = Number(insert.run(...changeToRow(change)).lastInsertRowid);
          return { ...change, id } as Change;
        });
      });
      if (!db) sql(""); // throws the "not open" error
      return run();
    },
    async get(orderNumber) {
      const row = sql("SELECT * FROM po_orders WHERE order_number = ?").get(orderNumber);
      return row ? rowToOrder(row as OrderRow) : undefined;
    },
    async claimDue(epochMs, limit, holdUntil) {
      return (db as Database).transaction(() => {
        const rows = sql(
          "SELECT order_number FROM po_orders WHERE next_poll_at IS NOT NULL AND next_poll_at <= ? ORDER BY next_poll_at LIMIT ?",
        ).all(epochMs, limit) as { order_number: number }[];
        const hold = sql("UPDATE po_orders SET next_poll_at = ? WHERE order_number = ?");
        for (const row of rows) hold.run(holdUntil, row.order_number);
        return rows.map((r) => r.order_number);
      })();
    },
    async lease(name, holder, now, expiresAt) {
      const taken = sql(
        `INSERT INTO po_leases (name, holder, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE po_leases.holder = excluded.holder OR po_leases.expires_at <= ?`,
      ).run(name, holder, expiresAt, now);
      return taken.changes > 0;
    },
    async leaseHolder(name) {
      const row = sql("SELECT holder, expires_at FROM po_leases WHERE name = ?").get(name) as
        | { holder: string; expires_at: number }
        | undefined;
      return row ? { holder: row.holder, since: Number.NaN, expiresAt: row.expires_at } : null;
    },
    async dueStats(epochMs) {
      const row = sql(
        "SELECT SUM(closed = 0) AS open, SUM(next_poll_at <= ?) AS due, MIN(CASE WHEN next_poll_at <= ? THEN next_poll_at END) AS oldest FROM po_orders",
      ).get(epochMs, epochMs) as { open: number | null; due: number | null; oldest: number | null };
      return { open: row.open ?? 0, due: row.due ?? 0, oldestDueAt: row.oldest };
    },
    async consumers() {
      return sql("SELECT name, position FROM po_consumers ORDER BY name").all() as {
        name: string;
        position: number;
      }[];
    },
    async firstObservedAfter(afterId) {
      const row = sql("SELECT observed_at FROM po_changes WHERE id > ? ORDER BY id LIMIT 1").get(
        afterId,
      ) as { observed_at: string } | undefined;
      return row?.observed_at ?? null;
    },
    async releaseLease(name, holder) {
      sql("DELETE FROM po_leases WHERE name = ? AND holder = ?").run(name, holder);
    },
    async nextDue() {
      const row = sql("SELECT MIN(next_poll_at) AS at FROM po_orders").get() as {
        at: number | null;
      };
      return row.at;
    },
    async unseen(sweep) {
      const rows = sql(
        "SELECT order_number FROM po_orders WHERE seen_in_sweep <> ? AND unresolvable = 0 ORDER BY order_number",
      ).all(sweep) as { order_number: number }[];
      return rows.map((r) => r.order_number);
    },
    async markSeen(orderNumbers, sweep) {
      const mark = sql("UPDATE po_orders SET seen_in_sweep = ? WHERE order_number = ?");
      (db as Database).transaction(() => {
        for (const n of orderNumbers) mark.run(sweep, n);
      })();
    },
    async changesAfter(afterId, limit) {
      const rows = sql("SELECT * FROM po_changes WHERE id > ? ORDER BY id LIMIT ?").all(
        afterId,
        limit,
      );
      return (rows as ChangeRow[]).map(rowToChange);
    },
    async lastChangeId() {
      return (sql("SELECT COALESCE(MAX(id), 0) AS id FROM po_changes").get() as { id: number }).id;
    },
    async getCheckpoint(name) {
      const row = sql("SELECT value FROM po_checkpoints WHERE name = ?").get(name) as
        | { value: string | null }
        | undefined;
      return row?.value ?? null;
    },
    async setCheckpoint(name, value) {
      sql(
        "INSERT INTO po_checkpoints (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
      ).run(name, value);
    },
    async getPosition(consumer) {
      const row = sql("SELECT position FROM po_consumers WHERE name = ?").get(consumer) as
        | { position: number }
        | undefined;
      return row ? row.position : null;
    },
    async setPosition(consumer, id) {
      sql(
        "INSERT INTO po_consumers (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position",
      ).run(consumer, id);
    },
    async close() {
      statements.clear();
      db?.close();
      db = undefined;
    },
  };
}

type Driver = new (path: string) => Database;

/** better-sqlite3 is an optional peer dependency: only partners using the SQLite store install it. */
async function loadDriver(): Promise<Driver> {
  try {
    const loaded = (await import("better-sqlite3")) as unknown as { default?: Driver };
    return (loaded.default ?? loaded) as Driver;
  } catch (cause) {
    throw new PartnerOrdersError(
      "sqliteStore needs the better-sqlite3 package, an optional peer dependency of partner-orders: run `npm install better-sqlite3`.",
      { cause },
    );
  }
}
