import { describe, expect, it } from "vitest";
import { APIConnectionError } from "../../../src/core/errors";
import { MirrorError, SweepHeldError } from "../../../src/sync/errors";
import { Reader } from "../../../src/sync/reader";
import { type ListPage, Sweeper } from "../../../src/sync/sweep";
import type { MirrorStore } from "../../../src/sync/types";
import { problem, testContext } from "./context-support";
import { type FakeOrder, fakeClient, memoryStore, orderRow } from "./reader-support";

const NOW = 1_772_366_400_000;
const ISO = "2026-03-01T12:00:00.000Z";
type Row = Record<string, unknown>;

const page = (
  data: Row[],
  nextCursor: string | null = null,
  rejected: ListPage["rejected"] = [],
): ListPage => ({
  data,
  nextCursor,
  rejected,
});

/** A sweeper over a fake service whose list answers `pages` by cursor ("" for the first page). */
async function make(
  pages: Record<string, ListPage | Error | (() => ListPage | Error)>,
  options: { overrides?: Partial<MirrorStore>; siteIds?: (number | undefined)[] } = {},
) {
  const orders = new Map<number, FakeOrder>();
  for (const p of Object.values(pages)) {
    if (typeof p === "function" || p instanceof Error) continue;
    for (const row of p.data) {
      const n = row?.orderNumber as number;
      orders.set(n, { order: row, items: [[]], shipments: [[]] });
    }
  }
  const fake = fakeClient(orders);
  const store = await memoryStore(options.overrides);
  const ctx = testContext(store, fake.client, options.siteIds ? { siteIds: options.siteIds } : {});
  const reader = new Reader(ctx);
  const asked: string[] = [];
  const readPage = async (siteId: number | undefined, cursor: string | undefined) => {
    asked.push(`${siteId ?? "all"}:${cursor ?? ""}`);
    let answer = pages[cursor ?? ""];
    if (typeof answer === "function") answer = answer();
    if (answer === undefined) throw new Error(`no page ${cursor}`);
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const sweeper = new Sweeper(ctx, reader, readPage);
  const checkpoint = (name: string) => store.getCheckpoint(name);
  return { orders, fake, store, ctx, reader, sweeper, asked, checkpoint };
}

const last = async (t: { checkpoint(n: string): Promise<string | null> }) =>
  JSON.parse((await t.checkpoint("status:last-sweep")) ?? "null");

describe("Sweeper", () => {
  it("walks the list to its end, storing every order, and records the sweep", async () => {
    const t = await make({ "": page([orderRow(1), orderRow(2)], "c2"), c2: page([orderRow(3)]) });
    expect(await t.sweeper.sweep(false)).toBe("swept");
    expect(t.asked).toEqual(["all:", "all:c2"]);
    for (const n of [1, 2, 3]) expect((await t.store.get(n))?.seenInSweep).toBe(1);
    expect(await last(t)).toEqual({ at: ISO, ok: true });
    expect(await t.checkpoint("sweep:last")).toBe("1");
    expect(await t.checkpoint("sweep:finished-at")).toBe(String(NOW));
    expect(await t.checkpoint("sweep:current")).toBeNull();
    expect(await t.checkpoint("sweep:cursor:all")).toBeNull();
    expect(await t.store.leaseHolder("sweep")).toBeNull();
    expect(t.ctx.report.report()).toMatchObject({ ordersSeen: 3, ordersAdded: 3 });
    expect(t.ctx.report.pages).toBe(2);
    // Two list pages, and items and shipments of three orders.
    expect(t.ctx.report.requests).toBe(8);
  });

  it("numbers each sweep after the last, and marks unchanged orders seen without reading them", async () => {
    const t = await make({ "": page([orderRow(1)]) });
    await t.sweeper.sweep(false);
    t.fake.calls.length = 0;
    t.ctx.clock.wall += 1;
    await t.sweeper.sweep(false);
    expect(t.fake.calls).toEqual([]);
    expect((await t.store.get(1))?.seenInSweep).toBe(2);
    expect(await t.checkpoint("sweep:last")).toBe("2");
  });

  it("resumes an unfinished sweep under its number from its checkpointed cursor", async () => {
    const t = await make({ c2: page([orderRow(3)]) });
    await t.store.setCheckpoint("sweep:current", "7");
    await t.store.setCheckpoint("sweep:last", "6");
    await t.store.setCheckpoint("sweep:cursor:all", "c2");
    await t.sweeper.sweep(false);
    expect(t.asked).toEqual(["all:c2"]);
    expect((await t.store.get(3))?.seenInSweep).toBe(7);
    expect(await t.checkpoint("sweep:last")).toBe("7");
  });

  it("checkpoints each page's cursor once its orders are stored", async () => {
    const t = await make({ "": page([orderRow(1)], "c2"), c2: new APIConnectionError() });
    await expect(t.sweeper.sweep(false)).rejects.toBeInstanceOf(APIConnectionError);
    expect(await t.checkpoint("sweep:cursor:all")).toBe("c2");
    expect(await t.checkpoint("sweep:current")).toBe("1");
    expect(await last(t)).toEqual({ at: ISO, ok: false, code: "APIConnectionError" });
    expect(await t.store.leaseHolder("sweep")).toBeNull();
  });

  it("sweeps each site under its own cursor name", async () => {
    const t = await make({ "": page([orderRow(1)], "c2"), c2: page([]) }, { siteIds: [101, 102] });
    await t.sweeper.sweep(false);
    expect(t.asked).toEqual(["101:", "101:c2", "102:", "102:c2"]);
    const seen: string[] = [];
    const t2 = await make(
      { "": page([orderRow(1)], "c2"), c2: new Error("x") },
      { siteIds: [101] },
    );
    await t2.sweeper.sweep(false).catch(() => undefined);
    seen.push(String(await t2.checkpoint("sweep:cursor:101")));
    expect(seen).toEqual(["c2"]);
  });

  it("is not due within the interval of the last sweep, by any process", async () => {
    const t = await make({ "": page([]) });
    await t.store.setCheckpoint("sweep:finished-at", String(NOW - 59_999));
    expect(await t.sweeper.sweep(true)).toBe("not-due");
    expect(t.asked).toEqual([]);
    await t.store.setCheckpoint("sweep:finished-at", String(NOW - 60_000));
    expect(await t.sweeper.sweep(true)).toBe("swept");
    expect(await t.sweeper.sweep(true)).toBe("not-due");
    expect(await t.sweeper.sweep(false)).toBe("swept");
  });

  it("is due when a sweep was left unfinished, however recent", async () => {
    const t = await make({ "": page([]) });
    await t.store.setCheckpoint("sweep:finished-at", String(NOW));
    await t.store.setCheckpoint("sweep:current", "3");
    expect(await t.sweeper.sweep(true)).toBe("swept");
  });

  it("looks again under the lease: a sweep may have ended between the look and the lease", async () => {
    let looks = 0;
    const t = await make(
      { "": page([]) },
      {
        overrides: {
          getCheckpoint: async (name: string) => {
            if (name === "sweep:finished-at") return ++looks > 1 ? String(NOW) : null;
            return null;
          },
        } as Partial<MirrorStore>,
      },
    );
    expect(await t.sweeper.sweep(true)).toBe("not-due");
    expect(t.asked).toEqual([]);
    expect(await t.store.leaseHolder("sweep")).toBeNull();
  });

  it("is held while another process holds the lease, and names it", async () => {
    const t = await make({ "": page([]) });
    await t.store.lease("sweep", "elsewhere/1/z", NOW - 5_000, NOW + 10_000);
    expect(await t.sweeper.sweep(false)).toBe("held");
    expect(t.asked).toEqual([]);
    const held = await t.sweeper.heldError();
    expect(held).toBeInstanceOf(SweepHeldError);
    expect(held.message).toContain("elsewhere/1/z");
    expect(held.message).toContain("2026-03-01T11:59:55.000Z");
  });

  it("names nobody when nobody holds the lease", async () => {
    const t = await make({});
    const held = await t.sweeper.heldError();
    expect(held.message).toContain("another process");
    const t2 = await make(
      {},
      {
        overrides: {
          leaseHolder: async () => ({ holder: "h/1/x", since: Number.NaN, expiresAt: 0 }),
        } as Partial<MirrorStore>,
      },
    );
    const h2 = await t2.sweeper.heldError();
    expect(h2.message).toContain("h/1/x");
    expect(h2.message).not.toContain("1970");
  });

  it("joins a sweep under way instead of sweeping twice", async () => {
    const t = await make({ "": page([orderRow(1)]) });
    const a = t.sweeper.sweep(false);
    const b = t.sweeper.sweep(true);
    expect(b).toBe(a);
    await a;
    const c = t.sweeper.sweep(false);
    expect(c).not.toBe(a);
    await c;
    expect(t.asked).toEqual(["all:", "all:"]);
  });

  it("warns, not fails, when the lease cannot be given back", async () => {
    const gone = new Error("db away");
    const t = await make(
      { "": page([]) },
      {
        overrides: {
          releaseLease: async () => {
            throw gone;
          },
        } as Partial<MirrorStore>,
      },
    );
    expect(await t.sweeper.sweep(false)).toBe("swept");
    expect(t.ctx.warnings).toEqual([
      { message: "giving the sweep lease back failed", error: gone, next: "it expires by itself" },
    ]);
  });

  it("throws the sweep's error even when its end cannot be recorded", async () => {
    const boom = new Error("list down");
    const t = await make(
      { "": boom },
      {
        overrides: {
          setCheckpoint: async (name: string) => {
            if (name === "status:last-sweep") throw new Error("cannot record");
          },
        } as Partial<MirrorStore>,
      },
    );
    await expect(t.sweeper.sweep(false)).rejects.toBe(boom);
  });

  it("starts over when the service refuses a cursor, waiting longer each time, then gives up", async () => {
    const refused = problem(400, "invalid_cursor", "/v1/orders");
    const t = await make({ "": page([orderRow(1)], "c2"), c2: refused }, { siteIds: [101] });
    const error = await t.sweeper.sweep(false).catch((e) => e);
    expect(error).toBeInstanceOf(MirrorError);
    expect(error.code).toBe("cursor_refused");
    expect(error.message).toBe(
      "GET /v1/orders refused its own cursor 4 times in one sweep (site 101). The next sweep starts from the first page.",
    );
    expect(error.cause).toBe(refused);
    expect(t.ctx.clock.sleeps).toEqual([1000, 2000, 4000]);
    expect(t.asked).toEqual([
      "101:",
      "101:c2",
      "101:",
      "101:c2",
      "101:",
      "101:c2",
      "101:",
      "101:c2",
    ]);
    expect(t.ctx.warnings.map((w) => w.next)).toEqual([
      "the sweep starts over in 1 s",
      "the sweep starts over in 2 s",
      "the sweep starts over in 4 s",
    ]);
    expect(t.ctx.warnings[0]?.message).toBe("the sweep's cursor was refused");
    expect(await t.checkpoint("sweep:cursor:101")).toBeNull();
    expect(await last(t)).toEqual({ at: ISO, ok: false, code: "cursor_refused" });
  });

  it("goes on after a refused cursor once the list reads again", async () => {
    let refusals = 1;
    const refused = problem(400, "invalid_cursor", "/v1/orders");
    const t = await make({
      "": page([orderRow(1)], "c2"),
      c2: () => (refusals-- > 0 ? refused : page([orderRow(2)])),
    });
    expect(await t.sweeper.sweep(false)).toBe("swept");
    expect(t.asked).toEqual(["all:", "all:c2", "all:", "all:c2"]);
    expect(t.ctx.clock.sleeps).toEqual([1000]);
  });

  it("throws a refused first page, and any other error of a later page, at once", async () => {
    const refused = problem(400, "invalid_cursor", "/v1/orders");
    const t = await make({ "": refused });
    await expect(t.sweeper.sweep(false)).rejects.toBe(refused);
    const other = problem(400, "invalid_request", "/v1/orders");
    const t2 = await make({ "": page([], "c2"), c2: other });
    await expect(t2.sweeper.sweep(false)).rejects.toBe(other);
    expect(t2.ctx.clock.sleeps).toEqual([]);
  });

  it("stops a list whose cursors come back round, leaving no checkpoint", async () => {
    const t = await make({
      "": page([orderRow(1)], "c2"),
      c2: page([orderRow(2)], "c3"),
      c3: page([], "c2"),
    });
    const error = await t.sweeper.sweep(false).catch((e) => e);
    expect(error.code).toBe("cursor_cycle");
    expect(error.message).toBe(
      "GET /v1/orders gave a cursor it had already given in this sweep, after 2 pages: the list would never end. The next sweep starts from the first page.",
    );
    expect(await t.checkpoint("sweep:cursor:all")).toBeNull();
  });

  it("counts a cursor it resumed from as followed", async () => {
    const t = await make({ c2: page([], "c2") }, { siteIds: [5] });
    await t.store.setCheckpoint("sweep:cursor:5", "c2");
    const error = await t.sweeper.sweep(false).catch((e) => e);
    expect(error.code).toBe("cursor_cycle");
    expect(error.message).toContain("in this sweep (site 5), after 1 pages");
  });

  it("reads the stored orders the list no longer shows, flagging those gone", async () => {
    const t = await make({ "": page([orderRow(1)]) });
    await t.sweeper.sweep(false);
    t.orders.set(9, { order: orderRow(9), items: [[]], shipments: [[]] });
    await t.reader.schedule(9, { order: true, items: true, shipments: true }, "webhook");
    t.orders.set(9, { order: problem(404, "order_not_found"), items: [[]], shipments: [[]] });
    t.fake.calls.length = 0;
    await t.sweeper.sweep(false);
    expect(t.fake.calls).toEqual(["get 9"]);
    expect((await t.store.get(9))?.unresolvable).toBe(true);
  });

  it("warns of an unlisted order that cannot be read and finishes the sweep", async () => {
    const t = await make({ "": page([]) });
    t.orders.set(9, { order: orderRow(9), items: [[]], shipments: [[]] });
    await t.reader.schedule(9, { order: true, items: true, shipments: true }, "webhook");
    const down = new APIConnectionError();
    t.orders.set(9, { order: down, items: [[]], shipments: [[]] });
    expect(await t.sweeper.sweep(false)).toBe("swept");
    expect(t.ctx.warnings).toEqual([
      { message: "reading order 9 failed", error: down, next: "it is read again next sweep" },
    ]);
  });

  it("stops at an unlisted order's fatal failure", async () => {
    const t = await make({ "": page([]) });
    t.orders.set(9, { order: orderRow(9), items: [[]], shipments: [[]] });
    await t.reader.schedule(9, { order: true, items: true, shipments: true }, "webhook");
    const locked = new MirrorError("store_locked", "locked");
    t.orders.set(9, { order: locked, items: [[]], shipments: [[]] });
    await expect(t.sweeper.sweep(false)).rejects.toBe(locked);
    expect(await t.checkpoint("sweep:current")).toBe("1");
  });

  it("reads unlisted orders a hundred at a time", async () => {
    const t = await make({ "": page([]) });
    const release = t.fake.hold();
    const numbers = Array.from({ length: 101 }, (_, i) => i + 1);
    const unseen = async () => numbers;
    Object.defineProperty(t.ctx, "store", {
      value: new Proxy(t.store, { get: (s, k) => (k === "unseen" ? unseen : Reflect.get(s, k)) }),
    });
    const sweeping = t.sweeper.sweep(false).catch(() => undefined);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    // The first hundred are under way or waiting for a slot; the hundred and first not yet asked.
    expect(t.reader.inFlight).toBe(100);
    release();
    await sweeping;
    expect(t.fake.maxActive).toBe(2);
  });

  it("keeps rejected rows out, names them and warns, storing the rest of the page", async () => {
    const t = await make({
      "": page([orderRow(1)], null, [
        { index: 1, orderNumber: 5, path: "orders[].totals.order", reason: "not money" },
        { index: 2, orderNumber: null, path: "orders[].totals.item", reason: "bad" },
      ]),
    });
    await t.sweeper.sweep(false);
    expect(t.ctx.report.report()).toMatchObject({
      ordersSeen: 3,
      invalidOrders: [
        { orderNumber: 5, field: "totals.order", reason: "not money", at: ISO },
        { orderNumber: null, field: "totals.item", reason: "bad", at: ISO },
      ],
    });
    expect(t.ctx.logged).toEqual([
      {
        level: "warn",
        message: "order 5 kept out: totals.order not money",
        fields: { orderNumber: 5, field: "totals.order", next: "it is tried again next sweep" },
      },
      {
        level: "warn",
        message: "order at row 2 kept out: totals.item bad",
        fields: { orderNumber: null, field: "totals.item", next: "it is tried again next sweep" },
      },
    ]);
    expect((await t.store.get(1))?.orderNumber).toBe(1);
  });

  it("leaves out rows without a usable order number, and reads a row listed twice once", async () => {
    const t = await make({
      "": page([
        { orderNumber: 0 },
        { orderNumber: -3 },
        { orderNumber: 1.5 },
        { orderNumber: "12345678901234567890123456789012345678901234567890" },
        null as unknown as Row,
        orderRow(1),
        orderRow(1, { status: "again" }),
      ]),
    });
    await t.sweeper.sweep(false);
    expect(t.ctx.logged.map((l) => [l.message, l.fields])).toEqual([
      ["a listed order has no usable orderNumber; it is left out", { orderNumber: "0" }],
      ["a listed order has no usable orderNumber; it is left out", { orderNumber: "-3" }],
      ["a listed order has no usable orderNumber; it is left out", { orderNumber: "1.5" }],
      [
        "a listed order has no usable orderNumber; it is left out",
        { orderNumber: "1234567890123456789012345678901234567890" },
      ],
      ["a listed order has no usable orderNumber; it is left out", { orderNumber: "undefined" }],
      ["order 1 is listed twice on one page; read once", { orderNumber: 1 }],
    ]);
    expect(t.ctx.report.ordersSeen).toBe(7);
    expect((await t.store.get(1))?.order).toEqual(orderRow(1));
  });

  it("reads again a stored order flagged unresolvable, even when its row is unchanged", async () => {
    const t = await make({ "": page([orderRow(1)]) });
    await t.sweeper.sweep(false);
    t.orders.set(1, { order: problem(404, "order_not_found"), items: [[]], shipments: [[]] });
    await t.reader.schedule(1, { order: true, items: false, shipments: false }, "webhook");
    t.orders.set(1, { order: orderRow(1), items: [[]], shipments: [[]] });
    t.fake.calls.length = 0;
    t.ctx.clock.wall += 1;
    await t.sweeper.sweep(false);
    expect(t.fake.calls).toEqual(["items 1 200", "shipments 1 50"]);
  });

  it("warns of a listed order whose read failed, and goes on", async () => {
    const down = new APIConnectionError();
    const t = await make({ "": page([orderRow(1), orderRow(2)]) });
    t.orders.set(1, { order: orderRow(1), items: down, shipments: [[]] });
    expect(await t.sweeper.sweep(false)).toBe("swept");
    expect(t.ctx.warnings).toEqual([
      { message: "reading order 1 failed", error: down, next: "it is read again next sweep" },
    ]);
    expect((await t.store.get(2))?.orderNumber).toBe(2);
  });

  it("stops at a listed order's fatal failure", async () => {
    const locked = new MirrorError("store_locked", "locked");
    const t = await make({ "": page([orderRow(1)], "c2"), c2: page([]) });
    t.orders.set(1, { order: orderRow(1), items: locked, shipments: [[]] });
    await expect(t.sweeper.sweep(false)).rejects.toBe(locked);
    expect(t.asked).toEqual(["all:"]);
    expect(await t.checkpoint("sweep:cursor:all")).toBeNull();
  });

  it("stops when asked to, before the next page", async () => {
    const controller = new AbortController();
    const t = await make({
      "": () => {
        controller.abort();
        return page([orderRow(1)], "c2");
      },
      c2: page([]),
    });
    const error = await t.sweeper.sweep(false, controller.signal).catch((e) => e);
    expect(error.code).toBe("aborted");
    expect(t.asked).toEqual(["all:"]);
    const t2 = await make({ "": page([]) });
    const c2 = new AbortController();
    c2.abort();
    expect((await t2.sweeper.sweep(false, c2.signal).catch((e) => e)).code).toBe("aborted");
    expect(t2.asked).toEqual([]);
  });

  it("stops before reading unlisted orders when asked to", async () => {
    const t = await make({});
    t.orders.set(9, { order: orderRow(9), items: [[]], shipments: [[]] });
    await t.reader.schedule(9, { order: true, items: true, shipments: true }, "webhook");
    t.fake.calls.length = 0;
    const c3 = new AbortController();
    c3.abort();
    await t.store.setCheckpoint("sweep:current", "5");
    t.ctx.siteIds.length = 0;
    const e3 = await t.sweeper.sweep(false, c3.signal).catch((e) => e);
    expect(e3.code).toBe("aborted");
    expect(t.fake.calls).toEqual([]);
  });

  it("stops when another process takes the lease over between pages", async () => {
    const t = await make({
      "": () => page([orderRow(1)], "c2"),
      c2: page([]),
    });
    const store = t.store;
    let leases = 0;
    Object.defineProperty(t.ctx, "store", {
      value: new Proxy(store, {
        get: (s, k) =>
          k === "lease"
            ? async () => ++leases === 1
            : (Reflect.get(s, k).bind?.(s) ?? Reflect.get(s, k)),
      }),
    });
    const error = await t.sweeper.sweep(false).catch((e) => e);
    expect(error.code).toBe("sweep_lease_lost");
    expect(error.message).toBe(
      "The sweep lease was taken over by another process, which goes on from the checkpoint.",
    );
    expect(t.asked).toEqual(["all:"]);
    expect(await store.getCheckpoint("sweep:cursor:all")).toBe("c2");
  });

  it("renews the lease during a slow page only after a third of it, and stops once it is lost", async () => {
    const t = await make({ "": page([orderRow(1), orderRow(2)]) });
    const store = t.store;
    const leaseCalls: number[] = [];
    let grant = true;
    Object.defineProperty(t.ctx, "store", {
      value: new Proxy(store, {
        get: (s, k) =>
          k === "lease"
            ? async (_n: string, _h: string, now: number) => {
                leaseCalls.push(now);
                return grant;
              }
            : (Reflect.get(s, k).bind?.(s) ?? Reflect.get(s, k)),
      }),
    });
    await t.sweeper.keepLease();
    expect(leaseCalls).toEqual([NOW]);
    t.ctx.clock.wall += 9_999;
    await t.sweeper.keepLease();
    expect(leaseCalls).toEqual([NOW]);
    t.ctx.clock.wall += 1;
    await t.sweeper.keepLease();
    expect(leaseCalls).toEqual([NOW, NOW + 10_000]);
    grant = false;
    t.ctx.clock.wall += 10_000;
    await t.sweeper.keepLease();
    t.ctx.clock.wall += 10_000;
    await t.sweeper.keepLease();
    // Lost: no more renewals.
    expect(leaseCalls).toHaveLength(3);
  });

  it("starts one renewal at a time: reads ending while it is on its way wait for it", async () => {
    const t = await make({ "": page([orderRow(1)]) });
    const store = t.store;
    const leaseCalls: number[] = [];
    let answer = (_held: boolean) => {};
    Object.defineProperty(t.ctx, "store", {
      value: new Proxy(store, {
        get: (s, k) =>
          k === "lease"
            ? (_n: string, _h: string, now: number) => {
                leaseCalls.push(now);
                return new Promise<boolean>((resolve) => {
                  answer = resolve;
                });
              }
            : (Reflect.get(s, k).bind?.(s) ?? Reflect.get(s, k)),
      }),
    });
    const first = t.sweeper.keepLease();
    t.ctx.clock.wall += 1_000;
    const second = t.sweeper.keepLease();
    let ended = false;
    void second.then(() => {
      ended = true;
    });
    await Promise.resolve();
    expect(leaseCalls).toEqual([NOW]);
    expect(ended).toBe(false);
    answer(true);
    await Promise.all([first, second]);
    // Renewed as of its start: the next renewal is due a third of the lease (10 s) after that.
    t.ctx.clock.wall += 8_999;
    await t.sweeper.keepLease();
    expect(leaseCalls).toEqual([NOW]);
    t.ctx.clock.wall += 1;
    const third = t.sweeper.keepLease();
    answer(true);
    await third;
    expect(leaseCalls).toEqual([NOW, NOW + 10_000]);
  });

  it("stops a sweep whose lease a renewal during the page found taken", async () => {
    const t = await make({ "": page([orderRow(1)], "c2"), c2: page([]) });
    const store = t.store;
    let leases = 0;
    Object.defineProperty(t.ctx, "store", {
      value: new Proxy(store, {
        get: (s, k) =>
          k === "lease"
            ? async () => {
                leases++;
                return leases === 1;
              }
            : (Reflect.get(s, k).bind?.(s) ?? Reflect.get(s, k)),
      }),
    });
    t.ctx.clock.sleeps.length = 0;
    // Each read's end renews the lease once a third of it has passed.
    const items = t.fake.client.orders.items;
    t.fake.client.orders.items = (n: number, o: { limit: number }) => {
      t.ctx.clock.wall += 10_000;
      return items(n, o);
    };
    const error = await t.sweeper.sweep(false).catch((e) => e);
    expect(error.code).toBe("sweep_lease_lost");
    expect(await store.getCheckpoint("sweep:cursor:all")).toBeNull();
  });

  it("a lease renewal that fails is let go", async () => {
    const t = await make({});
    Object.defineProperty(t.ctx, "store", {
      value: new Proxy(t.store, {
        get: (s, k) =>
          k === "lease"
            ? async () => {
                throw new Error("db away");
              }
            : (Reflect.get(s, k).bind?.(s) ?? Reflect.get(s, k)),
      }),
    });
    await expect(t.sweeper.keepLease()).resolves.toBeUndefined();
  });
  it("takes the lease again at once when its own session lost it: the lease still names this mirror, so nobody else holds it", async () => {
    const t = await make({ "": page([orderRow(1)]) });
    const calls: string[] = [];
    let refusals = 1;
    Object.defineProperty(t.ctx, "store", {
      value: new Proxy(t.store, {
        get: (s, k) =>
          k === "lease"
            ? async (name: string, holder: string, now: number, expiresAt: number) => {
                calls.push(holder);
                // As a PostgreSQL store answers a renewal after the session holding the lease
                // died: refused once, the row left naming this holder.
                await s.lease(name, holder, now, expiresAt);
                return refusals-- <= 0;
              }
            : (Reflect.get(s, k).bind?.(s) ?? Reflect.get(s, k)),
      }),
    });
    expect(await t.sweeper.sweep(false)).toBe("swept");
    expect(calls.slice(0, 2)).toEqual([t.ctx.holder, t.ctx.holder]);
    expect(await t.checkpoint("sweep:last")).toBe("1");
    // The same for a walk under the lease (a resync).
    refusals = 1;
    let worked = 0;
    expect(await t.sweeper.underLease(async () => void worked++)).toBe("swept");
    expect(worked).toBe(1);
  });

  it("is held, after one try, when the lease refused names another holder, or nobody", async () => {
    const t = await make({ "": page([]) });
    let tries = 0;
    let named: string | null = "elsewhere/1/z";
    Object.defineProperty(t.ctx, "store", {
      value: new Proxy(t.store, {
        get: (s, k) =>
          k === "lease"
            ? async () => {
                tries++;
                return false;
              }
            : k === "leaseHolder"
              ? async () => (named === null ? null : { holder: named, since: NOW, expiresAt: NOW })
              : (Reflect.get(s, k).bind?.(s) ?? Reflect.get(s, k)),
      }),
    });
    expect(await t.sweeper.sweep(false)).toBe("held");
    expect(tries).toBe(1);
    named = null;
    expect(await t.sweeper.sweep(false)).toBe("held");
    expect(tries).toBe(2);
    // Refused again after naming this mirror: held, asked twice, never in a loop.
    named = t.ctx.holder;
    expect(await t.sweeper.sweep(false)).toBe("held");
    expect(tries).toBe(4);
    expect(t.asked).toEqual([]);
  });
});
