import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { MIRROR_SCHEMA_VERSION, sqliteStore } from "partner-orders/sync";
import { afterEach, describe, expect, it } from "vitest";
import { PartnerOrdersError } from "../../../src/core/errors";
import { MirrorError, StoreAccountError, StoreLockedError } from "../../../src/sync/errors";
import { newHolder, retireHolder } from "../../../src/sync/holder";
import type { MirrorStore, NewChange, StoredOrder } from "../../../src/sync/types";

/** The SQLite store's operations, on an in-memory database: what each reads and writes. */
const stores: MirrorStore[] = [];
const holders: string[] = [];
async function store(): Promise<MirrorStore> {
  const made = sqliteStore(":memory:");
  stores.push(made);
  await made.open();
  return made;
}
function holder(): string {
  const name = newHolder();
  holders.push(name);
  return name;
}
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const h of holders.splice(0)) retireHolder(h);
});

function row(orderNumber: number, extra: Partial<StoredOrder> = {}): StoredOrder {
  return {
    orderNumber,
    siteId: 12,
    order: { orderNumber, status: "Open" },
    items: [],
    shipments: [],
    closed: false,
    unresolvable: false,
    nextPollAt: null,
    seenInSweep: 0,
    ...extra,
  };
}
function added(orderNumber: number, observedAt = "2026-01-01T00:00:00.000Z"): NewChange {
  return {
    type: "order.status_changed",
    orderNumber,
    siteId: 12,
    observedAt,
    cause: "sweep",
    from: "Open",
    to: "Shipped",
  } as unknown as NewChange;
}
async function put(s: MirrorStore, order: StoredOrder, changes: NewChange[] = []) {
  return s.commit(order.orderNumber, () => ({ next: order, changes }));
}

describe("sqliteStore", () => {
  it("needs a path", () => {
    expect(() => sqliteStore("")).toThrow(
      new PartnerOrdersError('sqliteStore needs a file path (or ":memory:").'),
    );
    expect(() => sqliteStore(5 as never)).toThrow(PartnerOrdersError);
  });

  it("refuses to work before it is opened, and after it is closed", async () => {
    const s = sqliteStore(":memory:");
    await expect(s.get(1)).rejects.toThrow(
      new PartnerOrdersError("The SQLite store is not open: call mirror.sync() or run() first."),
    );
    await s.open();
    await s.open(); // a second open keeps the same database
    await put(s, row(1));
    expect(await s.get(1)).toBeDefined();
    await s.close();
    await expect(s.get(1)).rejects.toThrow(PartnerOrdersError);
  });

  it("commits an order and its changes, numbering the changes", async () => {
    const s = await store();
    const changes = await put(s, row(1, { closed: true, seenInSweep: 4 }), [added(1), added(1)]);
    expect(changes.map((c) => c.id)).toEqual([1, 2]);
    expect(changes[0]).toMatchObject({
      type: "order.status_changed",
      orderNumber: 1,
      to: "Shipped",
    });
    expect(await s.get(1)).toEqual(row(1, { closed: true, seenInSweep: 4 }));
    expect(await s.get(2)).toBeUndefined();
    expect(await s.lastChangeId()).toBe(2);
  });

  it("gives back each change as decided, a copy with its id and snapshot flag last", async () => {
    const s = await store();
    const given = [added(1), { ...added(1), type: "item.added", item: { itemNumber: 2 } }];
    const [first, second] = await put(s, row(1), given as NewChange[]);
    expect(Object.keys(first ?? {})).toEqual([...Object.keys(added(1)), "id", "snapshot"]);
    expect(second).toStrictEqual({ ...given[1], id: 2, snapshot: true });
    expect(second).not.toBe(given[1]);
    expect(given[1]).not.toHaveProperty("id");
  });

  it("hands decide the stored order, and writes nothing when decide declines", async () => {
    const s = await store();
    const seen: unknown[] = [];
    const decline = (current: StoredOrder | undefined) => {
      seen.push(current);
      return undefined;
    };
    expect(await s.commit(1, decline)).toEqual([]);
    expect(await s.get(1)).toBeUndefined();
    await put(s, row(1, { nextPollAt: 5 }));
    await s.commit(1, decline);
    expect(seen).toEqual([undefined, row(1, { nextPollAt: 5 })]);
    expect(await s.lastChangeId()).toBe(0);
  });

  it("an update replaces the order but never lowers the sweep it was seen in", async () => {
    const s = await store();
    await put(s, row(1, { seenInSweep: 5, siteId: 12 }));
    await put(
      s,
      row(1, {
        seenInSweep: 3,
        siteId: 13,
        unresolvable: true,
        items: null,
        shipments: null,
        nextPollAt: 9,
      }),
    );
    expect(await s.get(1)).toEqual(
      row(1, {
        seenInSweep: 5,
        siteId: 13,
        unresolvable: true,
        items: null,
        shipments: null,
        nextPollAt: 9,
      }),
    );
    await put(s, row(1, { seenInSweep: 7 }));
    expect((await s.get(1))?.seenInSweep).toBe(7);
  });

  it("getMany gives the stored rows of the numbers asked, keyed by number, as get() does", async () => {
    const s = await store();
    await put(s, row(5, { partnerOrderId: "po-5" }));
    await put(s, row(7, { closed: true, nextPollAt: 9 }));
    await put(s, row(8));
    expect(await s.getMany([])).toEqual(new Map());
    const found = await s.getMany([7, 6, 5]);
    expect([...found.keys()]).toEqual([5, 7]);
    expect(found.get(5)).toEqual(await s.get(5));
    expect(found.get(7)).toEqual(await s.get(7));
    expect(found.get(5)?.partnerOrderId).toBe("po-5");
    expect(found.get(7)?.nextPollAt).toBe(9);
  });

  it("claimDue hands out the due orders, oldest first, up to the limit, and holds them", async () => {
    const s = await store();
    await put(s, row(1, { nextPollAt: 300 }));
    await put(s, row(2, { nextPollAt: 100 }));
    await put(s, row(3, { nextPollAt: 200 }));
    await put(s, row(4, { nextPollAt: 401 }));
    await put(s, row(5, { nextPollAt: null }));
    await put(s, row(0, { nextPollAt: 200 }));
    // A tie goes to the lower order number.
    expect(await s.claimDue(400, 2, 1000)).toEqual([2, 0]);
    expect((await s.get(2))?.nextPollAt).toBe(1000);
    expect((await s.get(1))?.nextPollAt).toBe(300);
    expect(await s.claimDue(400, 10, 1000)).toEqual([3, 1]);
    expect(await s.claimDue(400, 10, 1000)).toEqual([]);
    expect((await s.get(5))?.nextPollAt).toBeNull();
    expect(await s.nextDue()).toBe(401);
  });

  it("nextDue is null without a due order", async () => {
    const s = await store();
    expect(await s.nextDue()).toBeNull();
  });

  it("dueStats counts open orders, due ones and the oldest due", async () => {
    const s = await store();
    expect(await s.dueStats(100)).toEqual({ open: 0, due: 0, oldestDueAt: null });
    await put(s, row(1, { nextPollAt: 50 }));
    await put(s, row(2, { nextPollAt: 100 }));
    await put(s, row(3, { nextPollAt: 101 }));
    await put(s, row(4, { closed: true }));
    await put(s, row(5, { unresolvable: true, nextPollAt: 20 }));
    expect(await s.dueStats(100)).toEqual({ open: 3, due: 3, oldestDueAt: 20 });
    expect(await s.dueStats(10)).toEqual({ open: 3, due: 0, oldestDueAt: null });
  });

  it("unseen lists the resolvable orders not seen in a sweep, markSeen marks them", async () => {
    const s = await store();
    await put(s, row(3, { seenInSweep: 1 }));
    await put(s, row(1, { seenInSweep: 1 }));
    await put(s, row(2, { seenInSweep: 2 }));
    await put(s, row(4, { seenInSweep: 1, unresolvable: true }));
    expect(await s.unseen(2)).toEqual([1, 3]);
    await s.markSeen([1], 2);
    expect(await s.unseen(2)).toEqual([3]);
    expect((await s.get(1))?.seenInSweep).toBe(2);
    expect((await s.get(3))?.seenInSweep).toBe(1);
  });

  it("changesAfter pages the changes in order, payload and money revived", async () => {
    const s = await store();
    await put(s, row(1), [added(1, "t1")]);
    await put(s, row(2), [added(2, "t2"), added(2, "t3")]);
    const page = await s.changesAfter(1, 1);
    expect(page).toEqual([
      {
        id: 2,
        type: "order.status_changed",
        orderNumber: 2,
        siteId: 12,
        observedAt: "t2",
        cause: "sweep",
        // Written by a sweep before any sweep completed: the snapshot.
        snapshot: true,
        from: "Open",
        to: "Shipped",
      },
    ]);
    expect((await s.changesAfter(0, 10)).map((c) => c.id)).toEqual([1, 2, 3]);
    expect(await s.changesAfter(3, 10)).toEqual([]);
    expect(await s.firstObservedAfter(1)).toBe("t2");
    expect(await s.firstObservedAfter(0)).toBe("t1");
    expect(await s.firstObservedAfter(3)).toBeNull();
  });

  it("lastChangeId is 0 on an empty store", async () => {
    const s = await store();
    expect(await s.lastChangeId()).toBe(0);
  });

  it("keeps checkpoints and consumer positions", async () => {
    const s = await store();
    expect(await s.getCheckpoint("sweep")).toBeNull();
    await s.setCheckpoint("sweep", "c1");
    await s.setCheckpoint("sweep", "c2");
    await s.setCheckpoint("other", null as never);
    expect(await s.getCheckpoint("sweep")).toBe("c2");
    expect(await s.getCheckpoint("other")).toBeNull();
    expect(await s.getPosition("b")).toBeNull();
    await s.setPosition("b", 4);
    await s.setPosition("b", 6);
    await s.setPosition("a", 0);
    expect(await s.getPosition("b")).toBe(6);
    expect(await s.getPosition("a")).toBe(0);
    expect(await s.consumers()).toEqual([
      { name: "a", position: 0 },
      { name: "b", position: 6 },
    ]);
  });
});

describe("sqliteStore leases", () => {
  it("a free lease is taken; another holder waits until it expires", async () => {
    const s = await store();
    const a = holder();
    const b = holder();
    expect(await s.leaseHolder("sweep")).toBeNull();
    expect(await s.lease("sweep", a, 100, 200)).toBe(true);
    expect(await s.leaseHolder("sweep")).toEqual({ holder: a, since: 100, expiresAt: 200 });
    expect(await s.lease("sweep", b, 150, 250)).toBe(false);
    expect(await s.leaseHolder("sweep")).toEqual({ holder: a, since: 100, expiresAt: 200 });
    // Renewed by its holder: it keeps its start.
    expect(await s.lease("sweep", a, 180, 300)).toBe(true);
    expect(await s.leaseHolder("sweep")).toEqual({ holder: a, since: 100, expiresAt: 300 });
    // Expired: another takes it, with its own start.
    expect(await s.lease("sweep", b, 300, 400)).toBe(true);
    expect(await s.leaseHolder("sweep")).toEqual({ holder: b, since: 300, expiresAt: 400 });
  });

  it("a lease whose holder is dead is taken at once", async () => {
    const s = await store();
    const a = holder();
    const b = holder();
    await s.lease("sweep", a, 100, 1000);
    retireHolder(a);
    expect(await s.lease("sweep", b, 150, 1100)).toBe(true);
    expect((await s.leaseHolder("sweep"))?.holder).toBe(b);
  });

  it("releaseLease frees only the holder's own lease", async () => {
    const s = await store();
    const a = holder();
    await s.lease("sweep", a, 100, 1000);
    await s.releaseLease("sweep", holder());
    expect((await s.leaseHolder("sweep"))?.holder).toBe(a);
    await s.releaseLease("sweep", a);
    expect(await s.leaseHolder("sweep")).toBeNull();
  });
});

describe("sqliteStore claims", () => {
  it("claimAccount records the account, accepts it again and refuses another", async () => {
    const s = await store();
    expect(await s.info()).toEqual({ schemaVersion: MIRROR_SCHEMA_VERSION, account: null });
    const account = { partnerId: "p1", baseUrl: "https://a.example" };
    await s.claimAccount(account);
    await s.claimAccount({ partnerId: "p1", baseUrl: "https://a.example/" });
    expect(await s.info()).toEqual({ schemaVersion: MIRROR_SCHEMA_VERSION, account });
    const error = await s
      .claimAccount({ partnerId: "p2", baseUrl: "https://a.example" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreAccountError);
    expect((error as StoreAccountError).stored).toEqual(account);
    await expect(s.claimAccount({ partnerId: "", baseUrl: "x" })).rejects.toThrow(
      PartnerOrdersError,
    );
  });

  it("claimWriter: a second live holder is refused with the first one's pid and host", async () => {
    const s = await store();
    const a = holder();
    await s.claimWriter(a);
    await s.claimWriter(a); // again by the same holder
    const error = await s.claimWriter(holder()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreLockedError);
    expect((error as StoreLockedError).holderPid).toBe(process.pid);
    expect((error as StoreLockedError).holderHost).toBe(hostname());
    expect((error as StoreLockedError).path).toBe(":memory:");
    // Once the first is dead, the claim passes to the next.
    retireHolder(a);
    const b = holder();
    await s.claimWriter(b);
    const c = holder();
    const again = await s.claimWriter(c).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(StoreLockedError);
  });

  it("a holder of another form is recorded as this process", async () => {
    const s = await store();
    await s.claimWriter("odd-holder");
    const error = await s.claimWriter(holder()).catch((e: unknown) => e);
    expect((error as StoreLockedError).holderPid).toBe(process.pid);
    expect((error as StoreLockedError).holderHost).toBe(hostname());
  });

  it("a claim names the holder's own pid and host", async () => {
    const s = await store();
    await s.claimWriter("far-host/4242/abc");
    const error = await s.claimWriter(holder()).catch((e: unknown) => e);
    expect((error as StoreLockedError).holderPid).toBe(4242);
    expect((error as StoreLockedError).holderHost).toBe("far-host");
  });

  it("open failures are typed errors naming the store", async () => {
    const s = sqliteStore("/nonexistent-dir-po/x/m.db");
    const error = await s.open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MirrorError);
    expect((error as MirrorError).code).toBe("store_open_failed");
    expect((error as MirrorError).message).toMatch(
      /^The SQLite file \/nonexistent-dir-po\/x\/m\.db could not be opened: .+\. Check that its directory exists and is writable, and that the file is a SQLite database\.$/,
    );
    expect((error as MirrorError).message).not.toMatch(/opened: \w*Error/);
    await s.close();
  });

  it("a file store is opened in WAL mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "po-wal-"));
    try {
      const path = join(dir, "m.db");
      const s = sqliteStore(path);
      await s.open();
      await s.close();
      const db = new Database(path);
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
