import { type PgPoolLike, postgresStore } from "partner-orders/sync";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { decide } from "../../../src/sync/diff";
import type { OrderCommit } from "../../../src/sync/types";
import { postgresAvailable, usePostgres } from "../../support/postgres.js";
import { observation, row } from "./support.js";

/**
 * The PostgreSQL store's page writes against a real server: the statements a page costs, the
 * order its locks are taken in (which keeps processes from waiting on each other in a cycle), the
 * stream's lock that keeps change ids visible in id order, and the notification of a commit.
 */
const available = postgresAvailable();

/** What each statement the store sends is, by the table and purpose it names. */
const STATEMENTS: [RegExp, string][] = [
  [/^BEGIN$/, "begin"],
  [/^COMMIT$/, "commit"],
  [/^SELECT pg_advisory_xact_lock\(k\) FROM unnest/, "lock orders"],
  [/^SELECT \* FROM po_orders WHERE/, "read orders"],
  [/^INSERT INTO po_orders AS o/, "write orders"],
  [/^DELETE FROM po_external_ids/, "clear external ids"],
  [/^INSERT INTO po_external_ids/, "write external ids"],
  [/^UPDATE po_orders SET seen_in_sweep/, "mark seen"],
  [/^INSERT INTO po_checkpoints/, "checkpoint"],
  [/^SELECT pg_advisory_xact_lock\(\$1::bigint\)$/, "lock stream"],
  [/^SELECT nextval\(/, "draw ids"],
  [/^INSERT INTO po_changes/, "append changes"],
  [/^SELECT pg_notify\(/, "notify"],
];
const label = (text: string) =>
  STATEMENTS.find(([pattern]) => pattern.test(text.trim()))?.[1] ?? text;

/** The stream's advisory lock key of a store without a schema option. */
const STREAM_KEY = -7_311_001;

const commitOf = (n: number, status = "Open"): OrderCommit => ({
  orderNumber: n,
  decide: (current) => decide(current, observation(n, status)),
});

describe.runIf(available)("page writes on PostgreSQL", () => {
  const pg$ = usePostgres();

  /**
   * A store on a new database through a pool of this test's, which notes every statement its
   * connections run; `admin` is a session of the test's own.
   */
  async function storeAndLog() {
    const database = await pg$.createDatabase();
    const pool = new pg.Pool({ connectionString: database.url });
    pool.on("error", () => undefined);
    const statements: string[] = [];
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      client.query = ((...args: unknown[]) => {
        if (typeof args[0] === "string") statements.push(label(args[0]));
        return query(...args);
      }) as typeof client.query;
    });
    pg$.closeAfter(() => pool.end());
    const store = postgresStore(pool as unknown as PgPoolLike);
    pg$.closeAfter(() => store.close());
    await store.open();
    const admin = await pg$.connect(database.url);
    /** The statements run since the last call. */
    const ran = () => statements.splice(0);
    ran();
    return { store, admin, ran };
  }

  /**
   * Waits until `write` waits for an advisory lock, and answers the session and the key it waits
   * on. A write that ends first took no such lock: the test fails.
   */
  async function waitingOn(admin: pg.Client, write: Promise<unknown>) {
    let settled = false;
    write.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (let i = 0; i < 100_000; i++) {
      const { rows } = await admin.query(
        `SELECT pid, (classid::bigint << 32 | objid::bigint)::text AS key FROM pg_locks
         WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      if (rows[0]) return rows[0] as { pid: number; key: string };
      if (settled) throw new Error("the write ended without waiting for the lock");
    }
    throw new Error("the write never waited for the lock");
  }

  /** The advisory keys session `pid` holds, ascending. */
  async function heldBy(admin: pg.Client, pid: number): Promise<number[]> {
    const { rows } = await admin.query(
      "SELECT objid::int AS key FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $1 ORDER BY 1",
      [pid],
    );
    return (rows as { key: number }[]).map((r) => r.key);
  }

  it("a page costs the same statements for fifty orders as for one, and none for what it does not write", async () => {
    const { store, ran } = await storeAndLog();
    const one = [
      "begin",
      "lock orders",
      "read orders",
      "write orders",
      "lock stream",
      "draw ids",
      "append changes",
      "notify",
      "commit",
    ];
    await store.commitPage({ commits: [commitOf(1)] });
    expect(ran()).toEqual(one);
    const fifty = Array.from({ length: 50 }, (_, i) => commitOf(100 + i));
    expect((await store.commitPage({ commits: fifty })).flat()).toHaveLength(50);
    expect(ran()).toEqual(one);

    // Only a checkpoint: no lock, no read, no change.
    await store.commitPage({ commits: [], checkpoint: { name: "sweep:cursor:all", value: "c1" } });
    expect(ran()).toEqual(["begin", "checkpoint", "commit"]);
    // Only marks: the marked orders are locked, nothing is read.
    await store.commitPage({ commits: [], seen: { orderNumbers: [1, 100], sweep: 2 } });
    expect(ran()).toEqual(["begin", "lock orders", "mark seen", "commit"]);
    // Orders whose decide answers nothing: read under their locks, nothing written.
    const leave = (orderNumber: number): OrderCommit => ({ orderNumber, decide: () => undefined });
    expect(await store.commitPage({ commits: [leave(1), leave(100)] })).toEqual([[], []]);
    expect(ran()).toEqual(["begin", "lock orders", "read orders", "commit"]);
    // A row written without a change: no stream lock, no id drawn, no notification.
    await store.commit(2, () => ({ next: row(2), changes: [] }));
    expect(ran()).toEqual(["begin", "lock orders", "read orders", "write orders", "commit"]);
  });

  it("an order whose decide answers nothing is left as it is, beside the page's other orders", async () => {
    const { store, ran } = await storeAndLog();
    await store.commit(1, () => ({ next: row(1, { nextPollAt: 5 }), changes: [] }));
    ran();
    const written = await store.commitPage({
      commits: [{ orderNumber: 1, decide: () => undefined }, commitOf(2)],
    });
    expect(written.map((changes) => changes.map((c) => c.type))).toEqual([[], ["order.added"]]);
    expect((await store.get(1))?.nextPollAt).toBe(5);
    expect(ran()).toContain("write orders");
  });

  it("external ids are rewritten only for orders whose lines' ids moved, and cleared when none are left", async () => {
    const { store, admin, ran } = await storeAndLog();
    const withIds = (n: number, ids: (string | null)[]) => ({
      orderNumber: n,
      decide: () => ({
        next: row(n, { items: ids.map((externalId, i) => ({ itemNumber: i + 1, externalId })) }),
        changes: [],
      }),
    });
    const idsOf = async () =>
      (
        await admin.query(
          "SELECT order_number::int AS n, external_id AS id FROM po_external_ids ORDER BY 1, 2",
        )
      ).rows;
    await store.commitPage({ commits: [withIds(1, ["a", "b"]), withIds(2, ["c"])] });
    expect(await idsOf()).toEqual([
      { n: 1, id: "a" },
      { n: 1, id: "b" },
      { n: 2, id: "c" },
    ]);
    ran();
    // The same ids (a line without one added): nothing to rewrite.
    await store.commitPage({ commits: [withIds(1, ["b", "a", null]), withIds(2, ["c"])] });
    expect(ran()).not.toContain("clear external ids");
    // Order 1 loses its ids: cleared, and nothing to insert.
    await store.commitPage({ commits: [withIds(1, [null]), withIds(2, ["c"])] });
    expect(ran()).toEqual([
      "begin",
      "lock orders",
      "read orders",
      "write orders",
      "clear external ids",
      "commit",
    ]);
    expect(await idsOf()).toEqual([{ n: 2, id: "c" }]);
  });

  it("takes the locks of the page's orders, and of those it marks seen, in key order, before reading any", async () => {
    const { store, admin } = await storeAndLog();
    // Without a schema option an order's key is its number. The smallest is held elsewhere: the
    // page waits for it holding none, so it never holds one another page waits for.
    await admin.query("SELECT pg_advisory_lock(1)");
    const page = () =>
      store.commitPage({
        commits: [commitOf(5), commitOf(3)],
        seen: { orderNumbers: [1, 4, 2], sweep: 1 },
      });
    const first = page();
    try {
      const waiting = await waitingOn(admin, first);
      expect(waiting.key).toBe("1");
      expect(await heldBy(admin, waiting.pid)).toEqual([]);
    } finally {
      await admin.query("SELECT pg_advisory_unlock_all()");
    }
    expect((await first).flat().map((c) => c.orderNumber)).toEqual([5, 3]);

    // The largest held elsewhere: the page holds all the others, and waits for it last.
    await admin.query("SELECT pg_advisory_lock(5)");
    const second = page();
    try {
      const last = await waitingOn(admin, second);
      expect(last.key).toBe("5");
      expect(await heldBy(admin, last.pid)).toEqual([1, 2, 3, 4]);
    } finally {
      await admin.query("SELECT pg_advisory_unlock_all()");
    }
    await second;
  });

  it("appends changes under the stream's lock, so ids become visible in id order", async () => {
    const { store, admin } = await storeAndLog();
    await admin.query("SELECT pg_advisory_lock($1::bigint)", [STREAM_KEY]);
    const write = store.commit(7, (current) => decide(current, observation(7)));
    try {
      const waiting = await waitingOn(admin, write);
      expect(waiting.key).toBe(String(STREAM_KEY));
      // It holds its order's lock while it waits: the stream's lock is taken last.
      expect(await heldBy(admin, waiting.pid)).toEqual([7]);
    } finally {
      await admin.query("SELECT pg_advisory_unlock_all()");
    }
    expect((await write).map((c) => [c.id, c.orderNumber])).toEqual([[1, 7]]);
  });

  it("a commit with changes notifies the store's channel; one without changes does not", async () => {
    const { store, admin } = await storeAndLog();
    let heard = 0;
    admin.on("notification", (message) => {
      if (message.channel === "partner_orders_changes") heard += 1;
    });
    await admin.query("LISTEN partner_orders_changes");
    await store.commit(1, () => ({ next: row(1), changes: [] }));
    // A notification reaches a listening session by its next statement at the latest.
    await admin.query("SELECT 1");
    expect(heard).toBe(0);
    await store.commit(2, (current) => decide(current, observation(2)));
    for (let i = 0; i < 100 && heard === 0; i++) await admin.query("SELECT 1");
    expect(heard).toBe(1);
  });
});
