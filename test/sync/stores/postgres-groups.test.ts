import { PartnerOrders } from "partner-orders";
import {
  type Change,
  ChangesExpiredError,
  type MirrorStore,
  OrderMirror,
  postgresStore,
} from "partner-orders/sync";
import { createSandbox } from "partner-orders/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ClaimedChanges, ConsumerGroupStore } from "../../../src/sync/consume-types";
import { resetConsumer } from "../../../src/sync/stream";
import {
  type PostgresServer,
  postgresAvailable,
  startPostgres,
  type TestDatabase,
} from "../../support/postgres.js";
import { record } from "./support.js";

/**
 * A named consumer shared by a group of processes on PostgreSQL, against a real server: a reset
 * while members hold per-order marks, and a group left behind by retention.
 */
const available = postgresAvailable();
const LEASE = 30_000;

describe.runIf(available)("consumer groups on PostgreSQL", () => {
  let server: PostgresServer;
  let database: TestDatabase;
  let admin: pg.Client;
  const closers: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await admin?.end();
    await database?.drop();
  });

  /** A store on a new database with a change for each of `orders` (ids 1, 2, … in that order). */
  async function storeWith(orders: number[]): Promise<MirrorStore & ConsumerGroupStore> {
    database = await server.createDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    const store = postgresStore(database.url) as MirrorStore & ConsumerGroupStore;
    closers.push(() => store.close());
    await store.open();
    for (const n of orders) await record(store, n);
    return store;
  }

  const ids = (batch: ClaimedChanges | null) => batch?.changes.map((c) => c.id) ?? [];

  async function marks(): Promise<{ consumer: string; order_number: string; done_id: string }[]> {
    const { rows } = await admin.query(
      "SELECT consumer, order_number, done_id FROM po_consumer_orders ORDER BY consumer, order_number",
    );
    return rows;
  }

  /**
   * Two members of `billing`: one holds order 100001's change 1 unacknowledged, the other claims
   * and acknowledges order 100002's change 2. The position stays at 0 (change 1 is not done) and
   * the group keeps a mark: order 100002 done through 2. `mailer` gets a mark of its own too.
   */
  async function marksPastThePosition(store: MirrorStore & ConsumerGroupStore) {
    const first = await store.claimChanges("billing", 1, LEASE);
    expect(ids(first)).toEqual([1]);
    const second = await store.claimChanges("billing", 1, LEASE);
    expect(ids(second)).toEqual([2]);
    await second?.ack();
    await first?.release();
    const mailerFirst = await store.claimChanges("mailer", 1, LEASE);
    const mailerSecond = await store.claimChanges("mailer", 1, LEASE);
    await mailerSecond?.ack();
    await mailerFirst?.release();
    expect(await store.getPosition("billing")).toBe(0);
    expect(await marks()).toEqual([
      { consumer: "billing", order_number: "100002", done_id: "2" },
      { consumer: "mailer", order_number: "100002", done_id: "2" },
    ]);
  }

  it('resetConsumer(name, "beginning") clears the group\'s marks: members then read every kept change again', async () => {
    const store = await storeWith([100001, 100002, 100003]);
    await marksPastThePosition(store);
    // Without the reset, a member skips change 2: the mark says order 100002 is done through it.
    expect(await resetConsumer(store, "billing", "beginning")).toBe(0);
    expect(await marks()).toEqual([{ consumer: "mailer", order_number: "100002", done_id: "2" }]);
    const again = await store.claimChanges("billing", 10, LEASE);
    expect(ids(again)).toEqual([1, 2, 3]);
    await again?.ack();
    expect(await store.getPosition("billing")).toBe(3);
    // The other consumer's marks were left alone: it still skips what it did.
    const mailer = await store.claimChanges("mailer", 10, LEASE);
    expect(ids(mailer)).toEqual([1, 3]);
    await mailer?.release();
  });

  it('resetConsumer(name, "now") clears the group\'s marks: members read only changes written after it', async () => {
    const store = await storeWith([100001, 100002, 100003]);
    await marksPastThePosition(store);
    expect(await resetConsumer(store, "billing", "now")).toBe(3);
    expect((await marks()).filter((m) => m.consumer === "billing")).toEqual([]);
    expect(await store.claimChanges("billing", 10, LEASE)).toBeNull();
    await record(store, 100004);
    await record(store, 100002, "Shipped");
    const next = await store.claimChanges("billing", 10, LEASE);
    expect(next?.changes.map((c) => [c.id, c.orderNumber])).toEqual([
      [4, 100004],
      [5, 100002],
    ]);
    await next?.release();
  });

  it("a reset moves the position and clears the marks in one statement: when it fails, neither happened", async () => {
    const store = await storeWith([100001, 100002, 100003]);
    await marksPastThePosition(store);
    await admin.query(`
      CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'positions are frozen'; END $$;
      CREATE TRIGGER frozen BEFORE UPDATE ON po_consumers FOR EACH ROW EXECUTE FUNCTION refuse();`);
    const error = await resetConsumer(store, "billing", "now").catch((e: unknown) => e);
    expect((error as Error).message).toContain("positions are frozen");
    // The marks are still there: the DELETE was part of the refused statement.
    expect(await marks()).toHaveLength(2);
    expect(await store.getPosition("billing")).toBe(0);
  });

  it("a group member behind the oldest kept change gets ChangesExpiredError naming the gap, from changes() and consume()", async () => {
    const store = await storeWith([100001, 100002, 100003, 100004, 100005]);
    // The group did changes 1 and 2.
    const done = await store.claimChanges("billing", 2, LEASE);
    expect(ids(done)).toEqual([1, 2]);
    await done?.ack();
    expect(await store.getPosition("billing")).toBe(2);
    // Retention deletes changes 1 to 5 while the group is away; two more are written after.
    const pruned = await store.pruneChanges("2026-06-01T00:00:00.000Z");
    expect(pruned).toEqual({ pruned: 5, prunedThrough: 5 });
    await record(store, 100006);
    await record(store, 100007);

    const sandbox = createSandbox({ clock: "manual" });
    closers.push(() => sandbox.close());
    const mirror = new OrderMirror({
      client: new PartnerOrders({
        baseUrl: sandbox.baseUrl,
        ...sandbox.credentials,
        fetch: sandbox.fetch,
        clock: sandbox.clock,
      }),
      store: postgresStore(database.url),
      clock: sandbox.clock,
    });
    closers.push(() => mirror.close());

    const seen: Change[] = [];
    const fromChanges = await (async () => {
      for await (const change of mirror.changes({ consumer: "billing" })) seen.push(change);
    })().catch((e: unknown) => e);
    expect(seen).toEqual([]);
    expect(fromChanges).toBeInstanceOf(ChangesExpiredError);
    expect(fromChanges).toMatchObject({
      code: "changes_expired",
      consumer: "billing",
      position: 2,
      prunedThrough: 5,
      oldestKeptId: 6,
    });
    expect((fromChanges as Error).message).toContain("ids 3 to 5 are gone");
    expect((fromChanges as Error).message).toContain("the oldest change kept is 6");

    let handled = 0;
    const fromConsume = await mirror
      .consume({
        consumer: "billing",
        handler: async () => {
          handled++;
        },
      })
      .catch((e: unknown) => e);
    expect(handled).toBe(0);
    expect(fromConsume).toBeInstanceOf(ChangesExpiredError);
    expect((fromConsume as Error).message).toContain("ids 3 to 5 are gone");
    // Nothing was claimed or moved: the position and the changes are as they were.
    expect(await store.getPosition("billing")).toBe(2);

    // The way on: a reset to the beginning, after which the group reads the kept changes.
    await mirror.resetConsumer("billing", "beginning");
    expect(await store.getPosition("billing")).toBe(5);
    const batch = await store.claimChanges("billing", 10, LEASE);
    expect(ids(batch)).toEqual([6, 7]);
    await batch?.release();
  });
});
