import { PartnerOrdersError } from "../../core/errors";
import type { ConsumerGroupStore } from "../consume-types";
import { MirrorError, type StoreAccount, StoreAccountError } from "../errors";
import type { MirrorStore, StoredOrder } from "../types";
import { queryOrdersPostgres } from "./order-postgres";
import { Connections, type PgPoolLike, passwordOf, redactConnectionString } from "./pg-connection";
import { pgStream } from "./pg-stream";
import { ConsumerGroups } from "./postgres-groups";
import { LeaseSessions } from "./postgres-lease";
import { ChangeListener, channelName } from "./postgres-listen";
import { loadPg, lockKey, prepareSchema, quoteIdent, validSchema } from "./postgres-schema";
import { pgWrites } from "./postgres-writes";
import { type ChangeRow, type OrderRow, rowToChange, rowToOrder } from "./rows";
import { parseAccount, sameAccount, validAccount } from "./schema";

export type { PgClientLike, PgPoolLike, PgResult } from "./pg-connection";

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions {
  /**
   * The PostgreSQL schema that holds the mirror's tables, created when missing, so several
   * accounts' mirrors can share one database (one schema each). Any name PostgreSQL accepts; it is
   * quoted, so it is used exactly as given (case included).
   * @default the connection's `search_path` (usually `public`)
   */
  schema?: string;
}

/**
 * Advisory lock keys of a store without a schema option: the keys every version has used, so
 * processes of an older and a newer version running side by side during a rolling upgrade still
 * exclude each other. Stores with a schema derive theirs from its name.
 */
const LEGACY_KEYS = { outbox: -7_311_001n, open: -7_311_002n };

/**
 * The mirror on PostgreSQL, for many processes: the same tables and meaning as `sqliteStore`, with
 * each order's read-and-write under a lock, polls claimed with `FOR UPDATE SKIP LOCKED`, the sweep
 * under a lease and consumers' positions shared. On `pg` (an optional peer dependency, loaded when
 * the store opens); pass a connection string or a `pg.Pool` you own.
 *
 * A connection that fails during a call (a restart, a failover, a terminated backend) is never
 * fatal: the call runs again at once on a fresh connection, and if that fails too it throws
 * `StoreUnavailableError`, which the mirror rides out. A pool you pass needs its own
 * `pool.on("error", ...)` listener for connections that fail while idle in it; the pool the store
 * makes from a connection string has one. While this process holds the sweep it keeps one
 * connection of the pool checked out (the server releases the sweep when that connection dies);
 * while its `changes()` or `consume()` loops wait, one more listens for commits (`LISTEN`), and
 * each batch a named consumer has claimed holds one until it is acknowledged.
 *
 * @example
 * const mirror = new OrderMirror({ client, store: postgresStore(process.env.DATABASE_URL) });
 * // several accounts in one database:
 * const other = postgresStore(process.env.DATABASE_URL, { schema: "partner_77" });
 */
export function postgresStore(
  pool: PgPoolLike | string,
  options: PostgresStoreOptions = {},
): MirrorStore {
  const ownsPool = typeof pool === "string";
  if (ownsPool ? pool === "" : typeof (pool as PgPoolLike)?.connect !== "function") {
    throw new PartnerOrdersError("postgresStore needs a connection string or a pg.Pool.");
  }
  const schema = options.schema === undefined ? undefined : validSchema(options.schema);
  const prefix = schema === undefined ? "" : `${quoteIdent(schema)}.`;
  const t = {
    orders: `${prefix}po_orders`,
    changes: `${prefix}po_changes`,
    checkpoints: `${prefix}po_checkpoints`,
    consumers: `${prefix}po_consumers`,
    leases: `${prefix}po_leases`,
    meta: `${prefix}po_meta`,
    externalIds: `${prefix}po_external_ids`,
    consumerOrders: `${prefix}po_consumer_orders`,
  };
  const keys =
    schema === undefined
      ? { ...LEGACY_KEYS, order: (n: number) => BigInt(n) }
      : {
          outbox: lockKey(`${schema}/outbox`),
          open: lockKey(`${schema}/open`),
          order: (n: number) => lockKey(`${schema}/order/${n}`),
        };
  const leaseKey = (name: string) => lockKey(`${schema ?? ""}/lease/${name}`);

  const name = `PostgreSQL ${
    ownsPool ? redactConnectionString(pool as string) : "(the pool given to postgresStore)"
  }${schema === undefined ? "" : `, schema ${quoteIdent(schema)}`}`;
  let db: PgPoolLike | undefined = ownsPool ? undefined : (pool as PgPoolLike);
  const connections = new Connections(
    () => {
      if (!db)
        throw new PartnerOrdersError(
          "The PostgreSQL store is not open: call mirror.sync() or run() first.",
        );
      return db;
    },
    name,
    ownsPool ? passwordOf(pool as string) : undefined,
  );
  const q = (text: string, values?: unknown[]) => connections.query(text, values);
  const leases = new LeaseSessions(connections, t.leases, leaseKey);
  const channel = channelName(schema);
  const groups = new ConsumerGroups(connections, t, schema ?? "");
  const listener = new ChangeListener(connections, channel);

  // The group methods stay off the public type: the mirror finds them with isGroupStore.
  const store: MirrorStore & ConsumerGroupStore = {
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
      try {
        await connections.transaction(async (client) => {
          // Serialised: two processes creating or migrating the tables at once would collide.
          await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [String(keys.open)]);
          await prepareSchema(client, schema, t, name);
        });
      } catch (error) {
        if (error instanceof MirrorError) throw error;
        throw new MirrorError(
          "store_open_failed",
          `${name} could not be opened: ${redactConnectionString((error as Error)?.message ?? String(error))}.`,
          {
            hint: "Check the connection string, the role's rights and the database.",
            cause: error,
          },
        );
      }
    },
    async claimWriter() {
      // Many processes write one PostgreSQL mirror: each write takes its own locks.
    },
    async claimAccount(account) {
      const given = validAccount(account);
      await connections.transaction(async (client) => {
        await client.query(
          `INSERT INTO ${t.meta} (name, value) VALUES ('account', $1) ON CONFLICT DO NOTHING`,
          [JSON.stringify(given)],
        );
        const { rows } = await client.query(`SELECT value FROM ${t.meta} WHERE name = 'account'`);
        const stored = parseAccount((rows[0] as { value: string }).value) as StoreAccount;
        if (!sameAccount(stored, given)) throw new StoreAccountError(stored, given);
      });
    },
    async info() {
      const { rows } = await q(
        `SELECT name, value FROM ${t.meta} WHERE name IN ('schema_version', 'account')`,
      );
      const meta = new Map((rows as { name: string; value: string }[]).map((r) => [r.name, r]));
      return {
        schemaVersion: Number(meta.get("schema_version")?.value ?? 1),
        account: parseAccount(meta.get("account")?.value),
      };
    },
    ...pgWrites(connections, t, keys, channel),
    async get(orderNumber) {
      const { rows } = await q(`SELECT * FROM ${t.orders} WHERE order_number = $1`, [orderNumber]);
      return rows[0] ? rowToOrder(rows[0] as OrderRow) : undefined;
    },
    async getMany(orderNumbers) {
      const found = new Map<number, StoredOrder>();
      if (orderNumbers.length === 0) return found;
      const { rows } = await q(`SELECT * FROM ${t.orders} WHERE order_number = ANY($1::bigint[])`, [
        orderNumbers,
      ]);
      for (const row of rows) {
        const order = rowToOrder(row as OrderRow);
        found.set(order.orderNumber, order);
      }
      return found;
    },
    // The processes of a fleet write the same tables.
    soleWriter: () => false,
    orders: (query) => queryOrdersPostgres(q, t, query),
    async claimDue(epochMs, limit, holdUntil) {
      // Safe to run twice: a claim whose answer was lost holds its orders until `holdUntil`, when
      // they come due again.
      const { rows } = await q(
        `WITH due AS (
           SELECT order_number, next_poll_at FROM ${t.orders}
           WHERE next_poll_at IS NOT NULL AND next_poll_at <= $1
           ORDER BY next_poll_at, order_number LIMIT $2 FOR UPDATE SKIP LOCKED)
         UPDATE ${t.orders} o SET next_poll_at = $3 FROM due WHERE o.order_number = due.order_number
         RETURNING o.order_number, due.next_poll_at AS was`,
        [epochMs, limit, holdUntil],
      );
      // RETURNING keeps no order of its own: soonest first, as SQLite's answer comes.
      return (rows as { order_number: string; was: string }[])
        .map((r) => ({ n: Number(r.order_number), was: Number(r.was) }))
        .sort((a, b) => a.was - b.was || a.n - b.n)
        .map((r) => r.n);
    },
    lease: (leaseName, holder, now, expiresAt) => leases.take(leaseName, holder, now, expiresAt),
    async leaseHolder(leaseName) {
      const { rows } = await q(
        `SELECT holder, since, expires_at FROM ${t.leases} WHERE name = $1`,
        [leaseName],
      );
      const row = rows[0] as { holder: string; since: string; expires_at: string } | undefined;
      return row
        ? { holder: row.holder, since: Number(row.since), expiresAt: Number(row.expires_at) }
        : null;
    },
    releaseLease: (leaseName, holder) => leases.release(leaseName, holder),
    async nextDue() {
      const { rows } = await q(`SELECT MIN(next_poll_at) AS at FROM ${t.orders}`);
      const at = (rows[0] as { at: string | null }).at;
      return at === null ? null : Number(at);
    },
    async dueStats(epochMs) {
      const { rows } = await q(
        `SELECT COUNT(*) FILTER (WHERE NOT closed AND NOT unresolvable) AS open,
           COUNT(*) FILTER (WHERE next_poll_at <= $1) AS due,
           MIN(next_poll_at) FILTER (WHERE next_poll_at <= $1) AS oldest
         FROM ${t.orders}`,
        [epochMs],
      );
      const row = rows[0] as { open: string; due: string; oldest: string | null };
      return {
        open: Number(row.open),
        due: Number(row.due),
        oldestDueAt: row.oldest === null ? null : Number(row.oldest),
      };
    },
    async unseen(sweep) {
      const { rows } = await q(
        `SELECT order_number FROM ${t.orders} WHERE seen_in_sweep <> $1 AND NOT unresolvable ORDER BY order_number`,
        [sweep],
      );
      return (rows as { order_number: string }[]).map((r) => Number(r.order_number));
    },
    async markSeen(orderNumbers, sweep) {
      if (orderNumbers.length === 0) return;
      await q(`UPDATE ${t.orders} SET seen_in_sweep = $1 WHERE order_number = ANY($2::bigint[])`, [
        sweep,
        orderNumbers,
      ]);
    },
    async changesAfter(afterId, limit) {
      const { rows } = await q(`SELECT * FROM ${t.changes} WHERE id > $1 ORDER BY id LIMIT $2`, [
        afterId,
        limit,
      ]);
      return (rows as ChangeRow[]).map(rowToChange);
    },
    async lastChangeId() {
      const { rows } = await q(`SELECT COALESCE(MAX(id), 0) AS id FROM ${t.changes}`);
      return Number((rows[0] as { id: string }).id);
    },
    async getCheckpoint(checkpoint) {
      const { rows } = await q(`SELECT value FROM ${t.checkpoints} WHERE name = $1`, [checkpoint]);
      return (rows[0] as { value: string | null } | undefined)?.value ?? null;
    },
    async setCheckpoint(checkpoint, value) {
      await q(
        `INSERT INTO ${t.checkpoints} (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
        [checkpoint, value],
      );
    },
    async getPosition(consumer) {
      const { rows } = await q(`SELECT position FROM ${t.consumers} WHERE name = $1`, [consumer]);
      const row = rows[0] as { position: string } | undefined;
      return row ? Number(row.position) : null;
    },
    async setPosition(consumer, id) {
      // A group's per-order marks belong to the position they were made past: a position set
      // anew (a reset) starts the group afresh, in the same statement.
      await q(
        `WITH cleared AS (DELETE FROM ${t.consumerOrders} WHERE consumer = $1)
         INSERT INTO ${t.consumers} (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = excluded.position`,
        [consumer, id],
      );
    },
    async consumers() {
      const { rows } = await q(`SELECT name, position FROM ${t.consumers} ORDER BY name`);
      return (rows as { name: string; position: string }[]).map((r) => ({
        name: r.name,
        position: Number(r.position),
      }));
    },
    ...pgStream(connections, t),
    async firstObservedAfter(afterId) {
      const { rows } = await q(
        `SELECT observed_at FROM ${t.changes} WHERE id > $1 ORDER BY id LIMIT 1`,
        [afterId],
      );
      return (rows[0] as { observed_at: string } | undefined)?.observed_at ?? null;
    },
    claimChanges: (consumer, limit, leaseMs) => groups.claim(consumer, limit, leaseMs),
    watchChanges: (wake) => listener.watch(wake),
    async close() {
      await listener.close();
      await leases.closeAll();
      if (ownsPool) {
        const owned = db;
        db = undefined;
        await owned?.end();
      }
    },
  };
  return store;
}
