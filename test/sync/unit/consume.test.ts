import { describe, expect, it } from "vitest";
import { consume } from "../../../src/sync/consume";
import type {
  ChangeWatch,
  ClaimedChanges,
  ConsumeOptions,
  ConsumeTransaction,
} from "../../../src/sync/consume-types";
import { isGroupStore } from "../../../src/sync/consume-types";
import { MirrorError, StoreUnavailableError } from "../../../src/sync/errors";
import { Feed, LOOK_MS } from "../../../src/sync/feed";
import { sqliteStore } from "../../../src/sync/stores/sqlite";
import type { Change, MirrorStore } from "../../../src/sync/types";
import { record } from "../stores/support";
import { testContext } from "./context-support";

const change = (id: number, orderNumber = 100 + id) =>
  ({ id, orderNumber, type: "order.changed" }) as unknown as Change;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A clock whose sleeps wait until `wake()` (or their signal aborts). */
class HeldClock {
  readonly sleeps: number[] = [];
  #pending: (() => void)[] = [];
  now = () => 0;
  monotonic = () => 0;
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(new Error("aborted"));
    return new Promise((resolve, reject) => {
      this.#pending.push(resolve);
      signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
    });
  }
  wake() {
    const pending = this.#pending;
    this.#pending = [];
    for (const resolve of pending) resolve();
  }
}

/** A scripted group store: batches the test queues, and what the consumer did with each. */
function groupStore() {
  const queue: (Change[] | null | Error)[] = [];
  const events: string[] = [];
  const ackFailures: unknown[] = [];
  const wakes: (() => void)[] = [];
  let looks = 0;
  let stops = 0;
  const store = {
    // A consumer seen the first time is placed at the start; nothing was ever pruned.
    async getPosition() {
      return null;
    },
    async initPosition(_consumer: string, at: number) {
      return at;
    },
    async prunedThrough() {
      return 0;
    },
    async changesAfter() {
      return [];
    },
    async claimChanges(consumer: string, limit: number, leaseMs: number) {
      events.push(`claim ${consumer} ${limit} ${leaseMs}`);
      const next = queue.shift() ?? null;
      if (next instanceof Error) throw next;
      if (next === null) return null;
      const claimed: ClaimedChanges = {
        changes: next,
        tx: { exactlyOnce: true, query: async () => ({ rows: [], rowCount: 0 }) },
        async ack(count = next.length) {
          events.push(`ack ${count}`);
          const failure = ackFailures.shift();
          if (failure) throw failure;
        },
        async release() {
          events.push("release");
        },
      };
      return claimed;
    },
    watchChanges(wake: () => void): ChangeWatch {
      wakes.push(wake);
      return {
        look: () => void looks++,
        stop: async () => void stops++,
      };
    },
  };
  return {
    store: store as unknown as MirrorStore,
    queue,
    events,
    ackFailures,
    wakes,
    looks: () => looks,
    stops: () => stops,
  };
}

function groupFeed(leaseMs?: number) {
  const g = groupStore();
  const clock = new HeldClock();
  const ctx = testContext(g.store, {}, { clock: clock as never });
  return { ...g, clock, ctx, feed: new Feed(ctx, leaseMs) };
}

const unavailable = () => new StoreUnavailableError("PostgreSQL test", "connection refused");

describe("consume() on a store that shares consumers (PostgreSQL)", () => {
  it("hands each batch and its transaction to the handler and acknowledges it once it resolves", async () => {
    const t = groupFeed(5_000);
    t.queue.push([change(1), change(2)], [change(3)]);
    const abort = new AbortController();
    const seen: [number[], ConsumeTransaction][] = [];
    await consume(t.ctx, t.feed, {
      consumer: "billing",
      batchSize: 2,
      signal: abort.signal,
      handler: async (changes, tx) => {
        seen.push([changes.map((c) => c.id), tx]);
        t.events.push(`handled ${changes.length}`);
        if (seen.length === 2) abort.abort();
      },
    });
    expect(seen.map(([ids]) => ids)).toEqual([[1, 2], [3]]);
    expect(seen[0]?.[1].exactlyOnce).toBe(true);
    expect(t.events).toEqual([
      "claim billing 2 5000",
      "handled 2",
      "ack 2",
      "claim billing 2 5000",
      "handled 1",
      "ack 1",
    ]);
  });

  it("releases the batch of a handler that throws and rejects with its error", async () => {
    const t = groupFeed();
    t.queue.push([change(1)]);
    const boom = new Error("partner table full");
    const failed = await consume(t.ctx, t.feed, {
      consumer: "billing",
      handler: () => {
        throw boom;
      },
    }).catch((error: unknown) => error);
    expect(failed).toBe(boom);
    expect(t.events).toEqual(["claim billing 100 30000", "release"]);
  });

  it("warns and claims again when an acknowledgement is lost with its connection", async () => {
    const t = groupFeed();
    t.queue.push([change(1)], [change(1)]);
    t.ackFailures.push(unavailable());
    const abort = new AbortController();
    let calls = 0;
    await consume(t.ctx, t.feed, {
      consumer: "billing",
      signal: abort.signal,
      handler: () => {
        if (++calls === 2) abort.abort();
      },
    });
    expect(calls).toBe(2);
    expect(t.ctx.warnings.map((w) => [w.message, w.next])).toEqual([
      ["acknowledging a batch failed", "it is claimed again if it did not land"],
    ]);
  });

  it("throws an acknowledgement error that waiting cannot mend", async () => {
    const t = groupFeed();
    t.queue.push([change(1)]);
    const fatal = new MirrorError("schema_mismatch", "changed by hand");
    t.ackFailures.push(fatal);
    await expect(consume(t.ctx, t.feed, { consumer: "b", handler: () => undefined })).rejects.toBe(
      fatal,
    );
    t.ackFailures.push(new Error("not a mirror error"));
    t.queue.push([change(2)]);
    await expect(
      consume(t.ctx, t.feed, { consumer: "b", handler: () => undefined }),
    ).rejects.toThrow("not a mirror error");
  });

  it("waits for a wake when nothing is free, listening, and looks again after LOOK_MS", async () => {
    const t = groupFeed();
    const abort = new AbortController();
    const seen: number[] = [];
    const done = consume(t.ctx, t.feed, {
      consumer: "billing",
      signal: abort.signal,
      handler: (changes) => {
        seen.push(...changes.map((c) => c.id));
      },
    });
    await tick();
    expect(t.wakes).toHaveLength(1);
    expect(t.clock.sleeps).toEqual([LOOK_MS]);
    // A notification from another process wakes it without the look.
    t.queue.push([change(7)]);
    t.wakes[0]?.();
    await tick();
    await tick();
    expect(seen).toEqual([7]);
    // The look: listening is checked again.
    t.clock.wake();
    await tick();
    expect(t.looks()).toBeGreaterThan(0);
    abort.abort();
    await done;
    await t.feed.close();
    expect(t.stops()).toBe(1);
  });

  it("rides out a store that cannot be reached, and gives a held batch back when the mirror closes", async () => {
    const t = groupFeed();
    t.queue.push(unavailable(), [change(1)]);
    let release: () => void = () => undefined;
    const handled = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = consume(t.ctx, t.feed, {
      consumer: "billing",
      handler: () => handled,
    });
    await tick();
    expect(t.ctx.warnings.map((w) => w.message)).toEqual(["reading changes failed"]);
    t.clock.wake();
    await tick();
    await tick();
    await t.feed.close();
    expect(t.events.at(-1)).toBe("release");
    release();
    await done;
  });
});

describe("consume() stopped while it waits out a store that cannot be reached", () => {
  it("on a shared store: resolves, having handled nothing", async () => {
    const t = groupFeed();
    t.queue.push(unavailable());
    const abort = new AbortController();
    let calls = 0;
    const done = consume(t.ctx, t.feed, {
      consumer: "billing",
      signal: abort.signal,
      handler: () => void calls++,
    });
    await tick();
    expect(t.clock.sleeps).toEqual([500]);
    abort.abort();
    await expect(done).resolves.toBeUndefined();
    expect(calls).toBe(0);
  });

  it("on SQLite: resolves, having handled nothing", async () => {
    const store = sqliteStore(":memory:");
    await store.open();
    await record(store, 1);
    const clock = new HeldClock();
    let reads = 0;
    const failing = new Proxy(store, {
      get: (target, key) =>
        key === "changesAfter"
          ? async () => {
              reads++;
              throw unavailable();
            }
          : typeof Reflect.get(target, key) === "function"
            ? Reflect.get(target, key).bind(target)
            : Reflect.get(target, key),
    });
    const ctx = testContext(failing, {}, { clock: clock as never });
    const abort = new AbortController();
    let calls = 0;
    const done = consume(ctx, new Feed(ctx), {
      consumer: "billing",
      signal: abort.signal,
      handler: () => void calls++,
    });
    for (let i = 0; i < 50 && clock.sleeps.length === 0; i++) await tick();
    expect(reads).toBe(1);
    expect(clock.sleeps).toEqual([500]);
    abort.abort();
    await expect(done).resolves.toBeUndefined();
    expect(calls).toBe(0);
    await store.close();
  });
});

describe("changes() of a named consumer on a store that shares consumers", () => {
  it("stores the changes finished when the loop breaks, and all of a batch it went through", async () => {
    const t = groupFeed();
    t.queue.push([change(1), change(2), change(3)]);
    for await (const c of t.feed.changes("mailer", undefined)) {
      if (c.id === 2) break;
    }
    expect(t.events).toEqual(["claim mailer 100 30000", "ack 1"]);
    t.queue.push([change(2), change(3)], [change(4)]);
    const ids: number[] = [];
    for await (const c of t.feed.changes("mailer", undefined)) {
      ids.push(c.id);
      if (c.id === 4) break;
    }
    expect(ids).toEqual([2, 3, 4]);
    expect(t.events.slice(2)).toEqual([
      "claim mailer 100 30000",
      "ack 2",
      "claim mailer 100 30000",
      "ack 0",
    ]);
  });

  it("warns when a batch's position cannot be stored (its changes come again)", async () => {
    const t = groupFeed();
    t.queue.push([change(1)]);
    t.ackFailures.push(unavailable());
    const abort = new AbortController();
    for await (const _ of t.feed.changes("mailer", abort.signal)) abort.abort();
    expect(t.ctx.warnings.map((w) => w.message)).toEqual([
      "storing the consumer's position failed",
    ]);
    expect(t.events).toEqual(["claim mailer 100 30000", "ack 1"]);
  });

  it("ends when the mirror closes, giving back the batch of a loop suspended in its body", async () => {
    const t = groupFeed();
    t.queue.push([change(1), change(2)]);
    const it = t.feed.changes("mailer", undefined);
    expect((await it.next()).value).toEqual(change(1));
    await t.feed.close();
    expect(t.events).toEqual(["claim mailer 100 30000", "release"]);
    expect(t.feed.closed).toBe(true);
    expect((await it.next()).done).toBe(true);
  });
});

describe("consume() on SQLite (one member, at least once)", () => {
  async function sqlite() {
    const store = sqliteStore(":memory:");
    await store.open();
    for (let n = 1; n <= 5; n++) await record(store, n);
    const clock = new HeldClock();
    const ctx = testContext(store, {}, { clock: clock as never });
    return { store, ctx, clock, feed: new Feed(ctx) };
  }

  it("stores the position after each batch resolves, with an at-least-once transaction", async () => {
    const t = await sqlite();
    expect(isGroupStore(t.store)).toBe(false);
    const abort = new AbortController();
    const batches: number[][] = [];
    const positions: (number | null)[] = [];
    await consume(t.ctx, t.feed, {
      consumer: "billing",
      batchSize: 2,
      signal: abort.signal,
      handler: async (changes, tx) => {
        expect(tx).toEqual({ exactlyOnce: false });
        positions.push(await t.store.getPosition("billing"));
        batches.push(changes.map((c) => c.id));
        if (batches.length === 3) abort.abort();
      },
    });
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
    // A consumer seen the first time has its start stored at once, before its first batch.
    expect(positions).toEqual([0, 2, 4]);
    expect(await t.store.getPosition("billing")).toBe(5);
    await t.store.close();
  });

  it("keeps the position of a batch whose handler throws, and hands it again", async () => {
    const t = await sqlite();
    await t.store.setPosition("billing", 2);
    const failed = await consume(t.ctx, t.feed, {
      consumer: "billing",
      batchSize: 2,
      handler: () => {
        throw new Error("no");
      },
    }).catch((error: unknown) => error);
    expect((failed as Error).message).toBe("no");
    expect(await t.store.getPosition("billing")).toBe(2);
    const abort = new AbortController();
    const again: number[] = [];
    const done = consume(t.ctx, t.feed, {
      consumer: "billing",
      batchSize: 10,
      signal: abort.signal,
      handler: (changes) => {
        again.push(...changes.map((c) => c.id));
      },
    });
    await tick();
    await tick();
    expect(again).toEqual([3, 4, 5]);
    // Caught up: it waits for a write of this process (or the look), and ends on abort.
    expect(t.clock.sleeps).toEqual([LOOK_MS]);
    abort.abort();
    await done;
    expect(await t.store.getPosition("billing")).toBe(5);
    await t.store.close();
  });

  it("ends at once on an aborted signal, and when the store cannot store the position", async () => {
    const t = await sqlite();
    const abort = new AbortController();
    abort.abort();
    let calls = 0;
    await consume(t.ctx, t.feed, {
      consumer: "billing",
      signal: abort.signal,
      handler: () => void calls++,
    });
    expect(calls).toBe(0);
    await t.store.close();
  });
});

describe("consume() options", () => {
  const t = groupFeed();
  const bad: [string, Partial<ConsumeOptions>, RegExp][] = [
    ["no consumer", { handler: () => undefined }, /consumer must be a name/],
    ["an empty consumer", { consumer: "", handler: () => undefined }, /consumer must be a name/],
    ["no handler", { consumer: "b" }, /handler must be a function/],
    [
      "batchSize 0",
      { consumer: "b", batchSize: 0, handler: () => undefined },
      /from 1 to 10000, not 0/,
    ],
    ["batchSize 1.5", { consumer: "b", batchSize: 1.5, handler: () => undefined }, /not 1.5/],
    [
      "batchSize 10001",
      { consumer: "b", batchSize: 10_001, handler: () => undefined },
      /not 10001/,
    ],
  ];
  it.each(bad)("refuses %s with a typed error, consuming nothing", async (_, options, message) => {
    const refused = await consume(t.ctx, t.feed, options as ConsumeOptions).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(MirrorError);
    expect(refused).toMatchObject({ code: "invalid_option" });
    expect((refused as MirrorError).message).toMatch(message);
    expect((refused as MirrorError).hint).toMatch(/mirror\.consume/);
    expect(t.events).toEqual([]);
  });

  it("accepts a batchSize of 1, and cuts a long refused value to 40 characters", async () => {
    const g = groupFeed();
    g.queue.push([change(1)]);
    const abort = new AbortController();
    const sizes: number[] = [];
    await consume(g.ctx, g.feed, {
      consumer: "b",
      batchSize: 1,
      signal: abort.signal,
      handler: (changes) => {
        sizes.push(changes.length);
        abort.abort();
      },
    });
    expect(g.events[0]).toBe("claim b 1 30000");
    expect(sizes).toEqual([1]);
    const long = "9".repeat(60);
    const refused = await consume(g.ctx, g.feed, {
      consumer: "b",
      batchSize: long as never,
      handler: () => undefined,
    }).catch((error: unknown) => error);
    expect((refused as Error).message).toContain(`not ${"9".repeat(40)};`);
  });

  it("accepts 10000 and refuses no options at all", async () => {
    await expect(consume(t.ctx, t.feed, undefined as never)).rejects.toBeInstanceOf(MirrorError);
    const abort = new AbortController();
    abort.abort();
    await consume(t.ctx, t.feed, {
      consumer: "b",
      batchSize: 10_000,
      signal: abort.signal,
      handler: () => undefined,
    });
  });
});
