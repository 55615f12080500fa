import { type MirrorStore, postgresStore } from "partner-orders/sync";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { newHolder, retireHolder } from "../../../src/sync/holder";
import { Reader } from "../../../src/sync/reader";
import { Sweeper } from "../../../src/sync/sweep";
import {
  type PostgresServer,
  postgresAvailable,
  startPostgres,
  type TestDatabase,
} from "../../support/postgres.js";
import { testContext } from "../unit/context-support";

/**
 * The sweep lease on PostgreSQL, held by a session the server releases when its connection dies.
 * Each store has its own pool, as separate processes would; times are the mirror's clock (plain
 * numbers here), never the wall clock.
 */
const available = postgresAvailable();
const T = Date.UTC(2026, 0, 1);
const LEASE = 60_000;

describe.runIf(available)("the sweep lease on PostgreSQL", () => {
  let server: PostgresServer;
  let database: TestDatabase;
  let admin: pg.Client;
  const stores: MirrorStore[] = [];
  const holders: string[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const holder of holders.splice(0)) retireHolder(holder);
    await admin?.end();
    await database?.drop();
  });

  /** `count` stores on one new database, each with its own pool and a live holder name. */
  async function processes(count: number) {
    database = await server.createDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    return Promise.all(
      Array.from({ length: count }, async () => {
        const store = postgresStore(database.url);
        stores.push(store);
        await store.open();
        const holder = newHolder();
        holders.push(holder);
        return { store, holder };
      }),
    );
  }

  /**
   * Ends the sessions holding the sweep's advisory lock, as a dead process or a cut network does,
   * and waits for the server to have ended them (termination is a signal to the backend).
   */
  async function killLockHolders(): Promise<number> {
    const { rows } = await admin.query(
      "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()",
    );
    for (let i = 0; i < 500 && (await advisoryLocks()) > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    return (rows[0] as { n: number }).n;
  }

  async function advisoryLocks(): Promise<number> {
    const { rows } = await admin.query(
      "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted",
    );
    return (rows[0] as { n: number }).n;
  }

  it("a holder whose connection died loses the sweep at once: another process takes it over before it expires", async () => {
    const [a, b] = (await processes(2)) as [
      { store: MirrorStore; holder: string },
      { store: MirrorStore; holder: string },
    ];
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    expect(await b.store.lease("sweep", b.holder, T + 1, T + 1 + LEASE)).toBe(false);
    expect(await advisoryLocks()).toBe(1);

    expect(await killLockHolders()).toBe(1);
    // Far from the expiry: only the ended session tells that a is gone.
    expect(await b.store.lease("sweep", b.holder, T + 2, T + 2 + LEASE)).toBe(true);
    expect(await b.store.leaseHolder("sweep")).toEqual({
      holder: b.holder,
      since: T + 2,
      expiresAt: T + 2 + LEASE,
    });
    // a's next renewal finds its lease gone, and so does its next try.
    expect(await a.store.lease("sweep", a.holder, T + 3, T + 3 + LEASE)).toBe(false);
    expect(await a.store.lease("sweep", a.holder, T + 4, T + 4 + LEASE)).toBe(false);
    expect((await a.store.leaseHolder("sweep"))?.holder).toBe(b.holder);
  });

  it("a renewal after the holder's connection died reports the lease lost, even when nobody took it meanwhile", async () => {
    const [a] = (await processes(1)) as [{ store: MirrorStore; holder: string }];
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    expect(await killLockHolders()).toBe(1);
    // Another process could have swept while the lock was free: the holder must not go on as if
    // it had held the sweep throughout.
    expect(await a.store.lease("sweep", a.holder, T + 1, T + 1 + LEASE)).toBe(false);
    // Its next try takes the lease afresh, on a new connection holding the lock.
    expect(await a.store.lease("sweep", a.holder, T + 2, T + 2 + LEASE)).toBe(true);
    expect(await advisoryLocks()).toBe(1);
  });

  it("a holder that hangs with its session open is taken over at expiry, and its successor cannot be robbed by the lock it frees", async () => {
    const [a, b, c] = (await processes(3)) as { store: MirrorStore; holder: string }[] as [
      { store: MirrorStore; holder: string },
      { store: MirrorStore; holder: string },
      { store: MirrorStore; holder: string },
    ];
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    // a hangs: no renewal, its session still open. b takes the sweep once the lease has expired.
    expect(await b.store.lease("sweep", b.holder, T + LEASE - 1, T + 2 * LEASE)).toBe(false);
    expect(await b.store.lease("sweep", b.holder, T + LEASE, T + 2 * LEASE)).toBe(true);
    // a wakes: its renewal fails, and it lets go of the advisory lock.
    expect(await a.store.lease("sweep", a.holder, T + LEASE + 1, T + 2 * LEASE)).toBe(false);
    // c now gets the free advisory lock, but b holds the sweep without having had the lock:
    // c must not read the free lock as b being dead.
    expect(await c.store.lease("sweep", c.holder, T + LEASE + 2, T + 2 * LEASE)).toBe(false);
    expect((await c.store.leaseHolder("sweep"))?.holder).toBe(b.holder);
    // b's renewal takes the lock; from then on b's death is seen at once.
    expect(await b.store.lease("sweep", b.holder, T + LEASE + 3, T + 2 * LEASE + 3)).toBe(true);
    expect(await killLockHolders()).toBe(1);
    expect(await c.store.lease("sweep", c.holder, T + LEASE + 4, T + 2 * LEASE)).toBe(true);
  });

  it("renewals by one holder at once (several reads finishing together) keep one session and one lock", async () => {
    const [a, b] = (await processes(2)) as [
      { store: MirrorStore; holder: string },
      { store: MirrorStore; holder: string },
    ];
    const taken = await Promise.all(
      Array.from({ length: 5 }, (_, i) => a.store.lease("sweep", a.holder, T + i, T + i + LEASE)),
    );
    expect(taken).toEqual([true, true, true, true, true]);
    expect(await advisoryLocks()).toBe(1);
    await a.store.releaseLease("sweep", a.holder);
    // Nothing left holding the lock: the next process takes the sweep at once.
    expect(await advisoryLocks()).toBe(0);
    expect(await b.store.lease("sweep", b.holder, T + 10, T + 10 + LEASE)).toBe(true);
    expect(await advisoryLocks()).toBe(1);
  });

  it("giving the lease back, or closing the store, frees the lock and its connection", async () => {
    const [a, b] = (await processes(2)) as [
      { store: MirrorStore; holder: string },
      { store: MirrorStore; holder: string },
    ];
    expect(await a.store.lease("sweep", a.holder, T, T + LEASE)).toBe(true);
    await a.store.releaseLease("sweep", a.holder);
    expect(await advisoryLocks()).toBe(0);
    expect(await b.store.lease("sweep", b.holder, T + 1, T + 1 + LEASE)).toBe(true);
    // The store closes with the lease still held (a process shutting down): the server frees its
    // lock, so the next process takes the unexpired lease over.
    await b.store.close();
    stores.splice(stores.indexOf(b.store), 1);
    expect(await advisoryLocks()).toBe(0);
    expect(await a.store.lease("sweep", a.holder, T + 2, T + 2 + LEASE)).toBe(true);
    expect((await a.store.leaseHolder("sweep"))?.since).toBe(T + 2);
  });
  it("a mirror whose own session died holding the sweep sweeps again at once: it never reports itself as another holder", async () => {
    const [a, b] = (await processes(2)) as [
      { store: MirrorStore; holder: string },
      { store: MirrorStore; holder: string },
    ];
    const ctx = testContext(a.store, {}, { holder: a.holder, leaseMs: LEASE });
    const empty = async () => ({ data: [], nextCursor: null, rejected: [] });
    const sweeper = new Sweeper(ctx, new Reader(ctx), empty);
    // The lease taken on a session of a's pool (as a renewal from a read left it), then that
    // session ended by the server while a still runs.
    expect(await a.store.lease("sweep", a.holder, ctx.clock.now(), ctx.clock.now() + LEASE)).toBe(
      true,
    );
    expect(await killLockHolders()).toBe(1);
    expect(await sweeper.sweep(false)).toBe("swept");
    expect(await a.store.getCheckpoint("sweep:last")).toBe("1");
    // Another process still finds the sweep held while it runs, and free after it.
    expect(await a.store.lease("sweep", a.holder, ctx.clock.now(), ctx.clock.now() + LEASE)).toBe(
      true,
    );
    expect(await b.store.lease("sweep", b.holder, ctx.clock.now(), ctx.clock.now() + LEASE)).toBe(
      false,
    );
    await a.store.releaseLease("sweep", a.holder);
    expect(await b.store.lease("sweep", b.holder, ctx.clock.now(), ctx.clock.now() + LEASE)).toBe(
      true,
    );
  });
});
