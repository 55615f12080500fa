import { PartnerOrdersError } from "../../core/errors";
import { MirrorError, SchemaVersionError, type StoreAccount, StoreAccountError } from "../errors";
import { holderIsDead } from "../holder";
import type { Change, MirrorStore } from "../types";
import { orderColumnsV3Postgres } from "./order-columns";
import { backfillPostgres, queryOrdersPostgres, writeExternalIdsPostgres } from "./order-postgres";
import {
  Connections,
  isConnectionFailure,
  type PgClientLike,
  type PgPoolLike,
  passwordOf,
  redactConnectionString,
} from "./pg-connection";
import { changeStreamV3, insertChange, pgStream } from "./pg-stream";
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
 * connection of the pool checked out (the server releases the sweep when that connection dies).
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
    async commit(orderNumber, decide) {
      // Run again whole when the connection fails, even at COMMIT: the order's row is read again
      // and `decide` compares it with the read, so a COMMIT that landed without its answer leaves
      // nothing more to write and no change is recorded twice.
      return connections.transaction(async (client) => {
        // Serialises the read-decide-write of one order across processes, even before its row exists.
        await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [
          String(keys.order(orderNumber)),
        ]);
        const found = await client.query(`SELECT * FROM ${t.orders} WHERE order_number = $1`, [
          orderNumber,
        ]);
        const current = found.rows[0] ? rowToOrder(found.rows[0] as OrderRow) : undefined;
        const decided = decide(current);
        if (!decided) return [] as Change[];
        await client.query(
          `INSERT INTO ${t.orders} AS o
             (order_number, site_id, data, items, shipments, closed, unresolvable, next_poll_at, seen_in_sweep,
              status, updated_on, total, partner_order_id)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
           ON CONFLICT (order_number) DO UPDATE SET site_id = excluded.site_id, data = excluded.data,
             items = excluded.items, shipments = excluded.shipments, closed = excluded.closed,
             unresolvable = excluded.unresolvable, next_poll_at = excluded.next_poll_at,
             seen_in_sweep = GREATEST(o.seen_in_sweep, excluded.seen_in_sweep),
             status = excluded.status, updated_on = excluded.updated_on, total = excluded.total,
             partner_order_id = COALESCE(excluded.partner_order_id, o.partner_order_id)`,
          orderToRow(decided.next),
        );
        await writeExternalIdsPostgres(client, t.externalIds, current, decided.next);
        const written: Change[] = [];
        if (decided.changes.length) {
          // Change ids must become visible in id order, or a consumer reading "after id N" could
          // pass over a smaller id committed a moment later: ids are drawn and committed one
          // transaction at a time.
          await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [String(keys.outbox)]);
          for (const change of decided.changes) {
            const inserted = await client.query(insertChange(t), [
              ...changeToRow(change),
              snapshotCandidate(change),
            ]);
            const row = inserted.rows[0] as { id: string; snapshot: boolean };
            written.push({ ...change, id: Number(row.id), snapshot: row.snapshot } as Change);
          }
        }
        return written;
      });
    },
    async get(orderNumber) {
      const { rows } = await q(`SELECT * FROM ${t.orders} WHERE order_number = $1`, [orderNumber]);
      return rows[0] ? rowToOrder(rows[0] as OrderRow) : undefined;
    },
    orders: (query) => queryOrdersPostgres(q, t, query),
    async claimDue(epochMs, limit, holdUntil) {
      // Safe to run twice: a claim whose answer was lost holds its orders until `holdUntil`, when
      // they come due again.
      const { rows } = await q(
        `UPDATE ${t.orders} SET next_poll_at = $3 WHERE order_number IN (
           SELECT order_number FROM ${t.orders} WHERE next_poll_at IS NOT NULL AND next_poll_at <= $1
           ORDER BY next_poll_at LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING order_number`,
        [epochMs, limit, holdUntil],
      );
      return (rows as { order_number: string }[]).map((r) => Number(r.order_number));
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
      await q(
        `INSERT INTO ${t.consumers} (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = excluded.position`,
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
    async close() {
      await leases.closeAll();
      if (ownsPool) {
        const owned = db;
        db = undefined;
        await owned?.end();
      }
    },
  };
}

/**
 * The sweep lease on PostgreSQL. Its row (holder, since, expiry) says who sweeps; the holder also
 * holds a session advisory lock on a connection it keeps checked out, which the server releases
 * the moment that session ends (the process died, or its connection was cut). So a process that
 * gets the advisory lock knows the row's holder is gone and takes the row over at once, however
 * long its expiry. The row's `locked` says whether its holder has the advisory lock: a holder that
 * took the row by its expiry (its predecessor hung, still holding the lock) has not, and is only
 * taken over by expiry in turn until it gets the lock. The expiry stays the fallback for a holder
 * that hangs with its session open.
 */
class LeaseSessions {
  readonly #sessions = new Map<string, LeaseSession>();
  readonly #queues = new Map<string, Promise<unknown>>();
  readonly #connections: Connections;
  readonly #table: string;
  readonly #key: (name: string) => bigint;

  constructor(connections: Connections, table: string, key: (name: string) => bigint) {
    this.#connections = connections;
    this.#table = table;
    this.#key = key;
  }

  /**
   * Calls for one lease and holder run one at a time: a holder renewing from several reads at once
   * must not check out two sessions, one of them left holding the lock.
   */
  #serial<T>(id: string, work: () => Promise<T>): Promise<T> {
    const result = (this.#queues.get(id) ?? Promise.resolve()).then(work, work);
    const tail = result.catch(() => undefined);
    this.#queues.set(id, tail);
    void tail.then(() => {
      if (this.#queues.get(id) === tail) this.#queues.delete(id);
    });
    return result;
  }

  take(name: string, holder: string, now: number, expiresAt: number): Promise<boolean> {
    const id = `${name}\u0000${holder}`;
    return this.#serial(id, () => this.#take(id, name, holder, now, expiresAt));
  }

  async #take(
    id: string,
    name: string,
    holder: string,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    const held = this.#sessions.get(id);
    if (held) {
      // The session that held the lease is gone: so is the lease (another process may have it).
      if (held.broken) {
        this.#sessions.delete(id);
        return false;
      }
      try {
        return await this.#attempt(id, held, name, holder, now, expiresAt);
      } catch (error) {
        if (!isConnectionFailure(error)) throw error;
        this.#sessions.delete(id);
        this.#drop(held, error as Error);
        return false;
      }
    }
    return this.#connections.retrying(async () => {
      const session = await this.#checkOut(name);
      try {
        return await this.#attempt(id, session, name, holder, now, expiresAt);
      } catch (error) {
        this.#sessions.delete(id);
        this.#drop(session, error as Error);
        throw error;
      }
    });
  }

  release(name: string, holder: string): Promise<void> {
    const id = `${name}\u0000${holder}`;
    return this.#serial(id, () => this.#release(id, name, holder));
  }

  async #release(id: string, name: string, holder: string): Promise<void> {
    const session = this.#sessions.get(id);
    try {
      await this.#connections.query(`DELETE FROM ${this.#table} WHERE name = $1 AND holder = $2`, [
        name,
        holder,
      ]);
    } finally {
      if (session) await this.#giveBack(id, session);
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions].map(([id, session]) => this.#giveBack(id, session)));
  }

  /** One try at the lease on `session`; keeps the session while the lease is held. */
  async #attempt(
    id: string,
    session: LeaseSession,
    name: string,
    holder: string,
    now: number,
    expiresAt: number,
  ): Promise<boolean> {
    const { client } = session;
    if (!session.locked) {
      const { rows } = await client.query("SELECT pg_try_advisory_lock($1::bigint) AS locked", [
        String(session.key),
      ]);
      session.locked = (rows[0] as { locked: boolean }).locked;
    }
    const upsert = (deadHolder: string | null) =>
      client.query(
        `INSERT INTO ${this.#table} AS l (name, holder, since, expires_at, locked)
           VALUES ($1, $2, $3, $4, $5::boolean)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,
           locked = excluded.locked,
           since = CASE WHEN l.holder = excluded.holder THEN l.since ELSE excluded.since END
         WHERE l.holder = excluded.holder OR l.expires_at <= $3
           OR ($5::boolean AND l.locked) OR l.holder = $6::text`,
        [name, holder, now, expiresAt, session.locked, deadHolder],
      );
    // A renewal, the common case, is one statement; the holder is looked at only when refused.
    let taken = await upsert(null);
    if ((taken.rowCount ?? 0) === 0) {
      const { rows } = await client.query(`SELECT holder FROM ${this.#table} WHERE name = $1`, [
        name,
      ]);
      const current = (rows[0] as { holder: string } | undefined)?.holder;
      // A holder of this host whose process is gone (or a closed mirror of this one).
      if (current !== undefined && current !== holder && holderIsDead(current))
        taken = await upsert(current);
    }
    if ((taken.rowCount ?? 0) > 0) {
      this.#sessions.set(id, session);
      return true;
    }
    // Another live holder has it: let go of the advisory lock so that holder can take it.
    await this.#giveBack(id, session);
    return false;
  }

  /** A connection kept out of the pool while its holder holds the lease, heard if it fails. */
  async #checkOut(name: string): Promise<LeaseSession> {
    let failure: Error | undefined;
    const session: LeaseSession = {
      client: undefined as unknown as PgClientLike,
      key: this.#key(name),
      locked: false,
      broken: false,
      returned: false,
      // The pool hands the connection over while still reading the server's bytes: it may fail
      // before this session has it in hand, and is given back as soon as it has.
      onError: (error) => {
        failure ??= error;
        if (session.client) this.#drop(session, error);
        else session.broken = true;
      },
    };
    session.client = await this.#connections.checkOut(session.onError);
    if (failure) {
      this.#drop(session, failure);
      throw failure;
    }
    return session;
  }

  /** Releases the advisory lock and returns the connection to the pool. */
  async #giveBack(id: string, session: LeaseSession): Promise<void> {
    if (this.#sessions.get(id) === session) this.#sessions.delete(id);
    if (session.returned) return;
    if (session.locked) {
      try {
        await session.client.query("SELECT pg_advisory_unlock($1::bigint)", [String(session.key)]);
      } catch (error) {
        // The session ends with its connection: the server releases the lock then.
        this.#drop(session, error as Error);
        return;
      }
    }
    session.locked = false;
    session.returned = true;
    session.client.release();
    session.client.removeListener("error", session.onError);
  }

  /** The connection failed: the pool closes it, and the server releases its lock with it. */
  #drop(session: LeaseSession, error: Error): void {
    session.broken = true;
    if (session.returned) return;
    session.returned = true;
    session.client.release(error);
    session.client.removeListener("error", session.onError);
  }
}

interface LeaseSession {
  client: PgClientLike;
  key: bigint;
  locked: boolean;
  broken: boolean;
  returned: boolean;
  onError: (error: Error) => void;
}

/** Creates the tables, or migrates an older layout, then checks every column the store uses. */
async function prepareSchema(
  client: PgClientLike,
  schema: string | undefined,
  t: Record<
    "orders" | "changes" | "checkpoints" | "consumers" | "leases" | "meta" | "externalIds",
    string
  >,
  where: string,
): Promise<void> {
  if (schema !== undefined) {
    const { rows } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    // Created only when missing: CREATE SCHEMA needs a right on the database even when it exists.
    if (rows.length === 0) await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
  }
  const found = await schemaVersion(client, t);
  if (found > MIRROR_SCHEMA_VERSION)
    throw new SchemaVersionError(found, MIRROR_SCHEMA_VERSION, where);
  // Each step of the way, in the caller's one transaction.
  if (found === 0) await client.query(createTables(t));
  else if (found === 1) await client.query(migrateFromOne(t));
  // Each later step, for a new database as for an older one, then the version it reached.
  if (found < 3) {
    await client.query(orderColumnsV3Postgres(t));
    await backfillPostgres(client, t);
    await client.query(changeStreamV3(t));
  }
  if (found < MIRROR_SCHEMA_VERSION)
    await client.query(`UPDATE ${t.meta} SET value = $1 WHERE name = 'schema_version'`, [
      String(MIRROR_SCHEMA_VERSION),
    ]);
  await checkColumns(
    where,
    { ...EXPECTED_COLUMNS, po_leases: [...(EXPECTED_COLUMNS.po_leases ?? []), "locked"] },
    async (table) => {
      const { rows } = await client.query(
        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped",
        [`${schema === undefined ? "" : `${quoteIdent(schema)}.`}${table}`],
      );
      return (rows as { attname: string }[]).map((r) => r.attname);
    },
  );
}

/** 0 for no tables; 1 for tables from before versions were recorded. */
async function schemaVersion(
  client: PgClientLike,
  t: Record<"orders" | "meta", string>,
): Promise<number> {
  const { rows } = await client.query(
    "SELECT to_regclass($1) IS NOT NULL AS meta, to_regclass($2) IS NOT NULL AS orders",
    [t.meta, t.orders],
  );
  const found = rows[0] as { meta: boolean; orders: boolean };
  if (found.meta) {
    const version = await client.query(`SELECT value FROM ${t.meta} WHERE name = 'schema_version'`);
    return Number((version.rows[0] as { value: string } | undefined)?.value ?? 1);
  }
  return found.orders ? 1 : 0;
}

function createTables(t: Record<string, string>): string {
  return `
CREATE TABLE ${t.orders} (
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
CREATE INDEX ON ${t.orders} (next_poll_at);
CREATE TABLE ${t.changes} (
  id BIGSERIAL PRIMARY KEY,
  type TEXT NOT NULL,
  order_number BIGINT NOT NULL,
  site_id BIGINT NOT NULL,
  observed_at TEXT NOT NULL,
  cause TEXT NOT NULL,
  payload TEXT NOT NULL
);
CREATE TABLE ${t.checkpoints} (name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE ${t.consumers} (name TEXT PRIMARY KEY, position BIGINT NOT NULL);
CREATE TABLE ${t.leases} (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  since BIGINT NOT NULL DEFAULT ${NOW_MS},
  expires_at BIGINT NOT NULL,
  locked BOOLEAN NOT NULL DEFAULT false
);
${metaTable(t)}`;
}

/**
 * Version 1 to 2. The defaults let a process of the older version, still running during a rolling
 * upgrade, go on writing its lease rows.
 */
function migrateFromOne(t: Record<string, string>): string {
  return `
ALTER TABLE ${t.leases} ADD COLUMN since BIGINT NOT NULL DEFAULT ${NOW_MS};
ALTER TABLE ${t.leases} ADD COLUMN locked BOOLEAN NOT NULL DEFAULT false;
${metaTable(t)}`;
}

function metaTable(t: Record<string, string>): string {
  return `
CREATE TABLE ${t.meta} (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO ${t.meta} (name, value) VALUES ('schema_version', '${MIRROR_SCHEMA_VERSION}');`;
}

/** Epoch milliseconds on the server: a lease row written without a start (by an older version). */
const NOW_MS = "(floor(extract(epoch FROM clock_timestamp()) * 1000))::bigint";

/** A schema name PostgreSQL accepts as an identifier, checked before it reaches any statement. */
function validSchema(schema: unknown): string {
  if (
    typeof schema !== "string" ||
    schema === "" ||
    Buffer.byteLength(schema, "utf8") > 63 ||
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    /[\u0000-\u001f]/.test(schema) ||
    schema.toLowerCase().startsWith("pg_")
  ) {
    throw new PartnerOrdersError(
      `postgresStore's schema must be a PostgreSQL schema name: 1 to 63 bytes, no control characters, not starting with "pg_" (got ${JSON.stringify(String(schema)).slice(0, 80)}).`,
    );
  }
  return schema;
}

/** An identifier quoted for SQL: inner quotes doubled, so any name is taken literally. */
function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A 64-bit advisory lock key from a name (FNV-1a): each schema's locks apart from another's. */
function lockKey(text: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(`partner-orders/${text}`)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return BigInt.asIntN(64, hash);
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
