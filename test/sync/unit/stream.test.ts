import { describe, expect, it } from "vitest";
import { checkConsumer, checkFrom } from "../../../src/sync/checks";
import { MirrorError } from "../../../src/sync/errors";
import {
  consumerStatuses,
  DEFAULT_RETENTION_MS,
  pruneChanges,
  resetConsumer,
} from "../../../src/sync/stream";
import type { MirrorStore } from "../../../src/sync/types";
import { testContext } from "./context-support";

const DAY = 24 * 60 * 60_000;

/** A store answering the stream's calls from fixed values, recording them. */
function streamStore(values: { last?: number; pruned?: number; prune?: () => unknown } = {}) {
  const calls: unknown[][] = [];
  const store = {
    async lastChangeId() {
      return values.last ?? 0;
    },
    async prunedThrough() {
      return values.pruned ?? 0;
    },
    async setPosition(name: string, id: number) {
      calls.push(["setPosition", name, id]);
    },
    async pruneChanges(before: string) {
      calls.push(["pruneChanges", before]);
      return values.prune?.() ?? { pruned: 0, prunedThrough: values.pruned ?? 0 };
    },
  } as unknown as MirrorStore;
  return { store, calls };
}

describe("retention", () => {
  it("is 30 days unless told otherwise", () => {
    expect(DEFAULT_RETENTION_MS).toBe(2_592_000_000);
  });

  it("deletes what was observed before now minus the retention, and says how many", async () => {
    const { store, calls } = streamStore({ prune: () => ({ pruned: 12, prunedThrough: 40 }) });
    const ctx = testContext(store, {}, { retentionMs: DAY } as never);
    await pruneChanges(ctx);
    expect(calls).toEqual([["pruneChanges", new Date(ctx.clock.wall - DAY).toISOString()]]);
    expect(ctx.logged).toEqual([
      {
        level: "info",
        message: "deleted 12 changes older than the retention",
        fields: { pruned: 12, prunedThrough: 40 },
      },
    ]);
  });

  it("says nothing when nothing was old enough", async () => {
    const { store } = streamStore();
    const ctx = testContext(store, {}, { retentionMs: DAY } as never);
    await pruneChanges(ctx);
    expect(ctx.logged).toEqual([]);
    expect(ctx.warnings).toEqual([]);
  });

  it("a failure is a warning, not an end", async () => {
    const down = new Error("disk full");
    const { store } = streamStore({
      prune: () => {
        throw down;
      },
    });
    const ctx = testContext(store, {}, { retentionMs: DAY } as never);
    await expect(pruneChanges(ctx)).resolves.toBeUndefined();
    expect(ctx.warnings).toEqual([
      {
        message: "deleting old changes failed",
        error: down,
        next: "it is tried again after the next sweep",
      },
    ]);
  });

  it("a retention reaching back before the epoch deletes nothing and asks nothing", async () => {
    for (const retentionMs of [Number.MAX_SAFE_INTEGER, 1_772_366_400_000]) {
      const { store, calls } = streamStore();
      const ctx = testContext(store, {}, { retentionMs } as never);
      await pruneChanges(ctx);
      expect(calls).toEqual([]);
      expect(ctx.warnings).toEqual([]);
    }
    // One millisecond after the epoch is a time: asked.
    const { store, calls } = streamStore();
    await pruneChanges(testContext(store, {}, { retentionMs: 1_772_366_399_999 } as never));
    expect(calls).toEqual([["pruneChanges", "1970-01-01T00:00:00.001Z"]]);
  });
});

describe("resetConsumer", () => {
  it("to now: after the newest change; to the beginning: after what retention deleted", async () => {
    const { store, calls } = streamStore({ last: 90, pruned: 30 });
    expect(await resetConsumer(store, "billing", "now")).toBe(90);
    expect(await resetConsumer(store, "billing", "beginning")).toBe(30);
    expect(calls).toEqual([
      ["setPosition", "billing", 90],
      ["setPosition", "billing", 30],
    ]);
  });
});

describe("consumerStatuses", () => {
  it("tells each consumer's lag in changes and in time, 0 when caught up or ahead", async () => {
    const asked: number[] = [];
    const store = {
      async consumers() {
        return [
          { name: "a", position: 4 },
          { name: "b", position: 10 },
          { name: "c", position: 12 },
          { name: "d", position: 7 },
        ];
      },
      async lastChangeId() {
        return 10;
      },
      async firstObservedAfter(id: number) {
        asked.push(id);
        // d's next change was observed after "now" (another process's clock ahead).
        return id === 7 ? "2026-03-01T12:00:05.000Z" : "2026-03-01T11:59:00.000Z";
      },
    } as unknown as MirrorStore;
    const now = Date.parse("2026-03-01T12:00:00.000Z");
    expect(await consumerStatuses(store, now)).toEqual([
      { name: "a", position: 4, lagChanges: 6, lagMs: 60_000 },
      { name: "b", position: 10, lagChanges: 0, lagMs: 0 },
      { name: "c", position: 12, lagChanges: 0, lagMs: 0 },
      { name: "d", position: 7, lagChanges: 3, lagMs: 0 },
    ]);
    expect(asked).toEqual([4, 7]);
  });
});

describe("checks of a consumer and its start", () => {
  it("accepts beginning and now, and a non-empty name", () => {
    expect(checkFrom("beginning", "x")).toBe("beginning");
    expect(checkFrom("now", "x")).toBe("now");
    expect(checkConsumer("billing", "x")).toBe("billing");
  });

  it.each([
    [undefined, 'from must be "beginning" or "now", not undefined.'],
    ["", 'from must be "beginning" or "now", not "".'],
    ["x".repeat(60), `from must be "beginning" or "now", not "${"x".repeat(39)}.`],
    [3, 'from must be "beginning" or "now", not 3.'],
  ])("refuses %j as a start, naming it", (value, message) => {
    const error = (() => {
      try {
        checkFrom(value, "from");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MirrorError);
    expect(error).toMatchObject({ code: "invalid_argument", message });
  });

  it.each([
    [undefined, "undefined"],
    ["", '""'],
    [null, "null"],
  ])("refuses %j as a consumer name", (value, shown) => {
    expect(() => checkConsumer(value, "resetConsumer")).toThrow(
      new MirrorError(
        "invalid_argument",
        `resetConsumer needs a consumer name (non-empty text), not ${shown}.`,
      ),
    );
  });
});
