import { type MirrorStore, type PgPoolLike, postgresStore } from "partner-orders/sync";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { ConsumerGroupStore } from "../../../src/sync/consume-types";
import { postgresAvailable, usePostgres } from "../../support/postgres.js";
import { record } from "./support.js";

/**
 * How a PostgreSQL store hears other processes' commits (`watchChanges`): one LISTEN connection
 * shared by the store's waiting loops, given back when the last stops, dropped when it fails and
 * opened again by the next look, and one channel per schema, named as every version names it.
 */
const available = postgresAvailable();

type Store = MirrorStore & ConsumerGroupStore;

describe.runIf(available)("change notifications on PostgreSQL", () => {
  const pg$ = usePostgres();

  let admin: pg.Client;
  let url: string;
  async function fresh() {
    url = (await pg$.createDatabase()).url;
    admin = await pg$.connect(url);
  }

  /**
   * A store on a pool of this test's; `released` are the connections it gave back, in order, and
   * `beforeListen` runs on the connection about to send a LISTEN, before it is sent.
   */
  async function storeOn(options: { schema?: string; url?: string } = {}) {
    const pool = new pg.Pool({ connectionString: options.url ?? url });
    pool.on("error", () => undefined);
    const released: pg.PoolClient[] = [];
    pool.on("release", (_error, client) => released.push(client));
    const hooks = {
      beforeListen: undefined as ((client: pg.PoolClient) => Promise<void>) | undefined,
    };
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      client.query = (async (...args: unknown[]) => {
        const act = hooks.beforeListen;
        if (act && String(args[0]).startsWith("LISTEN")) {
          hooks.beforeListen = undefined;
          await act(client as pg.PoolClient);
        }
        return query(...args);
      }) as unknown as typeof client.query;
    });
    pg$.closeAfter(() => pool.end());
    const store = postgresStore(pool as unknown as PgPoolLike, options) as Store;
    pg$.closeAfter(() => store.close());
    return { pool, store, released, hooks };
  }

  /** The channels each of `pool`'s connections listens on (all checked out at once, then back). */
  async function channelsOf(pool: pg.Pool): Promise<string[][]> {
    const clients = await Promise.all(
      Array.from({ length: pool.totalCount }, () => pool.connect()),
    );
    try {
      return await Promise.all(
        clients.map(async (c) =>
          (await c.query("SELECT pg_listening_channels() AS c")).rows.map((r) => r.c as string),
        ),
      );
    } finally {
      for (const c of clients) c.release();
    }
  }

  /** A wake that counts its calls. */
  function counter() {
    const wake = () => {
      wake.calls += 1;
    };
    wake.calls = 0;
    return wake;
  }

  /** Waits until `check` holds, looking every 10 ms for up to 5 s. */
  async function until(check: () => boolean | Promise<boolean>): Promise<void> {
    for (let i = 0; i < 500; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("never happened");
  }

  /** The sessions of the database whose last statement was a LISTEN. */
  async function listening(): Promise<number[]> {
    const { rows } = await admin.query(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %' ORDER BY pid",
    );
    return (rows as { pid: number }[]).map((r) => r.pid);
  }

  it("one LISTEN connection serves every waiting loop: each hears other processes' commits, and the last to stop gives it back", async () => {
    await fresh();
    const a = await storeOn();
    const writer = await storeOn();
    await writer.store.open();
    const first = counter();
    const second = counter();
    const one = a.store.watchChanges(first);
    const two = a.store.watchChanges(second);
    // Once listening, the loops are woken: what was committed before is found by their next read.
    await until(() => first.calls === 1);
    expect(await listening()).toHaveLength(1);
    expect(second.calls).toBe(1);

    await record(writer.store, 1);
    await until(() => first.calls === 2 && second.calls === 2);
    // A look while listening opens nothing more.
    one.look();
    two.look();
    await record(writer.store, 2);
    await until(() => first.calls === 3 && second.calls === 3);
    expect(await listening()).toHaveLength(1);

    await one.stop();
    await record(writer.store, 3);
    await until(() => second.calls === 4);
    expect(first.calls).toBe(3);
    expect(await listening()).toHaveLength(1);

    await two.stop();
    expect(await listening()).toEqual([]);
    expect(a.pool.idleCount).toBe(a.pool.totalCount);
    // Back in the pool, no connection of it listens any more.
    expect((await channelsOf(a.pool)).flat()).toEqual([]);
    // Given back clean: only the pool's own listener is left on it.
    const given = a.released.at(-1);
    expect(given?.listenerCount("notification")).toBe(0);
    expect(given?.listenerCount("error")).toBe(1);
    // A look of a stopped watch opens nothing.
    const open = a.pool.totalCount;
    two.look();
    await admin.query("SELECT 1");
    expect(a.pool.idleCount).toBe(open);
    expect(a.pool.totalCount).toBe(open);

    // Watched again (on the same pooled connection): one wake per commit, as before.
    const third = counter();
    const again = a.store.watchChanges(third);
    await until(() => third.calls === 1);
    await record(writer.store, 4);
    await until(() => third.calls === 2);
    await record(writer.store, 5);
    await until(() => third.calls === 3);
    await again.stop();
    expect(first.calls + second.calls).toBe(7);
  });

  it("a LISTEN connection that fails is dropped at once, and the next look listens again", async () => {
    await fresh();
    const a = await storeOn();
    const writer = await storeOn();
    await writer.store.open();
    const wake = counter();
    const watch = a.store.watchChanges(wake);
    await until(() => wake.calls === 1);
    const [pid] = await listening();
    const open = a.pool.totalCount;
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
    await until(() => a.pool.totalCount === open - 1);
    const lost = a.released.at(-1);
    expect(lost?.listenerCount("notification")).toBe(0);
    expect(lost?.listenerCount("error")).toBe(1);

    watch.look();
    await until(() => wake.calls === 2);
    expect(await listening()).toHaveLength(1);
    await record(writer.store, 1);
    await until(() => wake.calls === 3);
    await watch.stop();
    expect(await listening()).toEqual([]);
  });

  it("a connection that fails before its LISTEN is sent is given back, and the next look listens", async () => {
    await fresh();
    const a = await storeOn();
    const wake = counter();
    a.hooks.beforeListen = async (client) => {
      const ended = new Promise((resolve) => client.once("end", resolve));
      await admin.query("SELECT pg_terminate_backend($1)", [
        (client as unknown as { processID: number }).processID,
      ]);
      // The connection has heard its end (and the watch with it) before the LISTEN goes out.
      await ended;
    };
    const watch = a.store.watchChanges(wake);
    await until(() => a.hooks.beforeListen === undefined && a.pool.totalCount === 0);
    expect(wake.calls).toBe(0);
    const failed = a.released.at(-1);
    expect(failed?.listenerCount("notification")).toBe(0);
    expect(failed?.listenerCount("error")).toBe(1);
    watch.look();
    await until(() => wake.calls === 1);
    expect(await listening()).toHaveLength(1);
    await watch.stop();
  });

  it("a watch stopped while it connects leaves nothing listening, and its connection is closed", async () => {
    await fresh();
    const a = await storeOn();
    const wake = counter();
    const watch = a.store.watchChanges(wake);
    await watch.stop();
    expect(wake.calls).toBe(0);
    expect(a.pool.totalCount).toBe(0);
    // Closed by the pool: its session ends on the server a moment later.
    await until(async () => (await listening()).length === 0);
    expect(a.released.at(-1)?.listenerCount("notification")).toBe(0);
    expect(a.released.at(-1)?.listenerCount("error")).toBe(1);
  });

  it("a closed store's watch looks no more, and a store that cannot connect never throws from its watch", async () => {
    await fresh();
    const a = await storeOn();
    const wake = counter();
    const watch = a.store.watchChanges(wake);
    await until(() => wake.calls === 1);
    await a.store.close();
    expect(await listening()).toEqual([]);
    const open = a.pool.totalCount;
    const idle = a.pool.idleCount;
    watch.look();
    await admin.query("SELECT 1");
    expect(a.pool.totalCount).toBe(open);
    expect(a.pool.idleCount).toBe(idle);
    expect(await listening()).toEqual([]);

    // Nothing listens on port 1: the watch keeps quiet, its loops go on looking.
    const nowhere = await storeOn({ url: "postgres://mirror@127.0.0.1:1/orders" });
    const unheard = counter();
    const lost = nowhere.store.watchChanges(unheard);
    lost.look();
    await lost.stop();
    expect(unheard.calls).toBe(0);
  });

  it("each schema has its own channel, named as every version names it", async () => {
    await fresh();
    const a = await storeOn({ schema: "partner_a" });
    const b = await storeOn({ schema: 'Partner "B"' });
    const plain = await storeOn();
    for (const s of [a, b, plain]) await s.store.open();
    const heard: string[] = [];
    admin.on("notification", (message) => heard.push(message.channel));
    await admin.query(
      'LISTEN partner_orders_changes; LISTEN partner_orders_changes_34a55109; LISTEN "partner_orders_changes_81f3cabb"',
    );
    const aWoken = counter();
    const aWatch = a.store.watchChanges(aWoken);
    await until(() => aWoken.calls === 1);

    await record(b.store, 1);
    await record(plain.store, 2);
    await record(a.store, 3);
    await until(() => heard.length === 3 && aWoken.calls === 2);
    expect(heard).toEqual([
      "partner_orders_changes_81f3cabb",
      "partner_orders_changes",
      "partner_orders_changes_34a55109",
    ]);
    expect(aWoken.calls).toBe(2);
    await aWatch.stop();
  });
});
