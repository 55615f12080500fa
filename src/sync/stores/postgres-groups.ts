import type { ClaimedChanges } from "../consume-types";
import type { Change } from "../types";
import { type Connections, isConnectionFailure, type PgClientLike } from "./pg-connection";
import { type ChangeRow, rowToChange } from "./rows";

/** The tables a consumer group reads and writes. */
export interface GroupTables {
  /** The changes, in id order. */
  changes: string;
  /** Each consumer's position: the low watermark (every change at or below it is done). */
  consumers: string;
  /** Per consumer and order, the last change done past the position. */
  consumerOrders: string;
}

/** Candidate pages looked through for orders nobody holds, before a claim gives up for now. */
const MAX_PAGES = 4;

/**
 * A named consumer as a group on PostgreSQL. A member claims a batch in a transaction: it looks
 * at the changes after the consumer's position that are not done (a change is done when it is at
 * or below the position, or at or below its order's `done_id`), takes a transaction-level advisory
 * lock on each of their orders that it can get (`pg_try_advisory_xact_lock`: another member
 * holding an order is skipped, never waited for), and reads the not-done changes of the orders it
 * holds, in id order. Acknowledging writes the orders' `done_id`s in that same transaction and
 * commits, which releases the orders; the position (the low watermark) follows right after.
 *
 * So each change goes to one member, one order to one member at a time and in id order, and what
 * a handler writes through the transaction commits with the acknowledgement or not at all. A
 * member that dies loses its connection and the server rolls back and releases its orders at once;
 * one that hangs (its connection open) is cut off by `idle_in_transaction_session_timeout`, set to
 * the consumer lease for the transaction, and its orders pass on then.
 */
export class ConsumerGroups {
  readonly #connections: Connections;
  readonly #t: GroupTables;
  readonly #scope: string;
  readonly #known = new Set<string>();

  /** `scope` keeps the advisory lock keys of one PostgreSQL schema apart from another's. */
  constructor(connections: Connections, t: GroupTables, scope: string) {
    this.#connections = connections;
    this.#t = t;
    this.#scope = scope;
  }

  /**
   * Claims up to `limit` changes for a member of `consumer`, in a transaction kept open until the
   * batch is acknowledged or released; null when none is free (all done, or held by other
   * members). A connection that fails is `StoreUnavailableError`; the claim is safe to try again.
   */
  async claim(consumer: string, limit: number, leaseMs: number): Promise<ClaimedChanges | null> {
    if (!this.#known.has(consumer)) {
      // Outside the batch's transaction: two members creating the row at once must not wait on
      // each other's batch. A consumer seen the first time starts at the first change.
      await this.#connections.query(
        `INSERT INTO ${this.#t.consumers} (name, position) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`,
        [consumer],
      );
      this.#known.add(consumer);
    }
    return this.#connections.retrying(() => this.#claim(consumer, limit, leaseMs));
  }

  async #claim(consumer: string, limit: number, leaseMs: number): Promise<ClaimedChanges | null> {
    const t = this.#t;
    let failure: Error | undefined;
    const onError = (error: Error) => {
      failure ??= error;
    };
    const client = await this.#connections.checkOut(onError);
    let open = true;
    /** Ends the transaction, runs `then` on the connection, and gives the connection back. */
    const finish = async (statement: "COMMIT" | "ROLLBACK", then?: () => Promise<void>) => {
      if (!open) return;
      open = false;
      try {
        await client.query(statement);
        // The batch's outcome is settled: a failure from here on only leaves the position
        // behind for a while, for the next member to move.
        await then?.().catch((error: unknown) => {
          if (isConnectionFailure(error)) failure ??= error as Error;
        });
      } catch (error) {
        failure ??= error as Error;
        throw isConnectionFailure(error) ? this.#connections.unavailable(error) : error;
      } finally {
        client.release(failure ?? undefined);
        client.removeListener("error", onError);
      }
    };
    try {
      await client.query("BEGIN");
      await client.query(`SELECT set_config('idle_in_transaction_session_timeout', $1, true)`, [
        String(Math.max(1, Math.ceil(leaseMs))),
      ]);
      const { rows: at } = await client.query(
        `SELECT position FROM ${t.consumers} WHERE name = $1`,
        [consumer],
      );
      const position = Number((at[0] as { position: string } | undefined)?.position ?? 0);
      const held = await this.#lockOrders(client, consumer, position, limit);
      if (held.length === 0) {
        await finish("ROLLBACK", () => this.#advance(client, consumer, null));
        return null;
      }
      // A new statement, so a new snapshot: it sees what a member that held these orders before
      // committed, and the position and `done_id`s it reads are of one moment.
      // Each held order's next changes from the (order_number, id) index, then the first
      // `limit` of them all in id order.
      const { rows } = await client.query(
        `SELECT c.* FROM unnest($2::bigint[]) AS h(n)
           CROSS JOIN (SELECT position FROM ${t.consumers} WHERE name = $1) AS p
           LEFT JOIN ${t.consumerOrders} o ON o.consumer = $1 AND o.order_number = h.n
           CROSS JOIN LATERAL (
             SELECT * FROM ${t.changes} x
             WHERE x.order_number = h.n AND x.id > GREATEST(p.position, COALESCE(o.done_id, 0))
             ORDER BY x.id LIMIT $3) AS c
         ORDER BY c.id LIMIT $3`,
        [consumer, held, limit],
      );
      const changes = (rows as ChangeRow[]).map(rowToChange);
      if (changes.length === 0) {
        await finish("ROLLBACK");
        return null;
      }
      return {
        changes,
        tx: {
          exactlyOnce: true,
          query: (text, values) => client.query(text, values),
        },
        ack: async (count = changes.length) => {
          if (!open) return;
          let orders: number[] = [];
          try {
            if (count > 0) orders = await this.#ack(client, consumer, changes.slice(0, count));
          } catch (error) {
            await finish("ROLLBACK").catch(() => undefined);
            throw isConnectionFailure(error) ? this.#connections.unavailable(error) : error;
          }
          await finish("COMMIT", () =>
            orders.length > 0 ? this.#advance(client, consumer, orders) : Promise.resolve(),
          );
        },
        release: () => finish("ROLLBACK").catch(() => undefined),
      };
    } catch (error) {
      if (open) {
        if (!isConnectionFailure(error)) await client.query("ROLLBACK").catch(onError);
        open = false;
        client.release(failure ?? (isConnectionFailure(error) ? (error as Error) : undefined));
        client.removeListener("error", onError);
      }
      throw error;
    }
  }

  /**
   * Locks the orders of the first not-done changes after `position` that no other member holds,
   * until they cover `limit` changes or a few pages were looked through. Returns them.
   */
  async #lockOrders(
    client: PgClientLike,
    consumer: string,
    position: number,
    limit: number,
  ): Promise<number[]> {
    const t = this.#t;
    const group = groupKey(`${this.#scope}/consumer/${consumer}`);
    const tried = new Set<number>();
    const held: number[] = [];
    let covered = 0;
    let after = position;
    for (let page = 0; page < MAX_PAGES && covered < limit; page++) {
      const { rows } = await client.query(
        `SELECT c.id, c.order_number FROM ${t.changes} c
           LEFT JOIN ${t.consumerOrders} o ON o.consumer = $1 AND o.order_number = c.order_number
         WHERE c.id > $2 AND c.id > COALESCE(o.done_id, 0)
         ORDER BY c.id LIMIT $3`,
        [consumer, after, limit],
      );
      const found = (rows as { id: string; order_number: string }[]).map((r) => ({
        id: Number(r.id),
        order: Number(r.order_number),
      }));
      if (found.length === 0) break;
      after = found[found.length - 1]?.id ?? after;
      const fresh = [...new Set(found.map((f) => f.order))].filter((n) => !tried.has(n));
      for (const n of fresh) tried.add(n);
      if (fresh.length > 0) {
        // Try-locks never wait: an order another member holds is simply not taken this time.
        const { rows: locked } = await client.query(
          `SELECT n FROM unnest($2::bigint[]) AS u(n)
           WHERE pg_try_advisory_xact_lock($1::int, (n % 2147483647)::int)`,
          [group, fresh],
        );
        const mine = new Set((locked as { n: string }[]).map((r) => Number(r.n)));
        held.push(...mine);
        covered += found.filter((f) => mine.has(f.order)).length;
      }
      if (found.length < limit) break;
    }
    return held;
  }

  /** Marks `done` finished, in the batch's transaction. */
  async #ack(client: PgClientLike, consumer: string, done: Change[]): Promise<number[]> {
    const last = new Map<number, number>();
    for (const change of done) last.set(change.orderNumber, change.id);
    const orders = [...last.keys()];
    await client.query(
      `INSERT INTO ${this.#t.consumerOrders} AS o (consumer, order_number, done_id)
         SELECT $1, n, d FROM unnest($2::bigint[], $3::bigint[]) AS u(n, d)
       ON CONFLICT (consumer, order_number) DO UPDATE SET done_id = GREATEST(o.done_id, excluded.done_id)`,
      [consumer, orders, [...last.values()]],
    );
    return orders;
  }

  /**
   * Moves the consumer's position up to the low watermark: the change before the first one not
   * done, or the last change when every one is done. Run after a batch commits, outside any
   * transaction, so of members committing at once the last one sees every commit and the
   * position never waits on a batch that has ended; a member that finds nothing to claim runs it
   * too (a member killed between its COMMIT and this). Then drops the per-order rows the
   * position now covers: `orders` only, or all of the consumer's when null.
   */
  async #advance(client: PgClientLike, consumer: string, orders: number[] | null): Promise<void> {
    const t = this.#t;
    await client.query(
      `UPDATE ${t.consumers} AS p SET position = w.at FROM (
         SELECT COALESCE(
           (SELECT c.id - 1 FROM ${t.changes} c
              LEFT JOIN ${t.consumerOrders} o ON o.consumer = $1 AND o.order_number = c.order_number
            WHERE c.id > q.position AND c.id > COALESCE(o.done_id, 0) ORDER BY c.id LIMIT 1),
           (SELECT COALESCE(MAX(id), 0) FROM ${t.changes})) AS at
         FROM ${t.consumers} q WHERE q.name = $1) AS w
       WHERE p.name = $1 AND p.position < w.at`,
      [consumer],
    );
    // Rows at or below the position say nothing more: the table stays as small as the work
    // under way. Deleted after the position that covers them is committed, so a reader that
    // misses a row also sees that position.
    await client.query(
      `DELETE FROM ${t.consumerOrders} WHERE consumer = $1
         AND ($2::bigint[] IS NULL OR order_number = ANY($2::bigint[]))
         AND done_id <= (SELECT position FROM ${t.consumers} WHERE name = $1)`,
      [consumer, orders],
    );
  }
}

/** A 32-bit advisory lock key for a consumer group (FNV-1a), in the two-key space of its own. */
export function groupKey(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(`partner-orders/${text}`)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}
