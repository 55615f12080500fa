import { describe, expect, it } from "vitest";
import { APIConnectionError } from "../../../src/core/errors";
import { Reader } from "../../../src/sync/reader";
import { resyncUnderLease } from "../../../src/sync/resync";
import { type ListPage, Sweeper } from "../../../src/sync/sweep";
import type { Change } from "../../../src/sync/types";
import { problem, testContext } from "./context-support";
import { type FakeOrder, fakeClient, memoryStore, orderRow } from "./reader-support";

/** Order `n` as stored after a read, closed, answered by the fake service with the same row. */
const stored = (n: number) => ({
  orderNumber: n,
  siteId: 101,
  order: orderRow(n, { closed: true }),
  items: [],
  shipments: [],
  closed: true,
  unresolvable: false,
  nextPollAt: null,
  seenInSweep: 0,
});

type Row = Record<string, unknown>;
const page = (data: Row[], nextCursor: string | null = null): ListPage => ({
  data,
  nextCursor,
  rejected: [],
});
const shipment = (n: number, shipmentNumber: number): Row => ({
  orderNumber: n,
  siteId: 101,
  shipmentNumber,
  shippingService: null,
  trackingNumbers: [],
  shippedOn: null,
});

/** A sweeper and a resync over a fake service whose list answers `pages` by cursor. */
async function make(
  pages: Record<string, ListPage | Error | (() => ListPage | Error | Promise<ListPage>)>,
) {
  const orders = new Map<number, FakeOrder>();
  for (const p of Object.values(pages)) {
    if (typeof p === "function" || p instanceof Error) continue;
    for (const row of p.data) {
      orders.set(row.orderNumber as number, { order: row, items: [[]], shipments: [[]] });
    }
  }
  const fake = fakeClient(orders);
  const store = await memoryStore();
  const ctx = testContext(store, fake.client);
  const reader = new Reader(ctx);
  const asked: string[] = [];
  const sweeper = new Sweeper(ctx, reader, async (siteId, cursor) => {
    asked.push(`${siteId ?? "all"}:${cursor ?? ""}`);
    let answer = pages[cursor ?? ""];
    if (typeof answer === "function") answer = await answer();
    if (answer === undefined) throw new Error(`no page ${cursor}`);
    if (answer instanceof Error) throw answer;
    return answer;
  });
  const resync = (siteIds: (number | undefined)[] = [undefined], signal?: AbortSignal) =>
    sweeper.underLease(() => resyncUnderLease(ctx, reader, sweeper, siteIds, signal));
  const changes = async (): Promise<Change[]> => store.changesAfter(0, 1_000);
  return { orders, fake, store, ctx, reader, sweeper, asked, resync, changes };
}

describe("resync", () => {
  it("re-reads every listed order whole, closed ones included, and records differences with cause resync", async () => {
    const closed = orderRow(2, { closed: true, status: "Delivered" });
    const t = await make({ "": page([orderRow(1), closed], "c2"), c2: page([orderRow(3)]) });
    expect(await t.sweeper.sweep(false)).toBe("swept");
    // The closed order's one re-read after it closed.
    t.ctx.clock.wall += 600_000;
    await t.reader.pollDue(t.ctx.clock.now(), () => false);
    expect((await t.store.get(2))?.nextPollAt).toBeNull();
    // A shipment appears on the closed order, with no webhook; the list row does not move.
    (t.orders.get(2) as FakeOrder).shipments = [[shipment(2, 1)]];
    const before = (await t.changes()).length;
    t.fake.calls.length = 0;
    await t.sweeper.sweep(false);
    expect(t.fake.calls).toEqual([]); // a sweep reads nothing: every row unchanged
    expect((await t.changes()).length).toBe(before);

    t.asked.length = 0;
    expect(await t.resync()).toBe("swept");
    expect(t.asked).toEqual(["all:", "all:c2"]);
    // Items and shipments of every order; the list row stands for the order itself.
    expect([...t.fake.calls].sort()).toEqual(
      [1, 2, 3].flatMap((n) => [`items ${n} 200`, `shipments ${n} 50`]).sort(),
    );
    const added = (await t.changes()).slice(before);
    expect(added).toEqual([
      expect.objectContaining({ type: "shipment.added", orderNumber: 2, cause: "resync" }),
    ]);
    // Nothing is left behind: a later resync starts from the first page.
    for (const name of ["resync:current", "resync:cursor:all", "resync:done:all"])
      expect(await t.store.getCheckpoint(name)).toBeNull();
    expect(await t.store.leaseHolder("sweep")).toBeNull();
  });

  it("reads stored orders the list no longer shows: a 404 flags one unresolvable, with cause resync", async () => {
    const t = await make({ "": page([orderRow(1), orderRow(2)]) });
    await t.sweeper.sweep(false);
    // Order 2 leaves the list and answers 404.
    const listed = { "": page([orderRow(1)]) };
    const t2 = t;
    (t2.orders.get(2) as FakeOrder).order = problem(404, "order_not_found");
    (t2.orders.get(2) as FakeOrder).items = problem(404, "order_not_found");
    const sweeper = new Sweeper(t.ctx, t.reader, async () => listed[""]);
    await sweeper.underLease(() =>
      resyncUnderLease(t.ctx, t.reader, sweeper, [undefined], undefined),
    );
    expect((await t.changes()).slice(-1)).toEqual([
      expect.objectContaining({ type: "order.unresolvable", orderNumber: 2, cause: "resync" }),
    ]);
    expect(t.fake.calls.filter((c) => c.startsWith("get "))).toEqual(["get 2"]);
    expect((await t.store.get(2))?.unresolvable).toBe(true);
  });

  it("takes the sweep lease: held by another process, it reads nothing", async () => {
    const t = await make({ "": page([orderRow(1)]) });
    const now = t.ctx.clock.now();
    expect(await t.store.lease("sweep", "otherhost/1/b", now, now + 60_000)).toBe(true);
    expect(await t.resync()).toBe("held");
    expect(t.asked).toEqual([]);
    expect(t.fake.calls).toEqual([]);
  });

  it("waits for this process's sweep under way instead of walking beside it", async () => {
    let release = () => {};
    let held = true;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const t = await make({
      "": async () => {
        if (held) await gate;
        held = false;
        return page([orderRow(1)]);
      },
    });
    const sweeping = t.sweeper.sweep(false);
    const resyncing = t.resync();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(t.asked).toEqual(["all:"]); // the resync has not started its walk
    release();
    expect(await sweeping).toBe("swept");
    expect(await resyncing).toBe("swept");
    expect(t.asked).toEqual(["all:", "all:"]);
  });

  it("resumes where it stopped: a resync of the same sites goes on from the stored cursor", async () => {
    let failing = true;
    const t = await make({
      "": page([orderRow(1)], "c2"),
      c2: () => (failing ? new APIConnectionError("GET /v1/orders failed.") : page([orderRow(2)])),
    });
    await expect(t.resync()).rejects.toBeInstanceOf(APIConnectionError);
    expect(await t.store.getCheckpoint("resync:cursor:all")).toBe("c2");
    failing = false;
    t.asked.length = 0;
    expect(await t.resync()).toBe("swept");
    expect(t.asked).toEqual(["all:c2"]);
    expect((await t.store.get(2))?.orderNumber).toBe(2);
  });

  it("a resync of other sites does not resume another's cursor", async () => {
    let failing = true;
    const t = await make({
      "": page([orderRow(1)], "c2"),
      c2: () => (failing ? new APIConnectionError("GET /v1/orders failed.") : page([])),
    });
    await expect(t.resync([101])).rejects.toBeInstanceOf(APIConnectionError);
    expect(await t.store.getCheckpoint("resync:cursor:101")).toBe("c2");
    failing = false;
    t.asked.length = 0;
    await t.resync([102]);
    expect(t.asked).toEqual(["102:", "102:c2"]);
    // The interrupted one's state is gone: asked again, it starts over.
    expect(await t.store.getCheckpoint("resync:cursor:101")).toBeNull();
  });

  it("tries a failed read again at the end; still failing, it ends with resync_incomplete naming the order", async () => {
    const t = await make({ "": page([orderRow(1), orderRow(2)]) });
    (t.orders.get(2) as FakeOrder).items = new APIConnectionError("GET items failed.");
    const error = await t.resync().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "resync_incomplete" });
    expect((error as Error).message).toContain("but 1,");
    expect((error as Error).message).toMatch(/: 2\./);
    expect(t.fake.calls.filter((c) => c.startsWith("items 2"))).toHaveLength(2);
    expect(t.ctx.warnings.map((w) => [w.message, w.next])).toEqual([
      ["reading order 2 failed", "it is tried again at the resync's end"],
      ["reading order 2 failed", "it is tried again at the resync's end"],
    ]);
    expect(error).toMatchObject({
      hint: "The warnings say why; the sweep reads them again in time, or run the resync again.",
    });
    expect((error as Error).cause).toBeInstanceOf(APIConnectionError);
    // The walk was complete: the next resync starts over.
    expect(await t.store.getCheckpoint("resync:current")).toBeNull();
  });

  it("a read that fails once and then succeeds completes the resync", async () => {
    const t = await make({ "": page([orderRow(1)]) });
    const order = t.orders.get(1) as FakeOrder;
    order.items = new APIConnectionError("GET items failed.");
    const items = t.fake.client.orders.items;
    t.fake.client.orders.items = (n: number, options: { limit: number }) => {
      const list = items(n, options);
      order.items = [[]]; // answers from the next call on
      return list;
    };
    expect(await t.resync()).toBe("swept");
    expect(order).toBeDefined();
    expect((await t.store.get(1))?.items).toEqual([]);
  });

  it("stops when its signal aborts, keeping its place", async () => {
    const stop = new AbortController();
    const t = await make({
      "": () => {
        stop.abort();
        return page([orderRow(1)], "c2");
      },
      c2: page([orderRow(2)]),
    });
    await expect(t.resync([undefined], stop.signal)).rejects.toMatchObject({ code: "aborted" });
    expect(await t.store.getCheckpoint("resync:cursor:all")).toBe("c2");
  });

  it("goes through stored orders in batches, checkpointed: stopped, it resumes after the last batch", async () => {
    const t = await make({ "": page([]) });
    for (let n = 1; n <= 150; n++) {
      await t.store.commit(n, () => ({ next: stored(n), changes: [] }));
      t.orders.set(n, { order: orderRow(n, { closed: true }), items: [[]], shipments: [[]] });
    }
    const stop = new AbortController();
    const get = t.fake.client.orders.get;
    t.fake.client.orders.get = async (n: number) => {
      if (n === 100) stop.abort();
      return get(n);
    };
    await expect(t.resync([undefined], stop.signal)).rejects.toMatchObject({
      code: "aborted",
      message: "The resync stopped: the mirror was asked to stop.",
    });
    expect(await t.store.getCheckpoint("resync:stored:all")).toBe("100");
    expect(await t.store.getCheckpoint("resync:done:all")).toBe("1");
    expect(t.fake.calls.filter((c) => c.startsWith("get "))).toHaveLength(100);
    t.fake.calls.length = 0;
    // The list of the site was walked to its end: resumed, the resync does not walk it again.
    t.asked.length = 0;
    expect(await t.resync()).toBe("swept");
    const reads = t.fake.calls.filter((c) => c.startsWith("get "));
    expect(reads).toHaveLength(50);
    expect(reads[0]).toBe("get 101");
    expect(t.asked).toEqual([]);
    expect(await t.store.getCheckpoint("resync:stored:all")).toBeNull();
  });

  it("names the first ten orders whose reads failed twice, and how many more", async () => {
    const failing = async (count: number) => {
      const rows = Array.from({ length: count }, (_, i) => orderRow(i + 1));
      const t = await make({ "": page(rows) });
      for (const order of t.orders.values()) order.items = new APIConnectionError("GET failed.");
      const error = (await t.resync().catch((e: unknown) => e)) as Error;
      return error.message.replace(/ The warnings say why.*$/, "");
    };
    expect(await failing(12)).toBe(
      "The resync read every order but 12, whose reads failed twice: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more.",
    );
    expect(await failing(10)).toBe(
      "The resync read every order but 10, whose reads failed twice: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10.",
    );
  });

  it("stops when another process took the lease while it read stored orders, keeping its place", async () => {
    const t = await make({ "": page([]) });
    for (let n = 1; n <= 150; n++) {
      await t.store.commit(n, () => ({ next: stored(n), changes: [] }));
      t.orders.set(n, { order: orderRow(n, { closed: true }), items: [[]], shipments: [[]] });
    }
    const clock = t.ctx.clock as { wall: number };
    const get = t.fake.client.orders.get;
    t.fake.client.orders.get = async (n: number) => {
      if (n === 50) {
        // This process stalled past its lease, and another took it over.
        clock.wall += 60_000;
        expect(await t.store.lease("sweep", "otherhost/1/b", clock.wall, clock.wall + 60_000)).toBe(
          true,
        );
      }
      return get(n);
    };
    await expect(t.resync()).rejects.toMatchObject({ code: "sweep_lease_lost" });
    // The batch under way was read; the next one is left to the lease's new holder.
    expect(t.fake.calls.filter((c) => c.startsWith("get "))).toHaveLength(100);
    expect(await t.store.getCheckpoint("resync:stored:all")).toBeNull();
  });

  it("a resync state it cannot read is set aside: the resync starts over", async () => {
    const t = await make({ "": page([orderRow(1)]) });
    await t.store.setCheckpoint("resync:current", "not json");
    await t.store.setCheckpoint("resync:cursor:all", "stale");
    expect(await t.resync()).toBe("swept");
    expect(t.asked).toEqual(["all:"]);
    await t.store.setCheckpoint("resync:current", '{"not":"a list"}');
    t.asked.length = 0;
    expect(await t.resync()).toBe("swept");
    expect(t.asked).toEqual(["all:"]);
  });
});
