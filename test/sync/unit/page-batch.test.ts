import { afterEach, describe, expect, it } from "vitest";
import type { Change, PageWrite } from "../../../src/sync/types";
import { type MirrorHarness, mirrorHarness, orderRow, storedRow } from "./mirror-support";

/**
 * The mirror's writes at page granularity: a page of the list (its new orders, its unchanged
 * orders' marks and the next cursor) in one transaction, and a round of polls in one.
 */
const made: MirrorHarness[] = [];
afterEach(async () => {
  for (const h of made.splice(0)) await h.mirror.close();
});

/** A harness whose store counts its writes: each page handed to `commitPage`, and `commit`s. */
function counted(): MirrorHarness & { pages: PageWrite[]; commits: number[] } {
  const h = mirrorHarness({ concurrency: 2 });
  made.push(h);
  const pages: PageWrite[] = [];
  const commits: number[] = [];
  h.overrides.commitPage = (page) => {
    pages.push(page);
    return h.real.commitPage(page);
  };
  h.overrides.commit = (n, decide) => {
    commits.push(n);
    return h.real.commit(n, decide);
  };
  return Object.assign(h, { pages, commits });
}

const numbers = (page: PageWrite) => page.commits.map((c) => c.orderNumber);

describe("writes by the page", () => {
  it("a sweep writes each page of the list in one transaction, with the cursor that follows it", async () => {
    const h = counted();
    for (const n of [1, 2, 3, 4, 5]) h.service.add(n);
    h.service.pages = [[1, 2, 3].map((n) => orderRow(n)), [4, 5].map((n) => orderRow(n))];
    await h.mirror.sync();
    expect(h.commits).toEqual([]);
    expect(h.pages.map(numbers)).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(h.pages.map((p) => p.checkpoint)).toEqual([
      { name: "sweep:cursor:all", value: "c1" },
      { name: "sweep:cursor:all", value: null },
    ]);
    const changes = await h.store.changesAfter(0, 100);
    expect(changes.map((c) => [c.orderNumber, c.type])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [n, "order.added"]),
    );
  });

  it("a second sweep marks the unchanged orders of a page with its cursor, in one write", async () => {
    const h = counted();
    for (const n of [1, 2]) h.service.add(n);
    await h.mirror.sync();
    h.pages.length = 0;
    await h.mirror.sync();
    expect(h.pages).toHaveLength(1);
    expect(h.pages[0]?.seen).toEqual({ orderNumbers: [1, 2], sweep: 2 });
    expect(h.pages[0]?.checkpoint).toEqual({ name: "sweep:cursor:all", value: null });
    expect((await h.store.get(2))?.seenInSweep).toBe(2);
  });

  it("a page whose write fails leaves none of it and the cursor before it: the next pass writes it once", async () => {
    const h = counted();
    for (const n of [1, 2, 3, 4, 5]) h.service.add(n);
    h.service.pages = [[1, 2, 3].map((n) => orderRow(n)), [4, 5].map((n) => orderRow(n))];
    // The second page's transaction fails after its first order was written in it.
    h.overrides.commitPage = (page) => {
      h.pages.push(page);
      if (h.pages.length !== 2) return h.real.commitPage(page);
      const [first, ...rest] = page.commits;
      return h.real.commitPage({
        ...page,
        commits: [
          first as PageWrite["commits"][number],
          ...rest.map((c) => ({
            ...c,
            decide: () => {
              throw new Error("the process died mid-page");
            },
          })),
        ],
      });
    };
    await expect(h.mirror.sync()).rejects.toThrow("the process died mid-page");
    expect(await h.store.get(3)).toBeDefined();
    expect(await h.store.get(4)).toBeUndefined();
    expect(await h.store.getCheckpoint("sweep:cursor:all")).toBe("c1");
    delete h.overrides.commitPage;
    await h.mirror.sync();
    // Resumed at the second page, and every order added exactly once.
    expect(h.service.calls.filter((c) => c.startsWith("GET /v1/orders?")).at(-1)).toBe(
      "GET /v1/orders?limit=200&cursor=c1",
    );
    const added = (await h.store.changesAfter(0, 100)).filter((c) => c.type === "order.added");
    expect(added.map((c: Change) => c.orderNumber)).toEqual([1, 2, 3, 4, 5]);
  });

  it("a store that fails at a page's look starts no read of it: the next pass writes the page", async () => {
    const h = counted();
    for (const n of [1, 2, 3]) h.service.add(n);
    const looks: number[][] = [];
    h.overrides.getMany = (numbers) => {
      looks.push([...numbers]);
      return Promise.reject(new Error("the database went away"));
    };
    await expect(h.mirror.sync()).rejects.toThrow("the database went away");
    // One look for the whole page, and no order read or written after it failed.
    expect(looks).toEqual([[1, 2, 3]]);
    expect(h.service.calls.filter((c) => c.includes("/items"))).toEqual([]);
    expect(h.pages).toEqual([]);
    delete h.overrides.getMany;
    await h.mirror.sync();
    const added = (await h.store.changesAfter(0, 100)).filter((c) => c.type === "order.added");
    expect(added.map((c: Change) => c.orderNumber)).toEqual([1, 2, 3]);
  });

  it("a page's reads use its one look at the store: no order is looked up again on a first sync", async () => {
    const h = counted();
    for (const n of [1, 2, 3]) h.service.add(n);
    const gets: number[] = [];
    h.overrides.get = (n) => {
      gets.push(n);
      return h.real.get(n);
    };
    await h.mirror.sync();
    expect(gets).toEqual([]);
    expect(h.pages.map(numbers)).toEqual([[1, 2, 3]]);
    const added = (await h.store.changesAfter(0, 100)).filter((c) => c.type === "order.added");
    expect(added.map((c: Change) => c.orderNumber)).toEqual([1, 2, 3]);
  });

  it("a round of polls is written in one transaction", async () => {
    const h = counted();
    await h.store.open();
    for (const n of [1, 2, 3]) {
      h.service.add(n);
      await h.real.commit(n, () => ({ next: storedRow(n, h.clock.now()), changes: [] }));
    }
    await h.store.setCheckpoint("sweep:finished-at", String(h.clock.now()));
    h.clock.stopAfter(1);
    await h.mirror.run({ signal: h.clock.signal });
    expect(h.pages.map(numbers)).toEqual([[1, 2, 3]]);
    expect(h.commits).toEqual([]);
  });
});
