import { sqliteStore } from "partner-orders/sync";
import { afterEach, describe, expect, it } from "vitest";
import { STREAM } from "../../../src/sync/stores/schema";
import type { ChangeCause, MirrorStore } from "../../../src/sync/types";
import { row } from "../stores/support.js";

/**
 * The change stream's part of the SQLite store, in memory (the store contract runs the same on a
 * file and on PostgreSQL): the snapshot flag, a consumer's first position, retention.
 */
const stores: MirrorStore[] = [];
async function store(): Promise<MirrorStore> {
  const made = sqliteStore(":memory:");
  stores.push(made);
  await made.open();
  return made;
}
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
function put(
  s: MirrorStore,
  n: number,
  observedAt: string,
  cause: ChangeCause = "sweep",
  count = 1,
) {
  return s.commit(n, () => ({
    next: row(n),
    changes: Array.from(
      { length: count },
      () => ({ type: "order.added", orderNumber: n, siteId: 12, observedAt, cause }) as never,
    ),
  }));
}

describe("the SQLite store's change stream", () => {
  it("marks a sweep's changes as the snapshot until the snapshot is complete, each change of a commit", async () => {
    const s = await store();
    expect((await put(s, 1, at(0), "sweep", 2)).map((c) => c.snapshot)).toEqual([true, true]);
    expect((await put(s, 2, at(0), "poll"))[0]?.snapshot).toBe(false);
    await s.setCheckpoint(STREAM.snapshotComplete, "3");
    expect((await put(s, 3, at(0), "sweep", 2)).map((c) => c.snapshot)).toEqual([false, false]);
    expect((await s.changesAfter(0, 10)).map((c) => c.snapshot)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    // A commit without changes writes none, snapshot or not.
    expect(await s.commit(4, () => ({ next: row(4), changes: [] }))).toEqual([]);
  });

  it("initPosition stores a start once and answers the position the consumer has", async () => {
    const s = await store();
    expect(await s.initPosition("a", 5)).toBe(5);
    expect(await s.initPosition("a", 8)).toBe(5);
    expect(await s.initPosition("b", 0)).toBe(0);
    expect(await s.consumers()).toEqual([
      { name: "a", position: 5 },
      { name: "b", position: 0 },
    ]);
  });

  it("pruneChanges deletes the run of oldest ids before the first change observed since the cutoff", async () => {
    const s = await store();
    expect(await s.prunedThrough()).toBe(0);
    expect(await s.pruneChanges(at(100))).toEqual({ pruned: 0, prunedThrough: 0 });
    expect(await s.prunedThrough()).toBe(0);
    await put(s, 1, at(0)); // 1
    await put(s, 2, at(10)); // 2
    await put(s, 3, at(5)); // 3: a writer's clock behind
    await put(s, 4, at(30)); // 4
    // Exactly at the cutoff is kept.
    expect(await s.pruneChanges(at(10))).toEqual({ pruned: 1, prunedThrough: 1 });
    expect((await s.changesAfter(0, 10)).map((c) => c.id)).toEqual([2, 3, 4]);
    expect(await s.pruneChanges(at(11))).toEqual({ pruned: 2, prunedThrough: 3 });
    expect(await s.prunedThrough()).toBe(3);
    expect(await s.pruneChanges(at(31))).toEqual({ pruned: 1, prunedThrough: 4 });
    expect(await s.changesAfter(0, 10)).toEqual([]);
    // Nothing to delete: the highest deleted id stays.
    expect(await s.pruneChanges(at(31))).toEqual({ pruned: 0, prunedThrough: 4 });
    expect((await put(s, 5, at(40)))[0]?.id).toBe(5);
    expect(await s.prunedThrough()).toBe(4);
  });
});
