import { hostname } from "node:os";
import { PartnerOrdersError } from "../../core/errors";
import { MirrorError, type StoreAccount, StoreAccountError, StoreLockedError } from "../errors";
import { holderIsDead, holderProcess } from "../holder";
import type { MirrorStore, StoredOrder } from "../types";
import { queryOrdersSqlite } from "./order-sqlite";
import { type ChangeRow, type OrderRow, rowToChange, rowToOrder } from "./rows";
import { parseAccount, sameAccount, validAccount } from "./schema";
import {
  type Database,
  loadDriver,
  prepareSchemaSqlite,
  type Statement,
  schemaVersionOf,
  type Transaction,
} from "./sqlite-schema";
import { sqliteStream } from "./sqlite-stream";
import { sqliteWrites } from "./sqlite-writes";

/**
 * The mirror's embedded store: one SQLite file (or `":memory:"`), on better-sqlite3, an optional peer
 * dependency loaded when the mirror first opens it.
 *
 * One process writes: the first mirror that writes records its process in the file, and a mirror in
 * another live process is refused with `StoreLockedError` (for many writers, `postgresStore`).
 * Readers in other processes (`get()`, `changes()`) need no claim and are never refused. Every
 * write takes the file's write lock as its transaction begins, so a reader that also stores its
 * position never meets a "database is locked" error from a transaction that started as a read.
 *
 * @example
 * const mirror = new OrderMirror({ client, store: sqliteStore("./orders.db") });
 */
export function sqliteStore(path: string): MirrorStore {
  if (typeof path !== "string" || path === "") {
    throw new PartnerOrdersError('sqliteStore needs a file path (or ":memory:").');
  }
  let db: Database | undefined;
  /** The holder whose writer claim this store recorded, released on close. */
  let claimed: string | undefined;
  const where = path === ":memory:" ? "The in-memory SQLite store" : `The SQLite file ${path}`;
  const statements = new Map<string, Statement>();
  const open = (): Database => {
    if (!db)
      throw new PartnerOrdersError(
        "The SQLite store is not open: call mirror.sync() or run() first.",
      );
    return db;
  };
  const sql = (source: string) => {
    const database = open();
    let statement = statements.get(source);
    if (!statement) {
      statement = database.prepare(source);
      statements.set(source, statement);
    }
    return statement;
  };
  /** One transaction function per open file, built once, that runs what it is given. */
  let runner: { database: Database; run: Transaction<[() => unknown], unknown> } | undefined;
  /**
   * A transaction that writes: BEGIN IMMEDIATE, so it holds the write lock from its first read. A
   * deferred one would read, then fail to upgrade with SQLITE_BUSY_SNAPSHOT when another
   * connection (a consumer storing its position) wrote in between.
   */
  const write = <R>(fn: () => R): R => {
    const database = open();
    if (runner?.database !== database)
      runner = { database, run: database.transaction((work: () => unknown) => work()) };
    return runner.run.immediate(fn) as R;
  };

  return {
    async open() {
      if (db) return;
      const Driver = await loadDriver();
      let database: Database | undefined;
      try {
        database = new Driver(path);
        if (path !== ":memory:") {
          // WAL with NORMAL sync: every transaction still atomic, and durable across a crash of the
          // process (a power loss may lose the last ones, never tear one). Readers in other
          // processes read while the writer writes.
          database.pragma("journal_mode = WAL");
          database.pragma("synchronous = NORMAL");
          // better-sqlite3 raises SQLite's page cache to 16 MB, which a first sync fills with pages
          // it has written and never reads again (a tenth of its peak memory); SQLite's own 2 MB
          // holds the pages its writes come back to, and the file is in the system's cache besides.
          database.pragma("cache_size = -2000");
        }
        database.pragma("busy_timeout = 5000");
        await prepareSchemaSqlite(database, where);
      } catch (error) {
        database?.close();
        if (error instanceof MirrorError) throw error;
        throw new MirrorError(
          "store_open_failed",
          `${where} could not be opened: ${(error as Error)?.message ?? String(error)}.`,
          {
            hint: "Check that its directory exists and is writable, and that the file is a SQLite database.",
            cause: error,
          },
        );
      }
      db = database;
    },
    async claimWriter(holder) {
      const owner = holderProcess(holder) ?? { host: hostname(), pid: process.pid };
      write(() => {
        const row = sql("SELECT holder, pid, host FROM po_writer WHERE id = 1").get() as
          | { holder: string; pid: number; host: string }
          | undefined;
        if (row && row.holder !== holder && !holderIsDead(row.holder)) {
          throw new StoreLockedError(path, Number(row.pid), row.host);
        }
        sql(
          `INSERT INTO po_writer (id, holder, pid, host, since) VALUES (1, ?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid,
             host = excluded.host, since = excluded.since
           WHERE po_writer.holder <> excluded.holder`,
        ).run(holder, owner.pid, owner.host, Date.now());
      });
      claimed = holder;
    },
    async claimAccount(account) {
      const given = validAccount(account);
      write(() => {
        sql("INSERT INTO po_meta (name, value) VALUES ('account', ?) ON CONFLICT DO NOTHING").run(
          JSON.stringify(given),
        );
        const stored = parseAccount(
          (sql("SELECT value FROM po_meta WHERE name = 'account'").get() as { value: string })
            .value,
        ) as StoreAccount;
        if (!sameAccount(stored, given)) throw new StoreAccountError(stored, given);
      });
    },
    async info() {
      const row = sql("SELECT value FROM po_meta WHERE name = 'account'").get() as
        | { value: string }
        | undefined;
      return { schemaVersion: schemaVersionOf(open()), account: parseAccount(row?.value) };
    },
    ...sqliteWrites(open),
    async get(orderNumber) {
      const row = sql("SELECT * FROM po_orders WHERE order_number = ?").get(orderNumber);
      return row ? rowToOrder(row as OrderRow) : undefined;
    },
    async getMany(orderNumbers) {
      const found = new Map<number, StoredOrder>();
      if (orderNumbers.length === 0) return found;
      // One statement for any number of orders: the numbers bound as one JSON array.
      const rows = sql(
        "SELECT * FROM po_orders WHERE order_number IN (SELECT value FROM json_each(?))",
      ).all(JSON.stringify(orderNumbers)) as OrderRow[];
      for (const row of rows) {
        const order = rowToOrder(row);
        found.set(order.orderNumber, order);
      }
      return found;
    },
    soleWriter: () => true,
    async orders(query) {
      return queryOrdersSqlite(sql, query);
    },
    async claimDue(epochMs, limit, holdUntil) {
      return write(() => {
        const rows = sql(
          "SELECT order_number FROM po_orders WHERE next_poll_at IS NOT NULL AND next_poll_at <= ? ORDER BY next_poll_at, order_number LIMIT ?",
        ).all(epochMs, limit) as { order_number: number }[];
        const hold = sql("UPDATE po_orders SET next_poll_at = ? WHERE order_number = ?");
        for (const row of rows) hold.run(holdUntil, row.order_number);
        return rows.map((r) => r.order_number);
      });
    },
    async lease(name, holder, now, expiresAt) {
      return write(() => {
        const row = sql("SELECT holder FROM po_leases WHERE name = ?").get(name) as
          | { holder: string }
          | undefined;
        // A holder whose process is gone is passed over now, not when its lease runs out.
        const dead = row && row.holder !== holder && holderIsDead(row.holder) ? row.holder : null;
        const taken = sql(
          `INSERT INTO po_leases (name, holder, since, expires_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,
             since = CASE WHEN po_leases.holder = excluded.holder THEN po_leases.since ELSE excluded.since END
           WHERE po_leases.holder = excluded.holder OR po_leases.expires_at <= ? OR po_leases.holder = ?`,
        ).run(name, holder, now, expiresAt, now, dead);
        return taken.changes > 0;
      });
    },
    async leaseHolder(name) {
      const row = sql("SELECT holder, since, expires_at FROM po_leases WHERE name = ?").get(name) as
        | { holder: string; since: number; expires_at: number }
        | undefined;
      return row ? { holder: row.holder, since: row.since, expiresAt: row.expires_at } : null;
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
    async dueStats(epochMs) {
      const row = sql(
        `SELECT COALESCE(SUM(closed = 0 AND unresolvable = 0), 0) AS open,
           COALESCE(SUM(next_poll_at <= ?), 0) AS due,
           MIN(CASE WHEN next_poll_at <= ? THEN next_poll_at END) AS oldest
         FROM po_orders`,
      ).get(epochMs, epochMs) as { open: number; due: number; oldest: number | null };
      return { open: row.open, due: row.due, oldestDueAt: row.oldest };
    },
    async unseen(sweep) {
      const rows = sql(
        "SELECT order_number FROM po_orders WHERE seen_in_sweep <> ? AND unresolvable = 0 ORDER BY order_number",
      ).all(sweep) as { order_number: number }[];
      return rows.map((r) => r.order_number);
    },
    async markSeen(orderNumbers, sweep) {
      const mark = sql("UPDATE po_orders SET seen_in_sweep = ? WHERE order_number = ?");
      write(() => {
        for (const n of orderNumbers) mark.run(sweep, n);
      });
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
    async consumers() {
      return sql("SELECT name, position FROM po_consumers ORDER BY name").all() as {
        name: string;
        position: number;
      }[];
    },
    ...sqliteStream(sql, write),
    async firstObservedAfter(afterId) {
      const row = sql("SELECT observed_at FROM po_changes WHERE id > ? ORDER BY id LIMIT 1").get(
        afterId,
      ) as { observed_at: string } | undefined;
      return row?.observed_at ?? null;
    },
    async close() {
      try {
        // The next process takes over at once instead of checking that this one is gone.
        if (db && claimed !== undefined) sql("DELETE FROM po_writer WHERE holder = ?").run(claimed);
      } finally {
        claimed = undefined;
        runner = undefined;
        statements.clear();
        db?.close();
        db = undefined;
      }
    },
  };
}
