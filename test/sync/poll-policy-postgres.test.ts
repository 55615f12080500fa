import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PollPolicy } from "../../src/sync/poll-policy";
import { postgresStore } from "../../src/sync/stores/postgres";
import type { MirrorStore, StoredOrder } from "../../src/sync/types";
import {
  type PostgresServer,
  postgresAvailable,
  startPostgres,
  type TestDatabase,
} from "../support/postgres.js";
import { TestClock, testLog } from "./unit/context-support";

/** Webhook health shared by the processes of one PostgreSQL store, and kept across restarts. */
const MIN = 60_000;

describe.runIf(postgresAvailable())("poll policy on PostgreSQL", { timeout: 90_000 }, () => {
  let server: PostgresServer;
  let database: TestDatabase;
  const stores: MirrorStore[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    await database?.drop();
  });

  const processOn = async (clock: TestClock) => {
    const store = postgresStore(database.url);
    stores.push(store);
    await store.open();
    const policy = new PollPolicy({
      store,
      clock,
      log: testLog([]),
      mode: "adaptive",
      openIntervalMs: 5 * MIN,
      maxIntervalMs: 60 * MIN,
    });
    return { store, policy };
  };

  it("one process's webhooks relax another's polling; its finding of a lost one tightens every process's orders", async () => {
    database = await server.createDatabase();
    const clock = new TestClock();
    const a = await processOn(clock);
    const b = await processOn(clock);
    const row = (n: number): StoredOrder => ({
      orderNumber: n,
      siteId: 101,
      order: { orderNumber: n },
      items: [],
      shipments: [],
      closed: false,
      unresolvable: false,
      nextPollAt: clock.now() + 50 * MIN,
      seenInSweep: 0,
    });
    for (const n of [1, 2, 3]) await a.store.commit(n, () => ({ next: row(n), changes: [] }));

    await a.policy.announce(9, "shipment.shipped");
    await b.policy.refresh();
    expect(b.policy.health.state).toBe("healthy");
    expect(b.policy.intervalMs).toBe(60 * MIN);

    const lost = {
      id: 1,
      type: "shipment.shipped",
      orderNumber: 2,
      siteId: 101,
      observedAt: new Date(clock.now()).toISOString(),
      cause: "poll",
      snapshot: false,
    } as never;
    await b.policy.found([lost]);
    // Every order due within the longest interval is due now, across the store.
    expect(await a.store.dueStats(clock.now())).toMatchObject({ due: 3 });
    await a.policy.refresh();
    expect(a.policy.health).toMatchObject({
      state: "degraded",
      reason: "unannounced",
      lastUnannounced: { orderNumber: 2 },
    });
    // A process started later believes the same.
    const c = await processOn(clock);
    await c.policy.refresh();
    expect(c.policy.health.state).toBe("degraded");
  });
});
