import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { redactedMark } from "../../../src/core/redact";
import { StoreUnavailableError } from "../../../src/sync/errors";
import {
  Connections,
  isConnectionFailure,
  type PgClientLike,
  type PgPoolLike,
  passwordOf,
  redactConnectionString,
} from "../../../src/sync/stores/pg-connection";
import {
  type PostgresServer,
  postgresAvailable,
  startPostgres,
  type TestDatabase,
} from "../../support/postgres.js";

/**
 * The connections under the PostgreSQL store: which errors mean the connection failed, messages
 * free of the password, and a call run again on a fresh connection when its backend was
 * terminated for real (pg_terminate_backend, by another session or by the statement itself).
 */
const available = postgresAvailable();

const coded = (code: unknown, message = "failed") => Object.assign(new Error(message), { code });

describe("isConnectionFailure", () => {
  it("is true for SQLSTATE class 08, the sessions class 57 ends, and socket errors", () => {
    for (const code of ["08000", "08003", "08006", "08P01", "57P01", "57P02", "57P03", "57P05"])
      expect(isConnectionFailure(coded(code)), code).toBe(true);
    for (const code of [
      "ECONNRESET",
      "ECONNREFUSED",
      "EPIPE",
      "ETIMEDOUT",
      "EHOSTUNREACH",
      "ENETUNREACH",
      "ECONNABORTED",
    ])
      expect(isConnectionFailure(coded(code)), code).toBe(true);
  });

  it("is false for a statement's own error, another class 57 state, or a code that is no text", () => {
    // Unique violation, query canceled, lock not available, deadlock: the statement failed.
    for (const code of ["23505", "57014", "55P03", "40P01", "57P04", "", "X08", "ENOENT"])
      expect(isConnectionFailure(coded(code)), code).toBe(false);
    expect(isConnectionFailure(coded(8006))).toBe(false);
    expect(isConnectionFailure(coded(undefined, "syntax error"))).toBe(false);
  });

  it("is true for pg's own messages of a connection that ended, matched as pg words them", () => {
    expect(isConnectionFailure(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isConnectionFailure(new Error("Connection terminated"))).toBe(true);
    expect(isConnectionFailure(new Error("Connection terminated due to connection timeout"))).toBe(
      true,
    );
    expect(
      isConnectionFailure(
        new Error("Client has encountered a connection error and is not queryable"),
      ),
    ).toBe(true);
    expect(isConnectionFailure(new Error("timeout exceeded when trying to connect"))).toBe(true);
    // The first one only at the start: a statement's message quoting it is the statement's.
    expect(isConnectionFailure(new Error('value "Connection terminated" is invalid'))).toBe(false);
    expect(isConnectionFailure(new Error("connection terminated"))).toBe(false);
    expect(isConnectionFailure(new Error("relation does not exist"))).toBe(false);
    // A code that is not a connection failure does not hide a message that is.
    expect(isConnectionFailure(coded("XX000", "Connection terminated unexpectedly"))).toBe(true);
  });

  it("is false for anything that is not an Error", () => {
    expect(isConnectionFailure({ code: "08006", message: "Connection terminated" })).toBe(false);
    expect(isConnectionFailure("Connection terminated")).toBe(false);
    expect(isConnectionFailure(undefined)).toBe(false);
  });
});

describe("redactConnectionString and passwordOf", () => {
  it("blanks the password of a URL and of keyword form, nothing else", () => {
    expect(redactConnectionString("postgres://app:s3cret@db.example:5432/orders")).toBe(
      `postgres://app:${redactedMark}@db.example:5432/orders`,
    );
    expect(redactConnectionString("see postgres://app:a:b@h/d and postgres://u:p@h2/d2")).toBe(
      `see postgres://app:${redactedMark}@h/d and postgres://u:${redactedMark}@h2/d2`,
    );
    // No password: unchanged, the user's name included.
    expect(redactConnectionString("postgres://app@db.example/orders")).toBe(
      "postgres://app@db.example/orders",
    );
    expect(redactConnectionString("host=db user=app password=s3cret dbname=orders")).toBe(
      `host=db user=app password=${redactedMark} dbname=orders`,
    );
    expect(redactConnectionString("host=db PASSWORD = 's3 cr\\'et' dbname=orders")).toBe(
      `host=db PASSWORD = ${redactedMark} dbname=orders`,
    );
    expect(redactConnectionString("postgres://h/d?password=s3cret&sslmode=require")).toBe(
      `postgres://h/d?password=${redactedMark}&sslmode=require`,
    );
    expect(redactConnectionString("password=a password=b")).toBe(
      `password=${redactedMark} password=${redactedMark}`,
    );
  });

  it("reads the password of a URL (decoded), its query, or keyword form", () => {
    expect(passwordOf("postgres://app:p%40ss@db/orders")).toBe("p@ss");
    expect(passwordOf("postgres://app:url@db/orders?password=query")).toBe("url");
    expect(passwordOf("postgres://app@db/orders?password=query")).toBe("query");
    expect(passwordOf("postgres://app@db/orders")).toBeUndefined();
    expect(passwordOf("host=db password=s3cret user=app")).toBe("s3cret");
    expect(passwordOf("host=db PASSWORD = 's3cret' user=app")).toBe("s3cret");
    expect(passwordOf("host=db user=app")).toBeUndefined();
  });
});

describe.runIf(available)("Connections on a real server", () => {
  let server: PostgresServer;
  let database: TestDatabase;
  let admin: pg.Client;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.end().catch(() => undefined);
    await admin?.end();
    await database?.drop();
  });

  async function fresh(name = "PostgreSQL test", secret?: string) {
    database = await server.createDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const pool = new pg.Pool({ connectionString: database.url });
    pool.on("error", () => undefined);
    pools.push(pool);
    const connections = new Connections(() => pool as unknown as PgPoolLike, name, secret);
    return { pool, connections };
  }

  /** Terminates the backend `pid` and waits until the server has ended it. */
  async function terminate(pid: number): Promise<void> {
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    for (let i = 0; i < 500; i++) {
      const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid]);
      if (rows.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`backend ${pid} did not end`);
  }

  /**
   * Settles when `client` has heard its connection end: the backend leaving pg_stat_activity
   * can come before the client's socket reports it.
   */
  const endOf = (client: PgClientLike) =>
    new Promise<void>((resolve) => (client as unknown as pg.Client).once("end", () => resolve()));

  const pidOf = async (client: PgClientLike) =>
    Number(((await client.query("SELECT pg_backend_pid() AS pid")).rows[0] as { pid: number }).pid);

  /**
   * A statement that terminates its own backend the first `times` times it runs (a sequence is
   * outside any transaction, so it counts runs that were rolled back too), then answers `ok`.
   */
  async function selfTerminating(times: number): Promise<string> {
    await admin.query("CREATE SEQUENCE runs");
    return `SELECT CASE WHEN nextval('runs') <= ${times} THEN pg_terminate_backend(pg_backend_pid()) END, 'ok' AS answer`;
  }

  it("a backend terminated while its connection is out: the call fails, and the pool closes that connection", async () => {
    const { pool, connections } = await fresh();
    const before = await connections.use(pidOf);
    expect(pool.idleCount).toBe(1);
    let during = 0;
    const error = await connections
      .use(async (client) => {
        during = await pidOf(client);
        expect(during).toBe(before); // the idle one, reused
        await terminate(during);
        // The client heard the termination while idle: without a listener, the process would end.
        return client.query("SELECT 1");
      })
      .catch((e: unknown) => e);
    expect(isConnectionFailure(error)).toBe(true);
    // Given back with its error: closed, not reused.
    expect(pool.totalCount).toBe(0);
    const after = await connections.use(pidOf);
    expect(after).not.toBe(during);
    expect(pool.idleCount).toBe(1);
  });

  it("a connection given back after a statement's own error is reused", async () => {
    const { pool, connections } = await fresh();
    const first = await connections.use(pidOf);
    const error = await connections
      .use((client) => client.query("SELECT * FROM missing_table"))
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("42P01");
    expect(pool.totalCount).toBe(1);
    expect(await connections.use(pidOf)).toBe(first);
  });

  it("a failure the connection reports mid-call closes it even when the call's own error is another", async () => {
    const { pool, connections } = await fresh();
    const given: unknown[] = [];
    const error = await connections
      .use(async (client) => {
        const release = client.release.bind(client);
        client.release = (reason) => {
          given.push(reason);
          release(reason);
        };
        const ended = endOf(client);
        await terminate(await pidOf(client));
        await ended;
        // The termination was heard; the call then fails for a reason of its own.
        throw new Error("the handler's own failure");
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe("the handler's own failure");
    // Given back with the failure it heard, not as a healthy connection.
    expect(given).toHaveLength(1);
    expect(isConnectionFailure(given[0])).toBe(true);
    expect(pool.totalCount).toBe(0);
  });

  it("query: a statement whose backend is terminated runs again once on a fresh connection", async () => {
    const { pool, connections } = await fresh();
    const sql = await selfTerminating(1);
    const { rows } = await connections.query(sql);
    expect(rows).toEqual([{ case: null, answer: "ok" }]);
    const runs = await admin.query("SELECT last_value FROM runs");
    expect(Number((runs.rows[0] as { last_value: string }).last_value)).toBe(2);
    expect(pool.totalCount).toBe(1);
  });

  it("query: terminated twice, StoreUnavailableError naming the store, the cause kept, the password out", async () => {
    const { connections } = await fresh(
      "PostgreSQL postgres://app:***@db/orders",
      "terminating", // the password, as if the server's words contained it
    );
    const sql = await selfTerminating(5);
    const error = await connections.query(sql).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain("PostgreSQL postgres://app:***@db/orders");
    expect((error as Error).message).not.toContain("terminating");
    expect((error as Error).message).toContain(`${redactedMark} connection due to administrator`);
    expect(isConnectionFailure((error as Error).cause)).toBe(true);
    const runs = await admin.query("SELECT last_value FROM runs");
    expect(Number((runs.rows[0] as { last_value: string }).last_value)).toBe(2);
  });

  it("query: a statement's own error is thrown at once, never run again", async () => {
    const { connections } = await fresh();
    await admin.query("CREATE SEQUENCE runs");
    const error = await connections.query("SELECT nextval('runs'), 1 / 0").catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("22012");
    expect(error).not.toBeInstanceOf(StoreUnavailableError);
    const runs = await admin.query("SELECT last_value FROM runs");
    expect(Number((runs.rows[0] as { last_value: string }).last_value)).toBe(1);
  });

  it("retrying: a second attempt's own error is thrown as it is", async () => {
    const { connections } = await fresh();
    let attempts = 0;
    const own = new Error("the second attempt's own error");
    const error = await connections
      .retrying(async () => {
        attempts++;
        if (attempts === 1) throw coded("57P01", "terminating connection");
        throw own;
      })
      .catch((e: unknown) => e);
    expect(error).toBe(own);
    expect(attempts).toBe(2);
  });

  it("transaction: a backend terminated inside runs the work again whole; the first run's writes are gone", async () => {
    const { connections } = await fresh();
    await admin.query("CREATE TABLE t (n int)");
    const sql = await selfTerminating(1);
    let runs = 0;
    const result = await connections.transaction(async (client) => {
      runs++;
      await client.query("INSERT INTO t VALUES ($1)", [runs]);
      await client.query(sql);
      return runs;
    });
    expect(result).toBe(2);
    expect((await admin.query("SELECT n FROM t")).rows).toEqual([{ n: 2 }]);
  });

  it("transaction: the work's own error rolls back, is thrown, and the connection is kept", async () => {
    const { pool, connections } = await fresh();
    await admin.query("CREATE TABLE t (n int)");
    const pid = await connections.use(pidOf);
    let runs = 0;
    const error = await connections
      .transaction(async (client) => {
        runs++;
        await client.query("INSERT INTO t VALUES (1)");
        throw new Error("refused by the work");
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe("refused by the work");
    expect(runs).toBe(1);
    expect((await admin.query("SELECT n FROM t")).rows).toEqual([]);
    // Rolled back, so the connection is clean (in no transaction) and goes on being used.
    expect(pool.totalCount).toBe(1);
    expect(await connections.use(pidOf)).toBe(pid);
    const state = await connections.use(
      async (client) =>
        (await client.query("SELECT now() = statement_timestamp() AS outside")).rows[0],
    );
    expect(state).toEqual({ outside: true });
  });

  it("transaction: a ROLLBACK that fails marks the connection broken, so the pool closes it", async () => {
    const { pool, connections } = await fresh();
    let runs = 0;
    const error = await connections
      .transaction(async (client) => {
        runs++;
        await terminate(await pidOf(client));
        throw new Error("the work failed after its connection did");
      })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe("the work failed after its connection did");
    expect(runs).toBe(1);
    expect(pool.totalCount).toBe(0);
  });

  it("transaction: a COMMIT refused for the data's sake is the caller's error, not retried", async () => {
    const { connections } = await fresh();
    await admin.query(
      "CREATE TABLE t (n int UNIQUE DEFERRABLE INITIALLY DEFERRED); INSERT INTO t VALUES (1)",
    );
    let runs = 0;
    const error = await connections
      .transaction(async (client) => {
        runs++;
        await client.query("INSERT INTO t VALUES (1)");
      })
      .catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe("23505");
    expect(runs).toBe(1);
  });

  it("a connection that cannot be made fails each attempt, then StoreUnavailableError", async () => {
    const { connections: _unused } = await fresh();
    const url = new URL(database.url);
    url.port = "1"; // nothing listens there
    const pool = new pg.Pool({ connectionString: url.toString() });
    pools.push(pool);
    let made = 0;
    const counting = {
      connect: (callback: never) => {
        made++;
        return (pool.connect as (cb: never) => void)(callback);
      },
    } as unknown as PgPoolLike;
    const connections = new Connections(() => counting, "PostgreSQL on port 1");
    const error = await connections.query("SELECT 1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain("ECONNREFUSED");
    expect(made).toBe(2);
  });

  it("checkOut: a pool that only answers with a promise gets the listener once its connection comes", async () => {
    const { pool } = await fresh();
    const promised = { connect: () => pool.connect() } as unknown as PgPoolLike;
    const connections = new Connections(() => promised, "PostgreSQL test");
    const heard: Error[] = [];
    const client = await connections.checkOut((error) => heard.push(error));
    await terminate(await pidOf(client));
    // The server's notice, then the socket's end.
    for (let i = 0; i < 400 && heard.length < 2; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(heard.length).toBeGreaterThanOrEqual(1);
    expect(heard.every(isConnectionFailure)).toBe(true);
    client.release(heard[0]);
    expect(pool.totalCount).toBe(0);

    const refused = {
      connect: () => Promise.reject(coded("ECONNREFUSED", "connect ECONNREFUSED")),
    } as unknown as PgPoolLike;
    const error = await new Connections(() => refused, "x")
      .checkOut(() => undefined)
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe("connect ECONNREFUSED");
  });

  it("checkOut: the listener is on before the pool's callback returns, and a second answer is ignored", async () => {
    const { pool } = await fresh();
    let listening = -1;
    let again: (() => void) | undefined;
    const both = {
      connect(callback: (error: Error | undefined, client: PgClientLike | undefined) => void) {
        return new Promise<PgClientLike>((resolve) => {
          pool.connect((error, client) => {
            const c = client as unknown as PgClientLike & pg.PoolClient;
            callback(error, c);
            // Synchronously after the pool's callback: already heard.
            listening = c.listenerCount("error");
            again = () => callback(new Error("a second answer"), undefined);
            resolve(c);
          });
        });
      },
    } as unknown as PgPoolLike;
    const connections = new Connections(() => both, "PostgreSQL test");
    const onError = () => undefined;
    const client = await connections.checkOut(onError);
    expect(listening).toBe(1);
    again?.();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The pool answered twice (its callback and its promise): the connection is heard once.
    const heard = (client as unknown as pg.PoolClient).listeners("error");
    expect(heard.filter((listener) => listener === onError)).toHaveLength(1);
    expect((await client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    client.removeListener("error", onError);
    client.release();

    const empty = {
      connect(callback: (error: Error | undefined, client: undefined) => void) {
        callback(undefined, undefined);
      },
    } as unknown as PgPoolLike;
    const error = await new Connections(() => empty, "x")
      .checkOut(() => undefined)
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe("The pool gave no connection.");
  });

  it("use: the error listener lives exactly as long as the connection is out", async () => {
    const { pool, connections } = await fresh();
    let client: pg.PoolClient | undefined;
    let ours: unknown[] = [];
    const idle = await connections.use(async (c) => {
      client = c as unknown as pg.PoolClient;
      ours = client.listeners("error");
    });
    expect(idle).toBeUndefined();
    expect(ours.length).toBe(1);
    expect(client?.listeners("error")).not.toContain(ours[0]);
    expect(pool.idleCount).toBe(1);
  });

  it("unavailable: a password of fewer than four characters is not blanked out of a reason (it would blank out words)", () => {
    const named = (secret: string | undefined) =>
      new Connections(() => ({}) as PgPoolLike, "PostgreSQL db", secret);
    expect(named("abcd").unavailable(new Error("xabcdx")).message).toContain(`x${redactedMark}x`);
    expect(named("abc").unavailable(new Error("xabcx")).message).toContain("xabcx");
    expect(named(undefined).unavailable("plain text reason").message).toContain(
      "plain text reason",
    );
    // Without a password nothing is blanked out, not even the word "undefined".
    expect(named(undefined).unavailable(new Error("column undefined")).message).toContain(
      "column undefined",
    );
    expect(named(undefined).unavailable(new Error("at postgres://u:pw@h/d")).message).not.toContain(
      "pw@",
    );
    expect(named("abcd").name).toBe("PostgreSQL db");
  });
});
