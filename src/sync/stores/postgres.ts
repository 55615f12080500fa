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

/** The part of a `pg.Pool` the store uses; typed here so no declaration needs the package. */
export interface PgPoolLike {
  /** Runs one statement on any pooled connection. */
  query(text: string, values?: unknown[]): Promise<PgResult>;
  /** Checks a connection out, for a transaction. */
  connect(): Promise<PgClientLike>;
  /** Closes every connection. */
  end(): Promise<void>;
}
/** A client checked out of a {@link PgPoolLike}. */
export interface PgClientLike {
  /** Runs one statement on this connection. */
  query(text: string, values?: unknown[]): Promise<PgResult>;
  /** Returns the connection to the pool. */
  release(): void;
}
/** What a statement answers. */
export interface PgResult {
  /** The rows it returned. */
  rows: unknown[];
  /** How many rows it touched. */
  rowCount: number | null;
}

const SCHEMA = `
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
 * Change ids must become visible in id order, or a consumer reading "after id N" could pass over
 * a smaller id committed a moment later. Transactions that append changes take this lock, so ids
 * are drawn and committed one transaction at a time.
 */
const OUTBOX_LOCK = -7_311_001;

/**
 * The mirror on PostgreSQL, for many processes: the same tables and meaning as `sqliteStore`, with
 * each order's read-and-write under a row lock, polls claimed with `FOR UPDATE SKIP LOCKED`, the
 * sweep under a lease and consumers' positions shared. On `pg` (an optional peer dependency, loaded
 * when the store opens); pass a `pg.Pool` you own or a connection string.
 *
 * @example
 * const mirror = new OrderMirror({ client, store: postgresStore(process.env.DATABASE_URL) });
 */
export function postgresStore(pool: PgPoolLike | string): MirrorStore {
  let db: PgPoolLike | undefined = typeof pool === "string" ? undefined : pool;
  const ownsPool = typeof pool === "string";
  const q = async (text: string, values?: unknown[]) => {
    if (!db)
      throw new PartnerOrdersError(
        "The PostgreSQL store is not open: call mirror.sync() or run() first.",
      );
    return db.query(text, values);
  };

  return {
    async open() {
      if (!db) {
        const pg = await loadPg();
        const owned = new pg.Pool({ connectionString: pool as string }) as PgPoolLike & {
          on(event: "error", listener: (error: Error) => void): void;
        };
        // An idle connection the server closed (a restart, a failover) is dropped by the pool and
        // replaced on the next query; without a listener it would crash the process.
        owned.on("error", () => undefined);
        db = owned;
      }
      // Serialised: two processes creating the tables at once would collide on the catalog.
      const client = await db.connect();
      try {
        await client.query("SELECT pg_advisory_lock($1)", [OUTBOX_LOCK - 1]);
        await client.query(SCHEMA);
      } finally {
        await client
          .query("SELECT pg_advisory_unlock($1)", [OUTBOX_LOCK - 1])
          .catch(() => undefined);
        client.release();
      }
    },
    async claimWriter() {},
    async claimAccount() {},
    async info() {
      return { schemaVersion: 1, account: null };
    },
    async commit(orderNumber, decide) {
      if (!db) await q("");
      const client = await (db as PgPoolLike).connect();
      try {
        await client.query("BEGIN");
        // Serialises the read-decide-write of one order across processes, even before its row exists.
        await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [orderNumber]);
        const found = await client.query("SELECT * FROM po_orders WHERE order_number = $1", [
          orderNumber,
        ]);
        const decided = decide(found.rows[0] ? rowToOrder(found.rows[0] as OrderRow) : undefined);
        if (!decided) {
          await client.query("COMMIT");
          return [];
        }
        await client.query(
          `INSERT INTO po_orders
             (order_number, site_id, data, items, shipments, closed, unresolvable, next_poll_at, seen_in_sweep)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ON CONFLICT (order_number) DO UPDATE SET site_id = excluded.site_id, data = excluded.data,
             items = excluded.items, shipments = excluded.shipments, closed = excluded.closed,
             unresolvable = excluded.unresolvable, next_poll_at = excluded.next_poll_at,
             seen_in_sweep = GREATEST(po_orders.seen_in_sweep, excluded.seen_in_sweep)`,
          orderToRow(decided.next),
        );
        const written: Change[] = [];
        if (decided.changes.length) {
          await client.query("SELECT pg_advisory_xact_lock($1)", [OUTBOX_LOCK]);
          for (const change of decided.changes) {
            const inserted = await client.query(
              "INSERT INTO po_changes (type, order_number, site_id, observed_at, cause, payload) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
              changeToRow(change),
            );
            written.push({
              ...change,
              id: Number((inserted.rows[0] as { id: string }).id),
            } as Change);
          }
        }
        await client.query("COMMIT");
        return written;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    async get(orderNumber) {
      const { rows } = await q("SELECT * FROM po_orders WHERE order_number = $1", [orderNumber]);
      return rows[0] ? rowToOrder(rows[0] as OrderRow) : undefined;
    },
    async claimDue(epochMs, limit, holdUntil) {
      const { rows } = await q(
        `UPDATE po_orders SET next_poll_at = $3 WHERE order_number IN (
           SELECT order_number FROM po_orders WHERE next_poll_at IS NOT NULL AND next_poll_at <= $1
           ORDER BY next_poll_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING order_number`,
        [epochMs, limit, holdUntil],
      );
      return (rows as { order_number: string }[]).map((r) => Number(r.order_number));
    },
    async lease(name, holder, now, expiresAt) {
      const { rowCount } = await q(
        `INSERT INTO po_leases (name, holder, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE po_leases.holder = excluded.holder OR po_leases.expires_at <= $4`,
        [name, holder, expiresAt, now],
      );
      return (rowCount ?? 0) > 0;
    },
    async leaseHolder(name) {
      const { rows } = await q("SELECT holder, expires_at FROM po_leases WHERE name = $1", [name]);
      const row = rows[0] as { holder: string; expires_at: string } | undefined;
      return row
        ? { holder: row.holder, since: Number.NaN, expiresAt: Number(row.expires_at) }
        : null;
    },
    async dueStats(epochMs) {
      const { rows } = await q(
        "SELECT COUNT(*) FILTER (WHERE NOT closed) AS open, COUNT(*) FILTER (WHERE next_poll_at <= $1) AS due, MIN(next_poll_at) FILTER (WHERE next_poll_at <= $1) AS oldest FROM po_orders",
        [epochMs],
      );
      const row = rows[0] as { open: string; due: string; oldest: string | null };
      return {
        open: Number(row.open),
        due: Number(row.due),
        oldestDueAt: row.oldest === null ? null : Number(row.oldest),
      };
    },
    async consumers() {
      const { rows } = await q("SELECT name, position FROM po_consumers ORDER BY name");
      return (rows as { name: string; position: string }[]).map((r) => ({
        name: r.name,
        position: Number(r.position),
      }));
    },
    async firstObservedAfter(afterId) {
      const { rows } = await q(
        "SELECT observed_at FROM po_changes WHERE id > $1 ORDER BY id LIMIT 1",
        [afterId],
      );
      return (rows[0] as { observed_at: string } | undefined)?.observed_at ?? null;
    },
    async releaseLease(name, holder) {
      await q("DELETE FROM po_leases WHERE name = $1 AND holder = $2", [name, holder]);
    },
    async nextDue() {
      const { rows } = await q("SELECT MIN(next_poll_at) AS at FROM po_orders");
      const at = (rows[0] as { at: string | null }).at;
      return at === null ? null : Number(at);
    },
    async unseen(sweep) {
      const { rows } = await q(
        "SELECT order_number FROM po_orders WHERE seen_in_sweep <> $1 AND NOT unresolvable ORDER BY order_number",
        [sweep],
      );
      return (rows as { order_number: string }[]).map((r) => Number(r.order_number));
    },
    async markSeen(orderNumbers, sweep) {
      if (orderNumbers.length === 0) return;
      await q("UPDATE po_orders SET seen_in_sweep = $1 WHERE order_number = ANY($2::bigint[])", [
        sweep,
        orderNumbers,
      ]);
    },
    async changesAfter(afterId, limit) {
      const { rows } = await q("SELECT * FROM po_changes WHERE id > $1 ORDER BY id LIMIT $2", [
        afterId,
        limit,
      ]);
      return (rows as ChangeRow[]).map(rowToChange);
    },
    async lastChangeId() {
      const { rows } = await q("SELECT COALESCE(MAX(id), 0) AS id FROM po_changes");
      return Number((rows[0] as { id: string }).id);
    },
    async getCheckpoint(name) {
      const { rows } = await q("SELECT value FROM po_checkpoints WHERE name = $1", [name]);
      return (rows[0] as { value: string | null } | undefined)?.value ?? null;
    },
    async setCheckpoint(name, value) {
      await q(
        "INSERT INTO po_checkpoints (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        [name, value],
      );
    },
    async getPosition(consumer) {
      const { rows } = await q("SELECT position FROM po_consumers WHERE name = $1", [consumer]);
      const row = rows[0] as { position: string } | undefined;
      return row ? Number(row.position) : null;
    },
    async setPosition(consumer, id) {
      await q(
        "INSERT INTO po_consumers (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = excluded.position",
        [consumer, id],
      );
    },
    async close() {
      if (ownsPool) await db?.end();
      db = ownsPool ? undefined : db;
    },
  };
}

interface Pg {
  Pool: new (options: { connectionString: string }) => unknown;
}

/** pg is an optional peer dependency: only partners using the PostgreSQL store install it. */
async function loadPg(): Promise<Pg> {
  try {
    const loaded = (await import("pg")) as unknown as { default?: Pg } & Pg;
    return loaded.default ?? loaded;
  } catch (cause) {
    throw new PartnerOrdersError(
      "postgresStore needs the pg package, an optional peer dependency of partner-orders: run `npm install pg`.",
      { cause },
    );
  }
}
