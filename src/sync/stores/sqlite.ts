import { hostname } from "node:os";
import { PartnerOrdersError } from "../../core/errors";
import {
  MirrorError,
  SchemaVersionError,
  type StoreAccount,
  StoreAccountError,
  StoreLockedError,
} from "../errors";
import { holderIsDead, holderProcess } from "../holder";
import type { Change, MirrorStore } from "../types";
import { orderColumnsV3Sqlite } from "./order-columns";
import { backfillSqlite, queryOrdersSqlite, writeExternalIdsSqlite } from "./order-sqlite";
import {
  type ChangeRow,
  changeToRow,
  type OrderRow,
  orderToRow,
  rowToChange,
  rowToOrder,
  snapshotCandidate,
} from "./rows";
import {
  checkColumns,
  EXPECTED_COLUMNS,
  MIRROR_SCHEMA_VERSION,
  parseAccount,
  sameAccount,
  validAccount,
} from "./schema";
import { backfilling, changeStreamV3, sqliteStream } from "./sqlite-stream";

/** The part of better-sqlite3 the store uses; typed here so no declaration needs the package. */
interface Database {
  pragma(source: string, options?: { simple?: boolean }): unknown;
  exec(source: string): unknown;
  prepare(source: string): Statement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): Transaction<A, R>;
  close(): unknown;
}
interface Transaction<A extends unknown[], R> {
  (...args: A): R;
  immediate(...args: A): R;
}
interface Statement {
  run(...params: unknown[]): { lastInsertRowid: number | bigint; changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The tables at the current version, for a new file. */
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
CREATE TABLE IF NOT EXISTS po_leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  since INTEGER NOT NULL DEFAULT 0,
  expires_at INTEGER NOT NULL
);
${versionTwoTables()}
`;

/** Tables version 2 adds: the account and the process that writes. */
function versionTwoTables(): string {
  return `
CREATE TABLE IF NOT EXISTS po_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS po_writer (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  holder TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  since INTEGER NOT NULL
);`;
}

/** Version 1 to 2, in the transaction that sets the new version. */
function migrateFromOne(now: number): string {
  // A lease taken before leases recorded their start: the migration is the earliest start known.
  return `
ALTER TABLE po_leases ADD COLUMN since INTEGER NOT NULL DEFAULT 0;
UPDATE po_leases SET since = ${Math.trunc(now)};
${versionTwoTables()}`;
}

const COLUMNS = { ...EXPECTED_COLUMNS, po_writer: ["holder", "pid", "host", "since"] };

const UPSERT = `INSERT INTO po_orders
  (order_number, site_id, data, items, shipments, closed, unresolvable, next_poll_at, seen_in_sweep,
   status, updated_on, total, partner_order_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (order_number) DO UPDATE SET site_id = excluded.site_id, data = excluded.data,
  items = excluded.items, shipments = excluded.shipments, closed = excluded.closed,
  unresolvable = excluded.unresolvable, next_poll_at = excluded.next_poll_at,
  seen_in_sweep = MAX(po_orders.seen_in_sweep, excluded.seen_in_sweep),
  status = excluded.status, updated_on = excluded.updated_on, total = excluded.total,
  partner_order_id = COALESCE(excluded.partner_order_id, po_orders.partner_order_id)`;

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
  /**
   * A transaction that writes: BEGIN IMMEDIATE, so it holds the write lock from its first read. A
   * deferred one would read, then fail to upgrade with SQLITE_BUSY_SNAPSHOT when another
   * connection (a consumer storing its position) wrote in between.
   */
  const write = <R>(fn: () => R): R => open().transaction(fn).immediate();
  // SQLite stores booleans as 0/1.
  const bind = (values: unknown[]) => values.map((v) => (typeof v === "boolean" ? Number(v) : v));
  const version = (database: Database) => Number(database.pragma("user_version", { simple: true }));
  const hasTable = (database: Database, name: string) =>
    database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
    undefined;

  /** Creates or migrates the tables; a file already at this version is only read. */
  const prepareSchema = async (database: Database) => {
    const found = version(database);
    if (found > MIRROR_SCHEMA_VERSION) {
      throw new SchemaVersionError(found, MIRROR_SCHEMA_VERSION, where);
    }
    if (found < MIRROR_SCHEMA_VERSION) {
      database
        .transaction(() => {
          // Looked at again under the write lock: another process may have migrated meanwhile.
          const now = version(database);
          if (now > MIRROR_SCHEMA_VERSION)
            throw new SchemaVersionError(now, MIRROR_SCHEMA_VERSION, where);
          if (now === MIRROR_SCHEMA_VERSION) return;
          // Files from before versions were recorded say 0; their tables are version 1. A new file
          // gets the version 2 tables, then each later step as an older file does, all in this one
          // transaction.
          const from = now === 0 && hasTable(database, "po_orders") ? 1 : now;
          if (from === 0) database.exec(SCHEMA);
          if (from === 1) database.exec(migrateFromOne(Date.now()));
          if (from < 3) {
            database.exec(orderColumnsV3Sqlite());
            backfillSqlite(database);
            database.exec(changeStreamV3());
          }
          database.pragma(`user_version = ${MIRROR_SCHEMA_VERSION}`);
        })
        .immediate();
    }
    await checkColumns(where, COLUMNS, (table) =>
      (database.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name),
    );
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
        }
        database.pragma("busy_timeout = 5000");
        await prepareSchema(database);
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
      return { schemaVersion: version(open()), account: parseAccount(row?.value) };
    },
    async commit(orderNumber, decide) {
      return write(() => {
        const row = sql("SELECT * FROM po_orders WHERE order_number = ?").get(orderNumber);
        const current = row ? rowToOrder(row as OrderRow) : undefined;
        const decided = decide(current);
        if (!decided) return [] as Change[];
        sql(UPSERT).run(...bind(orderToRow(decided.next)));
        writeExternalIdsSqlite(sql, current, decided.next);
        const insert = sql(
          "INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload, snapshot) VALUES (?, ?, ?, ?, ?, ?, ?)",
        );
        const first = decided.changes.length > 0 && backfilling(sql);
        return decided.changes.map((change) => {
          const snapshot = first && snapshotCandidate(change);
          const id = Number(insert.run(...changeToRow(change), Number(snapshot)).lastInsertRowid);
          return { ...change, id, snapshot } as Change;
        });
      });
    },
    async get(orderNumber) {
      const row = sql("SELECT * FROM po_orders WHERE order_number = ?").get(orderNumber);
      return row ? rowToOrder(row as OrderRow) : undefined;
    },
    async orders(query) {
      return queryOrdersSqlite(sql, query);
    },
    async claimDue(epochMs, limit, holdUntil) {
      return write(() => {
        const rows = sql(
          "SELECT order_number FROM po_orders WHERE next_poll_at IS NOT NULL AND next_poll_at <= ? ORDER BY next_poll_at LIMIT ?",
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
        statements.clear();
        db?.close();
        db = undefined;
      }
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
