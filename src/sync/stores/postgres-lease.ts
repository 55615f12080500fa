import { holderIsDead } from "../holder";
import type { PgClientLike } from "./pg-connection";
import { type Connections, isConnectionFailure } from "./pg-connection";

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
export class LeaseSessions {
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
      // A holder of this host whose process is gone (or a closed mirror of this one). A refused
      // row is never this holder's, and holderIsDead is false for no name: the first two tests
      // only narrow the type.
      // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, see above
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
    // Stryker disable next-line BooleanLiteral: equivalent, never used once given back
    session.locked = false;
    // Stryker disable next-line BooleanLiteral: equivalent, never used once given back
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
