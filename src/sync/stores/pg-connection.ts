import { redactedMark } from "../../core/redact";
import { StoreUnavailableError } from "../errors";

/** The part of a `pg.Pool` the store uses; typed here so no declaration needs the package. */
export interface PgPoolLike {
  /** Runs one statement on any pooled connection. */
  query(text: string, values?: unknown[]): Promise<PgResult>;
  /** Checks a connection out, for a transaction. */
  connect(): Promise<PgClientLike>;
  /**
   * Checks a connection out and hands it to `callback` (pg.Pool calls it in the same turn as it
   * hands the connection over, before reading anything more from the server).
   */
  connect(callback: (error: Error | undefined, client: PgClientLike | undefined) => void): void;
  /** Closes every connection. */
  end(): Promise<void>;
}
/** A client checked out of a {@link PgPoolLike}. */
export interface PgClientLike {
  /** Runs one statement on this connection. */
  query(text: string, values?: unknown[]): Promise<PgResult>;
  /** Returns the connection to the pool; with an error, the pool closes it instead of reusing it. */
  release(error?: Error | boolean): void;
  /** Listens for the connection failing while it is checked out. */
  on(event: "error", listener: (error: Error) => void): unknown;
  /** Stops listening. */
  removeListener(event: "error", listener: (error: Error) => void): unknown;
}
/** What a statement answers. */
export interface PgResult {
  /** The rows it returned. */
  rows: unknown[];
  /** How many rows it touched. */
  rowCount: number | null;
}

/** Socket errors that mean the connection is gone or was never made. */
const SOCKET_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNABORTED",
]);
/** SQLSTATEs of class 57 that end the session: admin or crash shutdown, starting up, idle timeout. */
const SESSION_ENDED = new Set(["57P01", "57P02", "57P03", "57P05"]);

/**
 * True when `error` says the connection failed rather than the statement: SQLSTATE class 08, a
 * server shutting down or starting up, a socket error, or pg's own messages for a connection that
 * ended. Such a statement may be tried again on another connection; any other error may not.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code.startsWith("08") || SESSION_ENDED.has(code) || SOCKET_CODES.has(code)) return true;
  }
  return (
    /^Connection terminated/.test(error.message) ||
    /Client has encountered a connection error and is not queryable/.test(error.message) ||
    /timeout exceeded when trying to connect/.test(error.message)
  );
}

/**
 * A connection string with its password blanked out, in URL form (`postgres://user:pw@host/db`)
 * and keyword form (`password=pw`), so a message can name the database safely.
 */
export function redactConnectionString(text: string): string {
  return text
    .replace(/(\/\/[^/:@\s]*:)[^@\s]*@/g, `$1${redactedMark}@`)
    .replace(/(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)/gi, `$1${redactedMark}`);
}

/** The password a connection string carries, decoded; undefined when none. */
export function passwordOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    const fromQuery = url.searchParams.get("password");
    if (url.password) return decodeURIComponent(url.password);
    return fromQuery ?? undefined;
  } catch {
    return /password\s*=\s*'?([^'\s&]+)/i.exec(text)?.[1];
  }
}

/**
 * Connections checked out of a pool for the time of one store call. A checked-out client has no
 * listener of the pool's, so a connection that breaks while in use (the server restarted, the
 * backend was terminated) would emit an 'error' nobody hears and end the process; each one here
 * carries a listener for exactly as long as it is out, and a broken one goes back with its error
 * so the pool closes it instead of handing it out again.
 */
export class Connections {
  readonly #pool: () => PgPoolLike;
  readonly #name: string;
  readonly #secret: string | undefined;

  /** `name` names the store in messages (no password); `secret` is blanked out of any reason. */
  constructor(pool: () => PgPoolLike, name: string, secret?: string) {
    this.#pool = pool;
    this.#name = name;
    this.#secret = secret && secret.length >= 4 ? secret : undefined;
  }

  /** The store as messages name it. */
  get name(): string {
    return this.#name;
  }

  /**
   * Runs `work` on a checked-out connection. `broken` marks the connection unusable (a failed
   * ROLLBACK), so it is closed instead of reused.
   */
  async use<T>(work: (client: PgClientLike, broken: (error: Error) => void) => Promise<T>) {
    let failure: Error | undefined;
    const onError = (error: Error) => {
      failure ??= error;
    };
    const client = await this.checkOut(onError);
    try {
      return await work(client, onError);
    } catch (error) {
      if (isConnectionFailure(error)) failure ??= error as Error;
      throw error;
    } finally {
      client.release(failure ?? undefined);
      client.removeListener("error", onError);
    }
  }

  /**
   * A connection kept out beyond one call, with `onError` listening until the caller releases it
   * and removes the listener.
   */
  checkOut(onError: (error: Error) => void): Promise<PgClientLike> {
    const pool = this.#pool();
    return new Promise((resolve, reject) => {
      let settled = false;
      const take = (error: unknown, client: PgClientLike | undefined) => {
        if (settled) return;
        settled = true;
        if (error || !client) return reject(error ?? new Error("The pool gave no connection."));
        // At once, not a promise turn later: pg.Pool hands a new connection over while still
        // reading the server's bytes, and a termination right behind them ("terminating
        // connection due to administrator command") would otherwise meet a connection nobody
        // listens to, and end the process.
        client.on("error", onError);
        resolve(client);
      };
      // A pool that only answers with a promise gets the listener when the promise settles.
      const answered = (pool as unknown as { connect(callback: typeof take): unknown }).connect(
        take,
      );
      if (answered && typeof (answered as Promise<PgClientLike>).then === "function") {
        (answered as Promise<PgClientLike>).then(
          (client) => take(undefined, client),
          (error) => take(error, undefined),
        );
      }
    });
  }

  /**
   * `attempt`, and once more at once when its connection failed (the pool has dropped the broken
   * one by then). A second connection failure becomes `StoreUnavailableError`: the caller, which
   * owns the clock, backs off. `attempt` must be safe to run twice: a read, or a transaction whose
   * writes depend only on what it reads inside itself.
   */
  async retrying<T>(attempt: () => Promise<T>): Promise<T> {
    try {
      return await attempt();
    } catch (first) {
      if (!isConnectionFailure(first)) throw first;
    }
    try {
      return await attempt();
    } catch (second) {
      if (!isConnectionFailure(second)) throw second;
      throw this.unavailable(second);
    }
  }

  /** One statement, retried once on a fresh connection. */
  query(text: string, values?: unknown[]): Promise<PgResult> {
    return this.retrying(() => this.use((client) => client.query(text, values)));
  }

  /**
   * `work` inside BEGIN/COMMIT on one connection, run again whole on a fresh connection when the
   * connection fails (even during COMMIT, when whether it landed is unknown): `work` reads what it
   * decides on inside the transaction, so a second run sees the first one's writes if they landed.
   */
  transaction<T>(work: (client: PgClientLike) => Promise<T>): Promise<T> {
    return this.retrying(() =>
      this.use(async (client, broken) => {
        await client.query("BEGIN");
        try {
          const result = await work(client);
          await client.query("COMMIT");
          return result;
        } catch (error) {
          if (!isConnectionFailure(error)) await client.query("ROLLBACK").catch(broken);
          throw error;
        }
      }),
    );
  }

  /** The typed error for a connection that failed twice, its reason free of the password. */
  unavailable(error: unknown): StoreUnavailableError {
    let reason = error instanceof Error ? error.message : String(error);
    if (this.#secret) reason = reason.replaceAll(this.#secret, redactedMark);
    return new StoreUnavailableError(this.#name, redactConnectionString(reason), { cause: error });
  }
}
