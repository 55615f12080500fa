import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import {
  type Change,
  type ChangeCause,
  ChangesExpiredError,
  MIRROR_SCHEMA_VERSION,
  type MirrorStore,
  postgresStore,
  StoreAccountError,
  sqliteStore,
} from "partner-orders/sync";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Feed } from "../../../src/sync/feed";
import { newHolder, retireHolder } from "../../../src/sync/holder";
import { STREAM } from "../../../src/sync/stores/schema";
import {
  type PostgresServer,
  postgresAvailable,
  startPostgres,
  type TestDatabase,
} from "../../support/postgres.js";
import { testContext } from "../unit/context-support.js";
import { deadHolder, record, row, V2_ORDERS } from "./support.js";

/**
 * What every store promises the mirror, run against both: a real SQLite file and a real
 * PostgreSQL database (each test its own).
 */
const withPostgres = postgresAvailable();
const NOW = Date.UTC(2026, 0, 1);
const account = { partnerId: "p_1001", baseUrl: "https://orders.example.com" };

interface Kind {
  name: string;
  make(): Promise<MirrorStore>;
  /** Runs a query straight on the database of the store made last, as a partner's SQL would. */
  raw(sql: string): Promise<Record<string, unknown>[]>;
}

let server: PostgresServer | undefined;
const databases: TestDatabase[] = [];
const dir = mkdtempSync(join(tmpdir(), "po-contract-"));
let lastFile = "";
const kinds: Kind[] = [
  {
    name: "sqlite",
    make: async () => {
      lastFile = join(dir, `${crypto.randomUUID()}.db`);
      return sqliteStore(lastFile);
    },
    async raw(sql) {
      const db = new Database(lastFile, { readonly: true });
      try {
        return db.prepare(sql).all() as Record<string, unknown>[];
      } finally {
        db.close();
      }
    },
  },
];
if (withPostgres)
  kinds.push({
    name: "postgres",
    async make() {
      const database = await (server as PostgresServer).createDatabase();
      databases.push(database);
      return postgresStore(database.url);
    },
    async raw(sql) {
      const client = new pg.Client({ connectionString: databases.at(-1)?.url });
      await client.connect();
      try {
        return (await client.query(sql)).rows;
      } finally {
        await client.end();
      }
    },
  });

const open: MirrorStore[] = [];
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  for (const database of databases.splice(0)) await database.drop();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});
beforeAll(async () => {
  if (withPostgres) server = await startPostgres();
}, 60_000);

describe.each(kinds)("the $name store", (kind) => {
  async function store(): Promise<MirrorStore> {
    const made = await kind.make();
    await made.open();
    open.push(made);
    return made;
  }

  it("records its account on first use and refuses another; info() tells version and account", async () => {
    const s = await store();
    expect(await s.info()).toEqual({ schemaVersion: MIRROR_SCHEMA_VERSION, account: null });
    await s.claimAccount(account);
    // The same account again, its URL written with a trailing slash: the same service.
    await s.claimAccount({ ...account, baseUrl: `${account.baseUrl}/` });
    const other = { partnerId: "p_2002", baseUrl: account.baseUrl };
    const refused = await s.claimAccount(other).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreAccountError);
    expect(refused).toMatchObject({
      code: "store_account_mismatch",
      stored: account,
      given: other,
    });
    expect((refused as Error).message).toContain("p_1001");
    expect((refused as Error).message).toContain("p_2002");
    expect(await s.info()).toEqual({ schemaVersion: MIRROR_SCHEMA_VERSION, account });
    await expect(s.claimAccount({ partnerId: "", baseUrl: "x" })).rejects.toThrow(/partnerId/);
  });

  it("a lease keeps its start across renewals; a new holder after expiry starts anew", async () => {
    const s = await store();
    const a = newHolder();
    const b = newHolder();
    try {
      expect(await s.leaseHolder("sweep")).toBeNull();
      expect(await s.lease("sweep", a, NOW, NOW + 60_000)).toBe(true);
      expect(await s.lease("sweep", a, NOW + 20_000, NOW + 80_000)).toBe(true);
      expect(await s.leaseHolder("sweep")).toEqual({
        holder: a,
        since: NOW,
        expiresAt: NOW + 80_000,
      });
      // b is alive and a's lease runs: refused until it expires.
      expect(await s.lease("sweep", b, NOW + 79_999, NOW + 140_000)).toBe(false);
      expect(await s.lease("sweep", b, NOW + 80_000, NOW + 140_000)).toBe(true);
      expect(await s.leaseHolder("sweep")).toEqual({
        holder: b,
        since: NOW + 80_000,
        expiresAt: NOW + 140_000,
      });
      await s.releaseLease("sweep", a); // not a's any more: nothing happens
      expect((await s.leaseHolder("sweep"))?.holder).toBe(b);
      await s.releaseLease("sweep", b);
      expect(await s.leaseHolder("sweep")).toBeNull();
    } finally {
      retireHolder(a);
      retireHolder(b);
    }
  });

  it("passes over a lease holder whose process is gone, or a closed mirror of this process, before expiry", async () => {
    const s = await store();
    const gone = await deadHolder();
    const alive = newHolder();
    const next = newHolder();
    try {
      expect(await s.lease("sweep", gone, NOW, NOW + 60_000)).toBe(true);
      expect(await s.lease("sweep", alive, NOW + 1, NOW + 60_001)).toBe(true);
      expect((await s.leaseHolder("sweep"))?.since).toBe(NOW + 1);
      // `alive` is an open mirror of this very process: not dead, so kept.
      expect(await s.lease("sweep", next, NOW + 2, NOW + 60_002)).toBe(false);
      retireHolder(alive);
      expect(await s.lease("sweep", next, NOW + 3, NOW + 60_003)).toBe(true);
      expect(await s.leaseHolder("sweep")).toMatchObject({ holder: next, since: NOW + 3 });
    } finally {
      retireHolder(alive);
      retireHolder(next);
    }
  });

  it("dueStats counts open orders (neither closed nor unresolvable) and those due now", async () => {
    const s = await store();
    const put = (n: number, extra: Parameters<typeof row>[1]) =>
      s.commit(n, () => ({ next: row(n, extra), changes: [] }));
    await put(1, { nextPollAt: NOW - 5_000 }); // open, due for 5 s
    await put(2, { nextPollAt: NOW }); // open, due now
    await put(3, { nextPollAt: NOW + 1 }); // open, not yet due
    await put(4, { closed: true, nextPollAt: NOW - 9_000 }); // closed, its one re-read due
    await put(5, { closed: true, nextPollAt: null }); // closed, never polled again
    await put(6, { unresolvable: true, nextPollAt: null }); // answers 404
    expect(await s.dueStats(NOW)).toEqual({ open: 3, due: 3, oldestDueAt: NOW - 9_000 });
    expect(await s.dueStats(NOW - 100_000)).toEqual({ open: 3, due: 0, oldestDueAt: null });
    expect(await s.nextDue()).toBe(NOW - 9_000);
  });

  it("getMany reads the stored rows of many orders in one call, each as get() gives it", async () => {
    const s = await store();
    const put = (n: number, extra: Parameters<typeof row>[1]) =>
      s.commit(n, () => ({ next: row(n, extra), changes: [] }));
    await put(1, { nextPollAt: NOW, seenInSweep: 4 });
    await put(2, { unresolvable: true, closed: true, items: null, shipments: null });
    await put(3, { partnerOrderId: "po-3", items: [{ itemNumber: 1, sku: "A" }] });
    await put(2 ** 40, {});
    expect(await s.getMany([])).toEqual(new Map());
    const found = await s.getMany([3, 1, 99, 2, 2 ** 40]);
    // Never stored (99): no entry. The others keyed by number, each exactly as get() reads it.
    expect([...found.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 2 ** 40]);
    for (const n of [1, 2, 3, 2 ** 40]) expect(found.get(n)).toEqual(await s.get(n));
    expect(found.get(3)?.partnerOrderId).toBe("po-3");
    expect(found.get(2)).toMatchObject({ unresolvable: true, closed: true, items: null });
    expect(found.get(1)).toMatchObject({ nextPollAt: NOW, seenInSweep: 4 });
    expect(await s.getMany([99, 100])).toEqual(new Map());
    // SQLite refuses a second writing process; the processes of a PostgreSQL fleet all write.
    expect(s.soleWriter()).toBe(kind.name === "sqlite");
  });

  it("lists consumers by name, and the observedAt of the first change after a position", async () => {
    const s = await store();
    expect(await s.consumers()).toEqual([]);
    expect(await s.firstObservedAfter(0)).toBeNull();
    const [first] = await record(s, 7);
    const [second] = await record(s, 8);
    await s.setPosition("mailer", second?.id as number);
    await s.setPosition("billing", first?.id as number);
    expect(await s.consumers()).toEqual([
      { name: "billing", position: first?.id },
      { name: "mailer", position: second?.id },
    ]);
    expect(await s.firstObservedAfter(0)).toBe("2026-01-01T00:00:00.000Z");
    expect(await s.firstObservedAfter(second?.id as number)).toBeNull();
    expect(await s.getPosition("billing")).toBe(first?.id);
    expect(await s.getPosition("nobody")).toBeNull();
  });

  it("a commit run twice with the same read records its changes once", async () => {
    const s = await store();
    expect((await record(s, 9)).map((c) => c.type)).toEqual(["order.added"]);
    expect(await record(s, 9)).toEqual([]);
    expect((await s.changesAfter(0, 10)).length).toBe(1);
  });

  it("keeps the order total exact: the service's decimal text on SQLite, NUMERIC on PostgreSQL", async () => {
    const s = await store();
    const put = (n: number, total: string | null) =>
      s.commit(n, () => ({
        next: row(n, {
          order: {
            orderNumber: n,
            siteId: 12,
            status: "Open",
            closed: false,
            totals: { order: total },
          },
        }),
        changes: [],
      }));
    await put(1, "0.1000000000");
    await put(2, "0.2000000000");
    await put(3, "12345678901234.1234567891");
    await put(4, null);
    const rows = await kind.raw("SELECT total FROM po_orders ORDER BY order_number");
    // Both drivers give the value back as text, exactly as the service wrote it.
    expect(rows).toEqual([
      { total: "0.1000000000" },
      { total: "0.2000000000" },
      { total: "12345678901234.1234567891" },
      { total: null },
    ]);
  });

  it("filters stored orders on the typed columns and pages them by order number", async () => {
    const s = await store();
    const put = (
      n: number,
      order: Record<string, unknown>,
      extra: Parameters<typeof row>[1] = {},
    ) =>
      s.commit(n, () => ({
        next: row(n, {
          siteId: order.siteId as number,
          order: { orderNumber: n, ...order },
          ...extra,
        }),
        changes: [],
      }));
    const [a, b] = V2_ORDERS;
    await put(a.orderNumber, a.order, { items: [...a.items], partnerOrderId: "po-a" });
    await put(b.orderNumber, b.order, { items: [...b.items], closed: true });
    await put(
      100003,
      { siteId: 12, status: "In Production", closed: false },
      { unresolvable: true },
    );
    const numbers = async (query: Record<string, unknown>) =>
      (await s.orders({ after: 0, limit: 10, ...query })).map((o) => o.orderNumber);
    expect(await numbers({})).toEqual([100001, 100002, 100003]);
    expect(await numbers({ siteId: 12 })).toEqual([100001, 100003]);
    expect(await numbers({ status: "In Production" })).toEqual([100001, 100003]);
    expect(await numbers({ closed: true })).toEqual([100002]);
    expect(await numbers({ unresolvable: true })).toEqual([100003]);
    expect(await numbers({ updatedSince: "2026-01-02T08:00:00.000Z" })).toEqual([100001]);
    expect(await numbers({ updatedSince: "2026-01-02T08:00:00.001Z" })).toEqual([]);
    expect(await numbers({ externalId: "ext-a" })).toEqual([100001]);
    expect(await numbers({ partnerOrderId: "po-a" })).toEqual([100001]);
    expect(await numbers({ after: 100001, limit: 1 })).toEqual([100002]);
    expect(await numbers({ siteId: 12, closed: false, unresolvable: false })).toEqual([100001]);
    const [got] = await s.orders({ after: 0, limit: 1 });
    expect(got).toMatchObject({ orderNumber: 100001, partnerOrderId: "po-a", order: a.order });
    // A partnerOrderId learnt stays when a later write does not carry it; external ids follow the items.
    await put(a.orderNumber, a.order, { items: [{ itemNumber: 1, externalId: "ext-z" }] });
    expect(await numbers({ partnerOrderId: "po-a" })).toEqual([100001]);
    expect(await numbers({ externalId: "ext-a" })).toEqual([]);
    expect(await numbers({ externalId: "ext-z" })).toEqual([100001]);
    expect(await kind.raw("SELECT external_id FROM po_external_ids ORDER BY 1")).toEqual([
      { external_id: "ext-z" },
    ]);
  });

  /** Commits one change of order `n` observed at `at`, by `cause`. */
  function put(s: MirrorStore, n: number, at: string, cause: ChangeCause = "sweep") {
    return s.commit(n, () => ({
      next: row(n),
      changes: [
        { type: "order.added", orderNumber: n, siteId: 12, observedAt: at, cause } as never,
      ],
    }));
  }
  const at = (minute: number) => new Date(NOW + minute * 60_000).toISOString();

  it("a sweep's changes are the snapshot until the first complete sweep is marked; other causes never are", async () => {
    const s = await store();
    const [swept] = await put(s, 1, at(0), "sweep");
    const [webhook] = await put(s, 2, at(0), "webhook");
    const [refreshed] = await put(s, 3, at(0), "refresh");
    expect([swept?.snapshot, webhook?.snapshot, refreshed?.snapshot]).toEqual([true, false, false]);
    await s.setCheckpoint(STREAM.snapshotComplete, String(await s.lastChangeId()));
    const [after] = await put(s, 4, at(1), "sweep");
    expect(after?.snapshot).toBe(false);
    // As written, so as read back.
    expect((await s.changesAfter(0, 10)).map((c) => [c.orderNumber, c.snapshot])).toEqual([
      [1, true],
      [2, false],
      [3, false],
      [4, false],
    ]);
  });

  it("initPosition stores a new consumer's start once; an existing position stands", async () => {
    const s = await store();
    expect(await s.initPosition("mailer", 7)).toBe(7);
    expect(await s.initPosition("mailer", 9)).toBe(7);
    await s.setPosition("mailer", 12);
    expect(await s.initPosition("mailer", 0)).toBe(12);
    expect(await s.getPosition("mailer")).toBe(12);
  });

  it("pruneChanges deletes the oldest ids only, records the highest deleted, and ids are never reused", async () => {
    const s = await store();
    expect(await s.prunedThrough()).toBe(0);
    const ids = [];
    for (const [n, minute] of [
      [1, 0],
      [2, 10],
      // Written by a process whose clock was behind: older than its predecessor.
      [3, 5],
      [4, 30],
    ] as const)
      ids.push(((await put(s, n, at(minute)))[0] as Change).id);
    // Before minute 8: only the first goes; the third is older but after a kept id.
    expect(await s.pruneChanges(at(8))).toEqual({ pruned: 1, prunedThrough: ids[0] });
    expect((await s.changesAfter(0, 10)).map((c) => c.id)).toEqual(ids.slice(1));
    expect(await s.pruneChanges(at(8))).toEqual({ pruned: 0, prunedThrough: ids[0] });
    // Before minute 20: the run of ids before the first change observed since then.
    expect(await s.pruneChanges(at(20))).toEqual({ pruned: 2, prunedThrough: ids[2] });
    // Everything older: all of it, and the highest deleted is the newest id.
    expect(await s.pruneChanges(at(60))).toEqual({ pruned: 1, prunedThrough: ids[3] });
    expect(await s.changesAfter(0, 10)).toEqual([]);
    expect(await s.lastChangeId()).toBe(0);
    expect(await s.prunedThrough()).toBe(ids[3]);
    // The next change gets a new id, above every deleted one.
    const [next] = await put(s, 5, at(61));
    expect(next?.id).toBeGreaterThan(ids[3] as number);
    expect(await s.pruneChanges(at(0))).toEqual({ pruned: 0, prunedThrough: ids[3] });
  });

  it("a consumer reads on across ids a failed write skipped, and gets ChangesExpiredError past deleted ones", async () => {
    const s = await store();
    const [a] = await put(s, 1, at(0));
    // A transaction that fails after drawing its id (PostgreSQL's sequence keeps the gap).
    await expect(put(s, 2, null as never)).rejects.toThrow();
    const [b] = await put(s, 3, at(10));
    const [c] = await put(s, 4, at(20));
    await s.pruneChanges(at(5));
    expect(await s.prunedThrough()).toBe(a?.id);
    await s.setPosition("reader", a?.id as number);
    await s.setPosition("stopped", 0);
    const feed = new Feed(testContext(s));
    const reader = feed.changes("reader", undefined);
    expect((await reader.next()).value).toEqual(b);
    expect((await reader.next()).value).toEqual(c);
    await reader.return(undefined);
    const expired = await feed
      .changes("stopped", undefined)
      .next()
      .catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(ChangesExpiredError);
    expect(expired).toMatchObject({ position: 0, prunedThrough: a?.id, oldestKeptId: b?.id });
  });
});
