import { describe, expect, it } from "vitest";
import { APIConnectionError } from "../../../src/core/errors";
import { ALL, LINES } from "../../../src/sync/context";
import { MirrorError } from "../../../src/sync/errors";
import { Reader } from "../../../src/sync/reader";
import type { MirrorStore } from "../../../src/sync/types";
import { decodeError, problem, testContext } from "./context-support";
import { type FakeOrder, fakeClient, memoryStore, orderRow } from "./reader-support";

const NOW = 1_772_366_400_000; // the test clock's time
const OPEN = 300_000; // its open-order interval

function service(entries: [number, Partial<FakeOrder>][] = []) {
  return new Map<number, FakeOrder>(
    entries.map(([n, o]) => [n, { order: orderRow(n), items: [[]], shipments: [[]], ...o }]),
  );
}

async function make(
  entries: [number, Partial<FakeOrder>][] = [],
  overrides: Partial<MirrorStore> = {},
) {
  const orders = service(entries);
  const fake = fakeClient(orders);
  const store = await memoryStore(overrides);
  const ctx = testContext(store, fake.client);
  return { orders, fake, store, ctx, reader: new Reader(ctx) };
}

const TYPES = ["order.added", "item.added", "item.added", "shipment.added"];
const NONE = { order: false, items: false, shipments: false };

describe("Reader: one read", () => {
  it("reads a new order whole, stores it and tells the order.added change", async () => {
    const t = await make([
      [7, { items: [[{ lineNumber: 1 }], [{ lineNumber: 2 }]], shipments: [[{ id: 9 }]] }],
    ]);
    // Asked for nothing: an order never read is read whole anyway.
    const changes = await t.reader.schedule(7, NONE, "webhook");
    expect(t.fake.calls).toEqual(["get 7", "items 7 200", "shipments 7 50"]);
    expect(changes.map((c) => c.type)).toEqual(TYPES);
    expect(changes[0]).toMatchObject({
      orderNumber: 7,
      cause: "webhook",
      observedAt: "2026-03-01T12:00:00.000Z",
    });
    const stored = await t.store.get(7);
    expect(stored?.order).toEqual(orderRow(7));
    expect(stored?.items).toEqual([{ lineNumber: 1 }, { lineNumber: 2 }]);
    expect(stored?.shipments).toEqual([{ id: 9 }]);
    expect(stored?.nextPollAt).toBe(NOW + OPEN);
    expect(t.ctx.report.report()).toMatchObject({
      requests: 4,
      itemsReread: 1,
      shipmentsReread: 1,
      ordersAdded: 1,
      ordersChanged: 0,
      changesWritten: 4,
    });
    expect(t.ctx.changedCalls).toBe(1);
  });

  it("reads only the parts asked of a stored order, and tells a change of it", async () => {
    const t = await make([[7, {}]]);
    await t.reader.schedule(7, ALL, "webhook");
    t.orders.set(7, { order: orderRow(7, { status: "Shipped" }), items: [[]], shipments: [[]] });
    t.fake.calls.length = 0;
    expect(
      await t.reader.schedule(7, { order: true, items: false, shipments: false }, "webhook"),
    ).toMatchObject([{ type: "order.changed" }]);
    expect(t.fake.calls).toEqual(["get 7"]);
    expect(t.ctx.report.report()).toMatchObject({
      ordersAdded: 1,
      ordersChanged: 1,
      changesWritten: 2,
    });
    expect(t.ctx.changedCalls).toBe(2);
  });

  it("writes nothing and tells nobody when nothing changed", async () => {
    const t = await make([[7, {}]]);
    await t.reader.schedule(7, ALL, "poll");
    expect(await t.reader.schedule(7, LINES, "poll")).toEqual([]);
    expect(t.ctx.changedCalls).toBe(1);
    expect(t.ctx.report.changesWritten).toBe(1);
  });

  it("keeps the poll schedule on a read of part of the lines, and moves it on a read of both", async () => {
    const t = await make([[7, {}]]);
    await t.reader.schedule(7, ALL, "poll");
    t.ctx.clock.wall += 1_000;
    t.orders.set(7, { order: orderRow(7, { status: "Shipped" }), items: [[]], shipments: [[]] });
    await t.reader.schedule(7, { order: true, items: true, shipments: false }, "webhook");
    expect((await t.store.get(7))?.nextPollAt).toBe(NOW + OPEN);
    t.orders.set(7, {
      order: orderRow(7, { status: "Shipped" }),
      items: [[]],
      shipments: [[{ id: 1 }]],
    });
    await t.reader.schedule(7, { order: false, items: false, shipments: true }, "webhook");
    expect((await t.store.get(7))?.nextPollAt).toBe(NOW + OPEN);
    t.orders.set(7, {
      order: orderRow(7, { status: "Done" }),
      items: [[]],
      shipments: [[{ id: 1 }]],
    });
    await t.reader.schedule(7, LINES, "poll");
    expect((await t.store.get(7))?.nextPollAt).toBe(NOW + 1_000 + OPEN);
  });

  it("polls a closed order once more after it closes, then no more", async () => {
    const t = await make([[7, { order: orderRow(7, { closed: true }) }]]);
    await t.reader.schedule(7, ALL, "poll");
    expect((await t.store.get(7))?.nextPollAt).toBe(NOW + OPEN);
    await t.reader.schedule(7, ALL, "poll");
    expect((await t.store.get(7))?.nextPollAt).toBeNull();
  });

  it("counts a request for each page of items and shipments", async () => {
    const t = await make([
      [7, { items: [[{ a: 1 }], [{ a: 2 }], [{ a: 3 }]], shipments: [[], []] }],
    ]);
    await t.reader.schedule(7, ALL, "poll");
    expect(t.ctx.report.requests).toBe(6);
    expect((await t.store.get(7))?.items).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }]);
  });

  it("keeps an order the client cannot decode out, names it and warns", async () => {
    const t = await make([[7, { order: decodeError("totals.order", "not money") }]]);
    expect(await t.reader.schedule(7, ALL, "sweep")).toEqual([]);
    expect(await t.store.get(7)).toBeUndefined();
    expect(t.ctx.report.report().invalidOrders).toEqual([
      {
        orderNumber: 7,
        field: "totals.order",
        reason: "not money",
        at: "2026-03-01T12:00:00.000Z",
      },
    ]);
    expect(t.ctx.logged).toEqual([
      {
        level: "warn",
        message: "order 7 kept out: totals.order not money",
        fields: {
          orderNumber: 7,
          field: "totals.order",
          next: "it is read again by the next sweep",
        },
      },
    ]);
    expect(JSON.parse((await t.store.getCheckpoint("status:invalid-orders")) ?? "[]")).toHaveLength(
      1,
    );
    expect(t.ctx.changedCalls).toBe(0);
  });

  it("clears an invalid order once its items read cleanly, not on a read without items", async () => {
    const t = await make([[7, { items: decodeError("items[].price", "bad") }]]);
    await t.reader.schedule(7, ALL, "sweep");
    expect(await t.store.getCheckpoint("status:invalid-orders")).not.toBeNull();
    t.orders.set(7, { order: orderRow(7), items: [[]], shipments: [[]] });
    await t.reader.schedule(7, ALL, "sweep");
    expect(await t.store.getCheckpoint("status:invalid-orders")).toBeNull();
    // Listed again as invalid: a read of the shipments alone leaves it listed.
    t.orders.set(7, {
      order: orderRow(7),
      items: decodeError("items[].price", "bad"),
      shipments: [[]],
    });
    await t.reader.schedule(7, LINES, "poll");
    t.orders.set(7, { order: orderRow(7), items: [[]], shipments: [[]] });
    await t.reader.schedule(7, { order: false, items: false, shipments: true }, "webhook");
    expect(await t.store.getCheckpoint("status:invalid-orders")).not.toBeNull();
  });

  it("flags a stored order that answers 404 as unresolvable", async () => {
    const t = await make([[7, {}]]);
    await t.reader.schedule(7, ALL, "poll");
    t.orders.set(7, { order: problem(404, "order_not_found"), items: [[]], shipments: [[]] });
    const changes = await t.reader.schedule(7, ALL, "sweep");
    expect(changes.map((c) => c.type)).toEqual(["order.unresolvable"]);
    expect((await t.store.get(7))?.unresolvable).toBe(true);
  });

  it("throws any other failure, storing nothing", async () => {
    const down = new APIConnectionError();
    const t = await make([[7, { order: down }]]);
    await expect(t.reader.schedule(7, ALL, "poll")).rejects.toBe(down);
    const notFound = problem(404, "not_found");
    t.orders.set(7, { order: notFound, items: [[]], shipments: [[]] });
    await expect(t.reader.schedule(7, ALL, "poll")).rejects.toBe(notFound);
    expect(await t.store.get(7)).toBeUndefined();
  });
});

describe("Reader: a sweep's read", () => {
  it("uses the listed row when the stored order is the one the sweep compared", async () => {
    const t = await make([[7, {}]]);
    await t.reader.schedule(7, ALL, "poll");
    t.fake.calls.length = 0;
    const listed = orderRow(7, { status: "Shipped" });
    const changes = await t.reader.schedule(7, LINES, "sweep", {
      sweep: 4,
      listed,
      listedOver: orderRow(7),
    });
    expect(t.fake.calls).toEqual(["items 7 200", "shipments 7 50"]);
    expect(changes.map((c) => c.type)).toEqual(["order.changed"]);
    expect((await t.store.get(7))?.order).toEqual(listed);
    expect((await t.store.get(7))?.seenInSweep).toBe(4);
    expect(t.ctx.report.requests).toBe(5);
  });

  it("uses the listed row of a new order the sweep saw unstored", async () => {
    const t = await make([[7, {}]]);
    const listed = orderRow(7, { status: "Listed" });
    await t.reader.schedule(7, LINES, "sweep", { sweep: 1, listed, listedOver: null });
    expect(t.fake.calls).toEqual(["items 7 200", "shipments 7 50"]);
    expect((await t.store.get(7))?.order).toEqual(listed);
  });

  it("reads the order whole when it was written since the sweep compared it", async () => {
    const t = await make([[7, { order: orderRow(7, { status: "Newer" }) }]]);
    await t.reader.schedule(7, ALL, "webhook");
    t.fake.calls.length = 0;
    await t.reader.schedule(7, LINES, "sweep", {
      sweep: 4,
      listed: orderRow(7, { status: "Older" }),
      listedOver: orderRow(7),
    });
    expect(t.fake.calls).toEqual(["get 7", "items 7 200", "shipments 7 50"]);
    expect((await t.store.get(7))?.order).toEqual(orderRow(7, { status: "Newer" }));
  });

  it("reads the order whole when it was stored since the sweep found none", async () => {
    const t = await make([[7, { order: orderRow(7, { status: "Newer" }) }]]);
    await t.reader.schedule(7, ALL, "webhook");
    t.fake.calls.length = 0;
    await t.reader.schedule(7, LINES, "sweep", {
      sweep: 4,
      listed: orderRow(7, { status: "Older" }),
    });
    expect(t.fake.calls).toEqual(["get 7", "items 7 200", "shipments 7 50"]);
  });

  it("reads only the parts asked when a sweep names a stored order it did not list", async () => {
    const t = await make([[7, {}]]);
    await t.reader.schedule(7, ALL, "poll");
    t.fake.calls.length = 0;
    await t.reader.schedule(7, { order: true, items: false, shipments: false }, "sweep", {
      sweep: 2,
    });
    expect(t.fake.calls).toEqual(["get 7"]);
  });
});

describe("Reader: a sweep's read after the look at its page", () => {
  it("uses the row the look found while this process wrote nothing since: no look of its own", async () => {
    const t = await make([[7, {}]], { get: () => Promise.reject(new Error("looked again")) });
    const listed = orderRow(7, { status: "Listed" });
    const changes = await t.reader.schedule(7, LINES, "sweep", {
      sweep: 1,
      listed,
      listedOver: null,
      looked: { row: undefined, writes: t.reader.writes },
    });
    expect(changes.map((c) => c.type)).toEqual(["order.added"]);
    expect(t.fake.calls).toEqual(["items 7 200", "shipments 7 50"]);
  });

  it("looks again once a write of this process was asked for since, and reads a newer order whole", async () => {
    const gets: number[] = [];
    const t = await make([[7, { order: orderRow(7, { status: "Newer" }) }]]);
    const realGet = t.store.get.bind(t.store);
    const writes = t.reader.writes;
    // A webhook's read of the order, committed after the sweep looked at its page.
    await t.reader.schedule(7, ALL, "webhook");
    expect(t.reader.writes).toBe(writes + 2);
    const store = new Proxy(t.store, {
      get: (target, key) =>
        key === "get"
          ? (n: number) => {
              gets.push(n);
              return realGet(n);
            }
          : Reflect.get(target, key),
    });
    Object.defineProperty(t.ctx, "store", { value: store });
    t.fake.calls.length = 0;
    await t.reader.schedule(7, LINES, "sweep", {
      sweep: 4,
      listed: orderRow(7, { status: "Older" }),
      listedOver: null,
      looked: { row: undefined, writes },
    });
    expect(gets).toEqual([7]);
    expect(t.fake.calls).toEqual(["get 7", "items 7 200", "shipments 7 50"]);
    expect((await t.store.get(7))?.order).toEqual(orderRow(7, { status: "Newer" }));
  });

  it("looks again on a store other processes write too, whatever this process did", async () => {
    const t = await make([[7, { order: orderRow(7, { status: "Newer" }) }]]);
    await t.reader.schedule(7, ALL, "webhook");
    const shared = new Proxy(t.store, {
      get: (target, key) => (key === "soleWriter" ? () => false : Reflect.get(target, key)),
    });
    Object.defineProperty(t.ctx, "store", { value: shared });
    t.fake.calls.length = 0;
    // Another process stored the order after this one looked (and found none).
    await t.reader.schedule(7, LINES, "sweep", {
      sweep: 4,
      listed: orderRow(7, { status: "Older" }),
      listedOver: null,
      looked: { row: undefined, writes: t.reader.writes },
    });
    expect(t.fake.calls).toEqual(["get 7", "items 7 200", "shipments 7 50"]);
    expect((await t.store.get(7))?.order).toEqual(orderRow(7, { status: "Newer" }));
  });

  it("counts a write as asked for and as ended, failed or not", async () => {
    let fail = true;
    const t = await make([[7, {}]], {});
    const commit = t.store.commit.bind(t.store);
    const store = new Proxy(t.store, {
      get: (target, key) =>
        key === "commit"
          ? (...args: Parameters<MirrorStore["commit"]>) =>
              fail ? Promise.reject(new Error("disk full")) : commit(...args)
          : Reflect.get(target, key),
    });
    Object.defineProperty(t.ctx, "store", { value: store });
    const seen: number[] = [];
    const during = t.reader.writing(async () => {
      seen.push(t.reader.writes);
      return 5;
    });
    expect(await during).toBe(5);
    expect(seen).toEqual([1]);
    expect(t.reader.writes).toBe(2);
    await expect(t.reader.schedule(7, ALL, "poll")).rejects.toThrow("disk full");
    expect(t.reader.writes).toBe(4);
    fail = false;
    await t.reader.schedule(7, ALL, "poll");
    expect(t.reader.writes).toBe(6);
  });
});

describe("Reader: scheduling", () => {
  it("joins requests for one order made together into one read of every part asked", async () => {
    const t = await make([[7, {}]]);
    await t.reader.schedule(7, ALL, "poll");
    t.fake.calls.length = 0;
    const a = t.reader.schedule(7, { order: false, items: true, shipments: false }, "webhook");
    const b = t.reader.schedule(7, { order: false, items: false, shipments: true }, "poll");
    const c = t.reader.schedule(7, { order: true, items: false, shipments: false }, "poll");
    expect(b).toBe(a);
    expect(c).toBe(a);
    expect(t.reader.inFlight).toBe(1);
    await a;
    expect(t.fake.calls.sort()).toEqual(["get 7", "items 7 200", "shipments 7 50"]);
  });

  it("never joins a sweep's read, and reads one order one read after another", async () => {
    const t = await make([[7, {}]]);
    await t.reader.schedule(7, ALL, "poll");
    t.fake.calls.length = 0;
    const release = t.fake.hold();
    const a = t.reader.schedule(7, { order: true, items: false, shipments: false }, "webhook");
    const b = t.reader.schedule(7, { order: true, items: false, shipments: false }, "sweep", {
      sweep: 1,
    });
    const c = t.reader.schedule(7, { order: true, items: false, shipments: false }, "webhook");
    expect(b).not.toBe(a);
    // A later request joins the read not yet started, not the sweep's.
    expect(c).toBe(a);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(t.fake.calls).toEqual(["get 7"]);
    expect(t.fake.maxActive).toBe(1);
    release();
    await Promise.all([a, b, c]);
    expect(t.fake.calls).toEqual(["get 7", "get 7"]);
    expect(t.fake.maxActive).toBe(1);
  });

  it("a listed read is not joined by a later request", async () => {
    const t = await make([[7, {}]]);
    const a = t.reader.schedule(7, LINES, "sweep", { listed: orderRow(7), listedOver: null });
    const b = t.reader.schedule(7, { order: true, items: false, shipments: false }, "webhook");
    expect(b).not.toBe(a);
    await Promise.all([a, b]);
    expect(t.fake.calls).toEqual(["items 7 200", "shipments 7 50", "get 7"]);
  });

  it("runs at most `concurrency` reads at once, and is idle once they end", async () => {
    const t = await make([
      [1, {}],
      [2, {}],
      [3, {}],
    ]);
    const release = t.fake.hold();
    const reads = [1, 2, 3].map((n) => t.reader.schedule(n, ALL, "poll"));
    expect(t.reader.inFlight).toBe(3);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(t.fake.calls).toEqual(["get 1", "get 2"]);
    release();
    const idle = t.reader.idle();
    await idle;
    expect(t.reader.inFlight).toBe(0);
    expect(t.fake.maxActive).toBe(2);
    expect((await Promise.all(reads)).map((c) => c.length)).toEqual([1, 1, 1]);
  });

  it("frees its slot after a read that fails", async () => {
    const t = await make([
      [1, { order: new Error("x") }],
      [2, { order: new Error("y") }],
      [3, {}],
      [4, {}],
    ]);
    const reads = [1, 2, 3, 4].map((n) => t.reader.schedule(n, ALL, "poll").catch(() => "failed"));
    expect((await Promise.all(reads)).map((r) => (r === "failed" ? r : "ok"))).toEqual([
      "failed",
      "failed",
      "ok",
      "ok",
    ]);
    await t.reader.idle();
    expect(t.reader.inFlight).toBe(0);
  });
});

describe("Reader: polls", () => {
  it("claims due orders in small batches and reads their lines until none is due", async () => {
    const claims: unknown[][] = [];
    const batches = [[1, 2], [3], []];
    const t = await make(
      [
        [1, {}],
        [2, {}],
        [3, {}],
      ],
      {
        claimDue: async (...args: unknown[]) => {
          claims.push(args);
          return batches.shift() ?? [];
        },
      } as Partial<MirrorStore>,
    );
    let progress = 0;
    t.ctx.report = Object.assign(t.ctx.report, { progress: () => progress++ });
    const writes = t.reader.writes;
    expect(await t.reader.pollDue(123, () => false)).toEqual({ polled: 3, failed: 0 });
    // Two rounds, each one write counted as asked for and as ended, as a sweep's later look needs.
    expect(t.reader.writes - writes).toBe(4);
    expect(claims).toEqual([
      [123, 8, NOW + OPEN],
      [123, 8, NOW + OPEN],
      [123, 8, NOW + OPEN],
    ]);
    expect(progress).toBe(2);
    expect(t.fake.calls.filter((c) => c.startsWith("get"))).toEqual(["get 1", "get 2", "get 3"]);
  });

  it("stops between claims when told to", async () => {
    let claims = 0;
    const t = await make([[1, {}]], {
      claimDue: async () => {
        claims++;
        return [1];
      },
    } as Partial<MirrorStore>);
    let asked = 0;
    expect(await t.reader.pollDue(0, () => ++asked > 2)).toEqual({ polled: 2, failed: 0 });
    expect(claims).toBe(2);
    expect(await t.reader.pollDue(0, () => true)).toEqual({ polled: 0, failed: 0 });
    expect(claims).toBe(2);
  });

  it("counts and warns of failed reads, the rest polled", async () => {
    const batches = [[1, 2, 3], []];
    const down = new APIConnectionError();
    const t = await make(
      [
        [1, {}],
        [2, { order: down }],
        [3, {}],
      ],
      {
        claimDue: async () => batches.shift() ?? [],
      } as Partial<MirrorStore>,
    );
    await t.reader.schedule(2, ALL, "poll").catch(() => undefined);
    t.fake.calls.length = 0;
    t.orders.set(2, { order: orderRow(2), items: down, shipments: [[]] });
    expect(await t.reader.pollDue(0, () => false)).toEqual({ polled: 2, failed: 1 });
    expect(t.ctx.warnings).toEqual([
      { message: "reading order 2 failed", error: down, next: "it is read again next round" },
    ]);
  });

  it("throws a failure no retry can fix once the batch is done", async () => {
    const batches = [[1, 2], [3]];
    const locked = new MirrorError("store_locked", "locked");
    const t = await make(
      [
        [1, { order: locked }],
        [2, {}],
        [3, {}],
      ],
      {
        claimDue: async () => batches.shift() ?? [],
      } as Partial<MirrorStore>,
    );
    await expect(t.reader.pollDue(0, () => false)).rejects.toBe(locked);
    expect((await t.store.get(2))?.orderNumber).toBe(2);
    expect(await t.store.get(3)).toBeUndefined();
  });
});
