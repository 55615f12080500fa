import { PartnerOrdersError } from "../../core/errors";
import { SchemaVersionError } from "../errors";
import { orderColumnsV3Sqlite } from "./order-columns";
import { backfillSqlite } from "./order-sqlite";
import { checkColumns, consumerGroupsV3, EXPECTED_COLUMNS, MIRROR_SCHEMA_VERSION } from "./schema";
import { changeStreamV3 } from "./sqlite-stream";

/** The part of better-sqlite3 the store uses; typed here so no declaration needs the package. */
export interface Database {
  pragma(source: string, options?: { simple?: boolean }): unknown;
  exec(source: string): unknown;
  prepare(source: string): Statement;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): Transaction<A, R>;
  close(): unknown;
}
export interface Transaction<A extends unknown[], R> {
  (...args: A): R;
  immediate(...args: A): R;
}
export interface Statement {
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

/** The schema version a file holds (0 for a new file or one from before versions were kept). */
export const schemaVersionOf = (database: Database) =>
  Number(database.pragma("user_version", { simple: true }));

const hasTable = (database: Database, name: string) =>
  database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !==
  undefined;

/** Creates or migrates the tables; a file already at this version is only read. */
export async function prepareSchemaSqlite(database: Database, where: string): Promise<void> {
  const found = schemaVersionOf(database);
  if (found > MIRROR_SCHEMA_VERSION) {
    throw new SchemaVersionError(found, MIRROR_SCHEMA_VERSION, where);
  }
  if (found < MIRROR_SCHEMA_VERSION) {
    database
      .transaction(() => {
        // Looked at again under the write lock: another process may have migrated meanwhile.
        const now = schemaVersionOf(database);
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
          database.exec(consumerGroupsV3("sqlite", { consumerOrders: "", changes: "" }));
        }
        database.pragma(`user_version = ${MIRROR_SCHEMA_VERSION}`);
      })
      .immediate();
  }
  await checkColumns(where, COLUMNS, (table) =>
    (database.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name),
  );
}

export type Driver = new (path: string) => Database;

/** better-sqlite3 is an optional peer dependency: only partners using the SQLite store install it. */
export async function loadDriver(): Promise<Driver> {
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
