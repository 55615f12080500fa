import { describe, expect, it } from "vitest";
import { ChangesExpiredError, MirrorError } from "../../../src/sync/errors";
import { Feed } from "../../../src/sync/feed";
import type { Change, MirrorStore } from "../../../src/sync/types";
import { testContext } from "./context-support";

const change = (id: number) =>
  ({ id, orderNumber: 100000 + id, type: "order.changed" }) as unknown as Change;

/** A clock whose sleeps wait until the test resolves them (or their signal aborts), or end at once. */
class FeedClock {
  instant = false;
  /** Every sleep fails at once (a clock that cannot wait). */
  failing = false;
  readonly sleeps: { ms: number; signal: AbortSignal | undefined }[] = [];
  #pending: (() => void)[] = [];
  now = () => 0;
  monotonic = () => 0;
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push({ ms, signal });
    if (signal?.aborted || this.failing) return Promise.reject(new Error("aborted"));
    if (this.instant) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#pending.push(resolve);
      signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
    });
  }
  /** Ends every sleep under way. */
  wake() {
    const pending = this.#pending;
    this.#pending = [];
    for (const resolve of pending) resolve();
  }
}

/** A store whose change log the test appends to, recording the feed's calls. */
function changeStore() {
  const log: Change[] = [];
  const calls: string[] = [];
  const positions = new Map<string, number>();
  /** The highest id retention deleted (the test removes those changes from `log` itself). */
  const pruned = { through: 0 };
  const failures: Record<string, unknown[]> = {};
  const fail = async (name: string) => {
    const error = failures[name]?.shift();
    if (error) throw error;
  };
  const store = {
    async getPosition(consumer: string) {
      calls.push(`getPosition ${consumer}`);
      await fail("getPosition");
      return positions.get(consumer) ?? null;
    },
    async setPosition(consumer: string, id: number) {
      calls.push(`setPosition ${consumer} ${id}`);
      await fail("setPosition");
      positions.set(consumer, id);
    },
    async initPosition(consumer: string, id: number) {
      calls.push(`initPosition ${consumer} ${id}`);
      await fail("initPosition");
      if (!positions.has(consumer)) positions.set(consumer, id);
      return positions.get(consumer);
    },
    async prunedThrough() {
      calls.push("prunedThrough");
      await fail("prunedThrough");
      return pruned.through;
    },
    async lastChangeId() {
      calls.push("lastChangeId");
      await fail("lastChangeId");
      return log.length ? (log.at(-1)?.id ?? 0) : 0;
    },
    async changesAfter(after: number, limit: number) {
      calls.push(`changesAfter ${after} ${limit}`);
      await fail("changesAfter");
      return log.filter((c) => c.id > after).slice(0, limit);
    },
  } as unknown as MirrorStore;
  return { store, log, calls, positions, failures, pruned };
}

function make() {
  const s = changeStore();
  const clock = new FeedClock();
  const ctx = testContext(s.store, {}, { clock: clock as never });
  return { ...s, clock, ctx, feed: new Feed(ctx) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("Feed", () => {
  it("hands a named consumer the changes after its stored position, storing each one", async () => {
    const t = make();
    t.log.push(change(1), change(2), change(3));
    t.positions.set("billing", 1);
    const it = t.feed.changes("billing", undefined);
    expect((await it.next()).value).toEqual(change(2));
    expect(t.positions.get("billing")).toBe(1);
    expect((await it.next()).value).toEqual(change(3));
    expect(t.positions.get("billing")).toBe(2);
    await it.return();
    expect(t.calls).toEqual(["getPosition billing", "changesAfter 1 100", "setPosition billing 2"]);
  });

  it("starts a new consumer at the first change, storing that start", async () => {
    const t = make();
    t.log.push(change(1), change(2));
    const it = t.feed.changes("new", undefined);
    expect((await it.next()).value).toEqual(change(1));
    await it.return();
    expect(t.calls).toEqual([
      "getPosition new",
      "prunedThrough",
      "initPosition new 0",
      "changesAfter 0 100",
    ]);
    expect(t.positions.get("new")).toBe(0);
  });

  it("hands an unnamed loop only the changes written from now on", async () => {
    const t = make();
    t.log.push(change(1), change(2));
    const it = t.feed.changes(undefined, undefined);
    const next = it.next();
    await tick();
    t.log.push(change(3));
    t.feed.notify();
    expect((await next).value).toEqual(change(3));
    expect(t.calls.slice(0, 4)).toEqual([
      "lastChangeId",
      "changesAfter 2 100",
      "prunedThrough",
      "changesAfter 2 100",
    ]);
    expect(t.calls).not.toContain("setPosition");
    await it.return();
  });

  it("asks for the next batch after the last change handed out", async () => {
    const t = make();
    for (let id = 1; id <= 101; id++) t.log.push(change(id));
    const seen: number[] = [];
    for await (const c of t.feed.changes("c", undefined)) {
      seen.push(c.id);
      if (c.id === 101) break;
    }
    expect(seen).toHaveLength(101);
    expect(t.calls.filter((c) => c.startsWith("changesAfter"))).toEqual([
      "changesAfter 0 100",
      "changesAfter 100 100",
    ]);
  });

  it("waits a second for other processes' changes, and is woken early by this one's", async () => {
    const t = make();
    const it = t.feed.changes(undefined, undefined);
    const next = it.next();
    await tick();
    expect(t.clock.sleeps.map((s) => s.ms)).toEqual([1000]);
    // The second passes: it looks again.
    t.clock.wake();
    await tick();
    expect(t.calls.filter((c) => c.startsWith("changesAfter"))).toHaveLength(2);
    expect(t.clock.sleeps.map((s) => s.ms)).toEqual([1000, 1000]);
    const waiting = t.clock.sleeps[1]?.signal;
    expect(waiting?.aborted).toBe(false);
    t.log.push(change(1));
    t.feed.notify();
    expect((await next).value).toEqual(change(1));
    // The timer of the wait a write ended is cancelled.
    expect(waiting?.aborted).toBe(true);
    await it.return();
  });

  it("ends a waiting loop when the caller aborts", async () => {
    const t = make();
    const controller = new AbortController();
    const it = t.feed.changes("c", controller.signal);
    const next = it.next();
    await tick();
    expect(t.clock.sleeps).toHaveLength(1);
    const timer = t.clock.sleeps[0]?.signal;
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(timer?.aborted).toBe(true);
  });

  it("a write this process notifies while an empty batch is read is read at once, not slept through", async () => {
    const t = make();
    const read = t.store.changesAfter.bind(t.store);
    let first = true;
    t.store.changesAfter = async (after, limit) => {
      const batch = await read(after, limit);
      if (first) {
        // The commit lands and notifies just after this read saw nothing.
        first = false;
        t.log.push(change(1));
        t.feed.notify();
      }
      return batch;
    };
    const it = t.feed.changes(undefined, undefined, "beginning");
    expect((await it.next()).value).toEqual(change(1));
    expect(t.clock.sleeps).toEqual([]);
    await it.return();
  });

  it("ends at once when the caller aborts or the mirror closes while an empty batch is read", async () => {
    for (const end of ["abort", "close"]) {
      const t = make();
      const controller = new AbortController();
      const read = t.store.changesAfter.bind(t.store);
      t.store.changesAfter = async (after, limit) => {
        if (end === "abort") controller.abort();
        else t.feed.close();
        return read(after, limit);
      };
      expect(await t.feed.changes("c", controller.signal).next()).toEqual({
        done: true,
        value: undefined,
      });
      // No wait was begun: a listener added to a signal already aborted would never fire.
      expect(t.clock.sleeps).toEqual([]);
    }
  });

  it("ends a waiting loop when the mirror closes, and a new loop at once", async () => {
    const t = make();
    const it = t.feed.changes("c", undefined);
    const next = it.next();
    await tick();
    t.feed.close();
    expect(await next).toEqual({ done: true, value: undefined });
    t.log.push(change(1));
    expect(await t.feed.changes("c", undefined).next()).toEqual({ done: true, value: undefined });
  });

  it("stops within a batch once the caller aborts, storing no position after the abort", async () => {
    const t = make();
    t.log.push(change(1), change(2));
    const controller = new AbortController();
    const seen: number[] = [];
    for await (const c of t.feed.changes("c", controller.signal)) {
      seen.push(c.id);
      controller.abort();
    }
    expect(seen).toEqual([1]);
    // Only the start it was given as a new consumer.
    expect(t.positions.get("c")).toBe(0);
    expect(t.calls).toEqual([
      "getPosition c",
      "prunedThrough",
      "initPosition c 0",
      "changesAfter 0 100",
    ]);
  });

  it("stops within a batch once the mirror closes", async () => {
    const t2 = make();
    t2.log.push(change(1), change(2));
    const seen2: number[] = [];
    for await (const c of t2.feed.changes("c", undefined)) {
      seen2.push(c.id);
      t2.feed.close();
    }
    expect(seen2).toEqual([1]);
    expect(t2.positions.get("c")).toBe(0);
  });

  it("hands out nothing to a caller already aborted", async () => {
    const t = make();
    t.log.push(change(1));
    const controller = new AbortController();
    controller.abort();
    expect(await t.feed.changes("c", controller.signal).next()).toEqual({
      done: true,
      value: undefined,
    });
    expect(t.calls).toEqual([]);
  });

  it("waits out a store that cannot be read, backing off up to 30 s and warning each time", async () => {
    const t = make();
    t.clock.instant = true;
    const away = new MirrorError("store_unavailable", "database away");
    t.failures.changesAfter = [away, ...Array.from({ length: 7 }, () => new Error("reset"))];
    t.log.push(change(1));
    const it = t.feed.changes("c", undefined);
    expect((await it.next()).value).toEqual(change(1));
    expect(t.clock.sleeps.map((s) => s.ms)).toEqual([
      500, 1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
    expect(t.ctx.warnings[0]).toEqual({
      message: "reading changes failed",
      error: away,
      next: "trying again in 0.5 s",
    });
    expect(t.ctx.warnings.map((w) => w.next).slice(6)).toEqual([
      "trying again in 30 s",
      "trying again in 30 s",
    ]);
    await it.return();
  });

  it("retries the position read and the position write too", async () => {
    const t = make();
    t.clock.instant = true;
    t.failures.getPosition = [new Error("a")];
    t.failures.setPosition = [new Error("b")];
    t.log.push(change(1), change(2));
    const it = t.feed.changes("c", undefined);
    expect((await it.next()).value).toEqual(change(1));
    expect((await it.next()).value).toEqual(change(2));
    expect(t.positions.get("c")).toBe(1);
    expect(t.ctx.warnings).toHaveLength(2);
    await it.return();
  });

  it("throws a store error that waiting cannot mend", async () => {
    const t = make();
    const newer = new MirrorError("schema_too_new", "newer");
    t.failures.lastChangeId = [newer];
    await expect(t.feed.changes(undefined, undefined).next()).rejects.toBe(newer);
    expect(t.ctx.warnings).toEqual([]);
  });

  it("ends when the caller aborts during a backoff", async () => {
    const t = make();
    const controller = new AbortController();
    t.failures.changesAfter = [new Error("down")];
    t.log.push(change(1));
    const it = t.feed.changes("c", controller.signal);
    const next = it.next();
    await tick();
    expect(t.clock.sleeps.map((s) => s.ms)).toEqual([500]);
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
  });

  it("ends when the position cannot be stored before an abort", async () => {
    const t = make();
    const controller = new AbortController();
    t.failures.setPosition = [new Error("down")];
    t.log.push(change(1), change(2));
    const it = t.feed.changes("c", controller.signal);
    expect((await it.next()).value).toEqual(change(1));
    const next = it.next();
    await tick();
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(t.positions.get("c")).toBe(0);
  });

  it("ends when the start position cannot be read before an abort", async () => {
    const t = make();
    const controller = new AbortController();
    t.failures.getPosition = [new Error("down")];
    t.log.push(change(1));
    const next = t.feed.changes("c", controller.signal).next();
    await tick();
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(t.calls).toEqual(["getPosition c"]);
  });

  it("ends when a backoff's wait fails, without asking the store again", async () => {
    const t = make();
    t.clock.failing = true;
    t.failures.getPosition = [new Error("down")];
    t.log.push(change(1));
    expect(await t.feed.changes("c", undefined).next()).toEqual({ done: true, value: undefined });
    expect(t.calls).toEqual(["getPosition c"]);
  });

  it("stores no position for an unnamed loop", async () => {
    const t = make();
    const it = t.feed.changes(undefined, undefined);
    const first = it.next();
    await tick();
    t.log.push(change(1), change(2));
    t.feed.notify();
    expect((await first).value).toEqual(change(1));
    expect((await it.next()).value).toEqual(change(2));
    await it.return();
    expect(t.calls.filter((c) => c.startsWith("setPosition"))).toEqual([]);
  });

  it("an unnamed loop stops within a batch once the caller aborts or the mirror closes", async () => {
    for (const end of ["abort", "close"]) {
      const t = make();
      const controller = new AbortController();
      const it = t.feed.changes(undefined, controller.signal);
      const first = it.next();
      await tick();
      t.log.push(change(1), change(2));
      t.feed.notify();
      expect((await first).value).toEqual(change(1));
      if (end === "abort") controller.abort();
      else t.feed.close();
      expect(await it.next()).toEqual({ done: true, value: undefined });
    }
  });
});

describe("Feed: where a consumer starts", () => {
  it("a new consumer from now starts after the newest change, and that start is stored", async () => {
    const t = make();
    t.log.push(change(1), change(2));
    const it = t.feed.changes("mailer", undefined, "now");
    const next = it.next();
    await tick();
    expect(t.positions.get("mailer")).toBe(2);
    t.log.push(change(3));
    t.feed.notify();
    expect((await next).value).toEqual(change(3));
    await it.return();
    expect(t.calls.slice(0, 3)).toEqual([
      "getPosition mailer",
      "lastChangeId",
      "initPosition mailer 2",
    ]);
  });

  it("a stored position wins over from, either way", async () => {
    for (const from of ["now", "beginning"] as const) {
      const t = make();
      t.log.push(change(1), change(2), change(3));
      t.positions.set("billing", 1);
      const it = t.feed.changes("billing", undefined, from);
      expect((await it.next()).value).toEqual(change(2));
      await it.return();
      expect(t.calls).not.toContain("lastChangeId");
      expect(t.calls.some((c) => c.startsWith("initPosition"))).toBe(false);
    }
  });

  it("another process that started the same consumer first sets where it starts", async () => {
    const t = make();
    t.log.push(change(1), change(2), change(3));
    const store = t.store as unknown as { initPosition(c: string, id: number): Promise<number> };
    const real = store.initPosition.bind(store);
    // Between this loop's look and its insert, another process stored position 1.
    store.initPosition = async (c, id) => {
      t.positions.set(c, 1);
      return real(c, id);
    };
    const it = t.feed.changes("shared", undefined, "now");
    expect((await it.next()).value).toEqual(change(2));
    await it.return();
  });

  it("an unnamed loop from the beginning starts at the oldest kept change", async () => {
    const t = make();
    t.log.push(change(4), change(5));
    t.pruned.through = 3;
    const it = t.feed.changes(undefined, undefined, "beginning");
    expect((await it.next()).value).toEqual(change(4));
    await it.return();
    expect(t.calls[0]).toBe("prunedThrough");
  });

  it("a new consumer from the beginning starts after what retention deleted, with no error", async () => {
    const t = make();
    t.log.push(change(8), change(9));
    t.pruned.through = 7;
    const it = t.feed.changes("late", undefined);
    expect((await it.next()).value).toEqual(change(8));
    await it.return();
    expect(t.positions.get("late")).toBe(7);
  });
});

describe("Feed: retention", () => {
  it("a consumer whose next changes were deleted gets ChangesExpiredError naming the gap, and nothing", async () => {
    const t = make();
    t.log.push(change(6), change(7));
    t.pruned.through = 5;
    t.positions.set("billing", 3);
    const it = t.feed.changes("billing", undefined);
    const error = await it.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChangesExpiredError);
    expect(error).toBeInstanceOf(MirrorError);
    expect(error).toMatchObject({
      code: "changes_expired",
      consumer: "billing",
      position: 3,
      prunedThrough: 5,
      oldestKeptId: 6,
    });
    expect((error as Error).message).toContain("ids 4 to 5 are gone");
    expect((error as Error).message).toContain("the oldest change kept is 6");
    expect((error as MirrorError).hint).toContain('mirror.resetConsumer("billing", "beginning")');
    // The position is left where it was: a reset is the caller's decision.
    expect(t.positions.get("billing")).toBe(3);
    expect(t.ctx.warnings).toEqual([]);
  });

  it("ids a sequence skipped are no gap: a position before them reads on", async () => {
    const t = make();
    // 4 and 5 were never written (a PostgreSQL sequence skips values); 1 to 3 were deleted.
    t.log.push(change(6), change(7));
    t.pruned.through = 3;
    t.positions.set("billing", 3);
    const it = t.feed.changes("billing", undefined);
    expect((await it.next()).value).toEqual(change(6));
    await it.return();
  });

  it("every change deleted, the consumer behind them: expired, with no change kept", async () => {
    const t = make();
    t.pruned.through = 5;
    t.positions.set("billing", 2);
    const error = await t.feed
      .changes("billing", undefined)
      .next()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "changes_expired",
      position: 2,
      prunedThrough: 5,
      oldestKeptId: null,
    });
    expect((error as Error).message).toContain("none (every change was deleted)");
  });

  it("a consumer caught up with everything deleted waits, it lost nothing", async () => {
    const t = make();
    t.pruned.through = 5;
    t.positions.set("billing", 5);
    const it = t.feed.changes("billing", undefined);
    const next = it.next();
    await tick();
    expect(t.clock.sleeps).toHaveLength(1);
    t.log.push(change(6));
    t.feed.notify();
    expect((await next).value).toEqual(change(6));
    await it.return();
  });

  it("retention overtaking a running loop ends it with the error at its next read", async () => {
    const t = make();
    t.log.push(change(1));
    const it = t.feed.changes(undefined, undefined, "beginning");
    expect((await it.next()).value).toEqual(change(1));
    // While the caller works on change 1, 2 and 3 are written and deleted.
    t.log.splice(0);
    t.log.push(change(4));
    t.pruned.through = 3;
    const error = await it.next().catch((e: unknown) => e);
    expect(error).toMatchObject({
      consumer: undefined,
      position: 1,
      prunedThrough: 3,
      oldestKeptId: 4,
    });
    expect((error as Error).message).toMatch(/^This changes\(\) loop is at change 1/);
    expect((error as MirrorError).hint).toContain("Start a new changes() loop");
  });
});
