import { type PgPoolLike, postgresStore } from "partner-orders/sync";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { newHolder, retireHolder } from "../../../src/sync/holder";
import { postgresAvailable, usePostgres } from "../../support/postgres.js";

/**
 * The sweep lease's session on PostgreSQL, seen from the pool it comes from: what a renewal costs,
 * how a session that failed (during a statement or while idle) or was given back leaves the pool,
 * and statements interrupted by the server. Each store has a pool of this test's, whose
 * connections note every statement they are asked to run.
 */
const available = postgresAvailable();
const T = Date.UTC(2026, 0, 1);
const LEASE = 60_000;

describe.runIf(available)("the sweep lease's session on PostgreSQL", () => {
  const pg$ = usePostgres();

  let admin: pg.Client;
  let url: string;
  async function fresh() {
    url = (await pg$.createDatabase()).url;
    admin = await pg$.connect(url);
  }

  /** A store on its own pool, a live holder name, and what its connections ran. */
  async function startProcess() {
    const pool = new pg.Pool({ connectionString: url });
    pool.on("error", () => undefined);
    const statements: string[] = [];
    /** Runs before the statements it matches are sent: another process acting in between. */
    const before: { pattern: RegExp; act: () => Promise<unknown> }[] = [];
    const released: pg.PoolClient[] = [];
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      client.query = (async (...args: unknown[]) => {
        const text = String(args[0]);
        statements.push(text);
        const hook = before.find(({ pattern }) => pattern.test(text));
        if (hook) {
          before.splice(before.indexOf(hook), 1);
          await hook.act();
        }
        return query(...args);
      }) as unknown as typeof client.query;
    });
    pool.on("release", (_error, client) => released.push(client));
    pg$.closeAfter(() => pool.end());
    const store = postgresStore(pool as unknown as PgPoolLike);
    pg$.closeAfter(() => store.close());
    await store.open();
    const holder = newHolder();
    pg$.closeAfter(async () => retireHolder(holder));
    statements.splice(0);
    return { pool, store, holder, before, released, ran: () => statements.splice(0) };
  }

  async function advisoryLocks(): Promise<number> {
    const { rows } = await admin.query(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted",
    );
    return (rows[0] as { n: number }).n;
  }

  /** The backend holding the sweep's advisory lock. */
  async function lockHolder(): Promise<number> {
    const { rows } = await admin.query(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()",
    );
    expect(rows).toHaveLength(1);
    return (rows[0] as { pid: number }).pid;
  }

  /** Waits until `check` holds, looking every 10 ms for up to 5 s. */
  async function until(check: () => boolean | Promise<boolean>): Promise<void> {
    for (let i = 0; i < 500; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("never happened");
  }

  /** The backend of the database waiting for a lock (a row another session holds), once it waits. */
  async function blockedBackend(): Promise<number> {
    let pid = 0;
    await until(async () => {
      const { rows } = await admin.query(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      pid = (rows[0] as { pid: number } | undefined)?.pid ?? 0;
      return pid !== 0;
    });
    return pid;
  }

  it("a renewal is one statement; a session that died while idle is closed at once, and the lease reported lost without a statement", async () => {
    await fresh();
    const a = await startProcess();
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    a.ran();
    expect(await a.store.lease("sweep", a.holder, T + 1, T + 1 + LEASE)).toBe(true);
    expect(a.ran()).toEqual([expect.stringMatching(/^\s*INSERT INTO po_leases AS l/)]);

    const connections = a.pool.totalCount;
    await admin.query("SELECT pg_terminate_backend($1)", [await lockHolder()]);
    // The pool closes the failed connection as soon as it hears of it, not at the next renewal.
    await until(() => a.pool.totalCount === connections - 1);
    expect(a.released.at(-1)?.listenerCount("error")).toBe(1);
    expect(await a.store.lease("sweep", a.holder, T + 2, T + 2 + LEASE)).toBe(false);
    expect(a.ran()).toEqual([]);

    // Taken again on a new session, which dies too: giving the lease back is its row alone.
    expect(await a.store.lease("sweep", a.holder, T + 3, T + 3 + LEASE)).toBe(true);
    await admin.query("SELECT pg_terminate_backend($1)", [await lockHolder()]);
    await until(() => a.pool.totalCount === connections - 1);
    a.ran();
    await a.store.releaseLease("sweep", a.holder);
    expect(a.ran()).toEqual([expect.stringMatching(/^DELETE FROM po_leases/)]);
    expect(await a.store.leaseHolder("sweep")).toBeNull();
  });

  it("a session whose connection fails while it gives the lease back is closed quietly", async () => {
    await fresh();
    const a = await startProcess();
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    const pid = await lockHolder();
    a.before.push({
      pattern: /^SELECT pg_advisory_unlock/,
      act: async () => {
        const open = a.pool.totalCount;
        await admin.query("SELECT pg_terminate_backend($1)", [pid]);
        // The session has heard its connection end before it sends the unlock.
        await until(() => a.pool.totalCount === open - 1);
      },
    });
    await a.store.releaseLease("sweep", a.holder);
    expect(a.before).toEqual([]);
    expect(await a.store.leaseHolder("sweep")).toBeNull();
    await until(async () => (await advisoryLocks()) === 0);
  });

  it("calls for one lease and holder run one after another, however they arrive", async () => {
    await fresh();
    const a = await startProcess();
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    const order: string[] = [];
    let reached = false;
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const renewal = /^\s*INSERT INTO po_leases/;
    a.before.push(
      { pattern: renewal, act: async () => order.push("first") },
      {
        pattern: renewal,
        act: async () => {
          order.push("second");
          reached = true;
          await gate;
        },
      },
      { pattern: renewal, act: async () => order.push("third") },
    );
    const first = a.store.lease("sweep", a.holder, T + 1, T + 1 + LEASE);
    const second = a.store.lease("sweep", a.holder, T + 2, T + 2 + LEASE);
    expect(await first).toBe(true);
    await until(() => reached);
    // The second is still running when the third arrives: the third waits for it.
    const third = a.store.lease("sweep", a.holder, T + 3, T + 3 + LEASE);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(order).toEqual(["first", "second"]);
    open();
    expect(await Promise.all([second, third])).toEqual([true, true]);
    expect(order).toEqual(["first", "second", "third"]);
    expect((await a.store.leaseHolder("sweep"))?.expiresAt).toBe(T + 3 + LEASE);
  });

  it("giving the lease back returns its connection to the pool, its lock freed and no listener of ours left on it", async () => {
    await fresh();
    const a = await startProcess();
    const b = await startProcess();
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    // A store that does not hold the lease gives nothing back, and has nothing to give.
    await b.store.releaseLease("sweep", b.holder);
    expect((await a.store.leaseHolder("sweep"))?.holder).toBe(a.holder);
    expect(await advisoryLocks()).toBe(1);

    const connections = a.pool.totalCount;
    await a.store.releaseLease("sweep", a.holder);
    expect(await advisoryLocks()).toBe(0);
    expect(a.pool.totalCount).toBe(connections);
    expect(a.pool.idleCount).toBe(connections);
    // Only the pool's own listener is left on the session's connection.
    expect(a.released.at(-1)?.listenerCount("error")).toBe(1);

    // Taken and given back again: a new session each time, the lock freed each time.
    expect(await a.store.lease("sweep", a.holder, T + 1, T + 1 + LEASE)).toBe(true);
    expect(await advisoryLocks()).toBe(1);
    await a.store.releaseLease("sweep", a.holder);
    expect(await advisoryLocks()).toBe(0);
    expect(await b.store.lease("sweep", b.holder, T + 2, T + 2 + LEASE)).toBe(true);
  });

  it("a holder that took the lease by its expiry, without the lock, gives it back without an unlock", async () => {
    await fresh();
    const a = await startProcess();
    const b = await startProcess();
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    // a hangs holding the lock; b takes the lease at its expiry.
    expect(await b.store.lease("sweep", b.holder, T + LEASE, T + 2 * LEASE)).toBe(true);
    b.ran();
    await b.store.releaseLease("sweep", b.holder);
    expect(b.ran()).toEqual([expect.stringMatching(/^DELETE FROM po_leases/)]);
    expect(await advisoryLocks()).toBe(1);
  });

  it("a renewal cancelled by the server is the caller's error, the session kept; one whose backend is terminated reports the lease lost", async () => {
    await fresh();
    const a = await startProcess();
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    const blockRow = async () => {
      await admin.query("BEGIN");
      await admin.query("SELECT * FROM po_leases WHERE name = 'sweep' FOR UPDATE");
    };

    await blockRow();
    const cancelled = a.store.lease("sweep", a.holder, T + 1, T + 1 + LEASE);
    await admin.query("SELECT pg_cancel_backend($1)", [await blockedBackend()]);
    await expect(cancelled).rejects.toMatchObject({ code: "57014" });
    await admin.query("ROLLBACK");
    expect(await advisoryLocks()).toBe(1);
    expect(await a.store.lease("sweep", a.holder, T + 2, T + 2 + LEASE)).toBe(true);
    expect(await advisoryLocks()).toBe(1);

    await blockRow();
    const terminated = a.store.lease("sweep", a.holder, T + 3, T + 3 + LEASE);
    await admin.query("SELECT pg_terminate_backend($1)", [await blockedBackend()]);
    expect(await terminated).toBe(false);
    await admin.query("ROLLBACK");
    await until(async () => (await advisoryLocks()) === 0);
    // Its next try takes the lease afresh, on a new session.
    expect(await a.store.lease("sweep", a.holder, T + 4, T + 4 + LEASE)).toBe(true);
  });

  it("a first try cancelled by the server is the caller's error, and its session is closed with its lock", async () => {
    await fresh();
    const a = await startProcess();
    // Another process's lease row, not yet committed: a's insert waits for it.
    await admin.query("BEGIN");
    await admin.query(
      "INSERT INTO po_leases (name, holder, since, expires_at) VALUES ('sweep', 'other', 0, 0)",
    );
    const taken = a.store.lease("sweep", a.holder, T, T + LEASE);
    const pid = await blockedBackend();
    expect(await advisoryLocks()).toBe(1);
    await admin.query("SELECT pg_cancel_backend($1)", [pid]);
    await expect(taken).rejects.toMatchObject({ code: "57014" });
    await admin.query("ROLLBACK");
    await until(async () => (await advisoryLocks()) === 0);
    expect(await a.store.lease("sweep", a.holder, T + 1, T + 1 + LEASE)).toBe(true);
  });

  it("a refused lease whose row is released before its holder is looked at is refused, not an error", async () => {
    await fresh();
    const a = await startProcess();
    const b = await startProcess();
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    b.before.push({
      pattern: /^SELECT holder FROM po_leases/,
      act: () => a.store.releaseLease("sweep", a.holder),
    });
    expect(await b.store.lease("sweep", b.holder, T + 1, T + 1 + LEASE)).toBe(false);
    expect(b.before).toEqual([]);
    expect(await b.store.lease("sweep", b.holder, T + 2, T + 2 + LEASE)).toBe(true);
  });
});
