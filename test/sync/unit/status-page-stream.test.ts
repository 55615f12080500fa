import { describe, expect, it } from "vitest";
import {
  LOOK_MS,
  STATUS_MS,
  streamChanges,
  streamStart,
} from "../../../src/sync/status-page/events";
import { changeLine } from "../../../src/sync/status-page/search";
import type { Change, MirrorStore } from "../../../src/sync/types";
import { TestClock } from "./context-support";

/** The event that tells the page to read status.json again. */
const STATUS_EVENT = "event: status\ndata: {}\n\n";

/** A change as a store gives it back. */
function change(id: number, extra: Record<string, unknown> = {}): Change {
  return {
    id,
    type: "order.added",
    orderNumber: 100_000 + id,
    siteId: 101,
    observedAt: "2026-03-01T12:00:00.000Z",
    cause: "sweep",
    snapshot: false,
    order: { status: "Submitted" },
    ...extra,
  } as unknown as Change;
}

/** A shipment change: no order on it. */
function shipped(id: number, trackingNumbers: string[]): Change {
  const { order: _, ...rest } = change(id, {
    type: "shipment.shipped",
    shipment: {},
    trackingNumbers,
  }) as {
    order?: unknown;
  };
  return rest as unknown as Change;
}

/** A store whose changesAfter answers from `batches` in turn (then empty), and a stream on it. */
function streamOn(batches: (Change[] | Error)[], newest = 0, sleepsBeforeAbort = 1) {
  const asked: number[] = [];
  const store = {
    changesAfter: async (after: number, limit: number) => {
      asked.push(after);
      expect(limit).toBe(100);
      const next = batches.shift() ?? [];
      if (next instanceof Error) throw next;
      return next;
    },
    lastChangeId: async () => newest,
  } as unknown as MirrorStore;
  const clock = new TestClock();
  const stop = new AbortController();
  const sleep = clock.sleep.bind(clock);
  clock.sleep = (ms, signal) => {
    if (clock.sleeps.length + 1 >= sleepsBeforeAbort) stop.abort();
    return sleep(ms, signal);
  };
  const written: string[] = [];
  const done = streamChanges(store, clock, 7, (text) => written.push(text), stop.signal);
  return { store, clock, written, asked, done };
}

describe("the status page's change stream", () => {
  it("starts with a retry hint, then writes each change as an event with its id", async () => {
    const s = streamOn([[change(8), change(9)]]);
    await s.done;
    expect(s.written).toEqual([
      "retry: 3000\n\n",
      `id: 8\nevent: change\ndata: ${JSON.stringify(changeLine(change(8)))}\n\n`,
      `id: 9\nevent: change\ndata: ${JSON.stringify(changeLine(change(9)))}\n\n`,
    ]);
    expect(s.asked).toEqual([7]);
    expect(s.clock.sleeps).toEqual([LOOK_MS]);
  });

  it("reads a full batch again at once, then waits a look between reads from where it got", async () => {
    const full = Array.from({ length: 100 }, (_, i) => change(8 + i));
    const s = streamOn([full, [change(108)], []], 0, 2);
    await s.done;
    expect(s.asked).toEqual([7, 107, 108]);
    expect(s.clock.sleeps).toEqual([LOOK_MS, LOOK_MS]);
    expect(s.written).toHaveLength(1 + 101);
  });

  it("keeps an idle stream alive with a comment every 15 looks, and rides out a store error", async () => {
    // The fifteenth look is the last: its keep-alive is written before the stream ends.
    const s = streamOn([new Error("database away")], 0, 15);
    await s.done;
    expect(s.written).toEqual([
      "retry: 3000\n\n",
      ": the store could not be read; trying again\n\n",
      STATUS_EVENT,
      STATUS_EVENT,
      STATUS_EVENT,
      ": keep-alive\n\n",
    ]);
    expect(s.asked).toHaveLength(15);
  });

  it("asks the page for fresh figures every 5 looks, changes or not, never within a full batch", async () => {
    expect(STATUS_MS / LOOK_MS).toBe(5);
    const full = Array.from({ length: 100 }, (_, i) => change(8 + i));
    const s = streamOn([[change(8)], [], full, [], [], [], [change(108)], []], 0, 7);
    await s.done;
    const kinds = s.written.map((t) =>
      t.startsWith("id: ") ? "change" : t === STATUS_EVENT ? "status" : t,
    );
    // The fifth look ends with a status event (the full batch was read again at once, no look of
    // its own); looks 6 and 7 write none.
    expect(kinds).toEqual([
      "retry: 3000\n\n",
      "change",
      ...Array<string>(100).fill("change"),
      "status",
      "change",
    ]);
    expect(s.clock.sleeps).toHaveLength(7);
  });

  it("ends at once when aborted while reading, writing nothing read after", async () => {
    const stop = new AbortController();
    const written: string[] = [];
    const store = {
      changesAfter: async () => {
        stop.abort();
        return [change(8)];
      },
    } as unknown as MirrorStore;
    await streamChanges(store, new TestClock(), 7, (t) => written.push(t), stop.signal);
    expect(written).toEqual(["retry: 3000\n\n"]);
  });

  it("starts after the newest change, or after the id a reconnecting browser saw last", async () => {
    const store = { lastChangeId: async () => 40 } as unknown as MirrorStore;
    expect(await streamStart(store, null)).toBe(40);
    expect(await streamStart(store, "12")).toBe(12);
    expect(await streamStart(store, "0")).toBe(0);
    // An id from the future (another store, a reset) is no reason to skip what comes.
    expect(await streamStart(store, "99")).toBe(40);
    for (const bad of ["", "-1", "1e3", "abc", "12abc", "1".repeat(16)]) {
      expect(await streamStart(store, bad), bad).toBe(40);
    }
  });
});

describe("a change as one line of the live list", () => {
  it("names the order, site and cause, the fields that moved, the status, tracking, the snapshot", () => {
    expect(changeLine(change(1))).toEqual({
      id: 1,
      type: "order.added",
      observedAt: "2026-03-01T12:00:00.000Z",
      text: "order 100001, site 101, sweep; status: Submitted",
    });
    const moved = change(2, {
      type: "order.changed",
      fields: ["status", "closed"],
      previous: {},
      cause: "webhook",
      snapshot: true,
    });
    expect(changeLine(moved).text).toBe(
      "order 100002, site 101, webhook; fields: status, closed; status: Submitted; snapshot",
    );
    expect(changeLine(shipped(3, ["1Z", "2Z"])).text).toBe(
      "order 100003, site 101, sweep; tracking: 1Z, 2Z",
    );
    expect(changeLine(shipped(4, [])).text).toBe("order 100004, site 101, sweep; tracking: none");
  });
});
