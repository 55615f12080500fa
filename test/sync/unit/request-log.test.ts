import { describe, expect, it } from "vitest";
import { Counters } from "../../../src/sync/context";
import {
  HOURS_KEPT,
  parseHistory,
  REQUESTS_CHECKPOINT,
  RequestLog,
  readRequestHistory,
} from "../../../src/sync/request-log";
import { sqliteStore } from "../../../src/sync/stores/sqlite";
import type { MirrorStore } from "../../../src/sync/types";
import { testContext } from "./context-support";

const HOUR = 3_600_000;

async function opened(): Promise<MirrorStore> {
  const store = sqliteStore(":memory:");
  await store.open();
  return store;
}

describe("RequestLog: requests per hour in the checkpoint table", () => {
  it("adds each pass's new requests to the clock hour, and the orders of a complete sweep", async () => {
    const store = await opened();
    const ctx = testContext(store);
    const log = new RequestLog(ctx);
    const hour = ctx.clock.wall - (ctx.clock.wall % HOUR);
    const pass = new Counters(ctx.clock);
    pass.requests = 7;
    await log.record(pass, 300);
    // The same counters again: only what they made since.
    pass.requests = 10;
    await log.record(pass);
    expect(await readRequestHistory(store)).toEqual({
      hours: [[hour, 10]],
      orders: 300,
      sweepIntervalMs: 60_000,
    });
    // The next hour starts a new count; the orders stay until a sweep says otherwise.
    ctx.clock.wall += HOUR;
    const next = new Counters(ctx.clock);
    next.requests = 4;
    await log.record(next);
    expect(await readRequestHistory(store)).toEqual({
      hours: [
        [hour, 10],
        [hour + HOUR, 4],
      ],
      orders: 300,
      sweepIntervalMs: 60_000,
    });
  });

  it("writes nothing when no request was made and no sweep ended", async () => {
    const store = await opened();
    const log = new RequestLog(testContext(store));
    await log.record(new Counters(testContext(store).clock));
    expect(await store.getCheckpoint(REQUESTS_CHECKPOINT)).toBeNull();
  });

  it("keeps 48 hours: older ones are dropped", async () => {
    const store = await opened();
    const ctx = testContext(store);
    const log = new RequestLog(ctx);
    for (let i = 0; i < HOURS_KEPT + 5; i++) {
      const c = new Counters(ctx.clock);
      c.requests = i + 1;
      await log.record(c);
      ctx.clock.wall += HOUR;
    }
    const history = await readRequestHistory(store);
    expect(history?.hours).toHaveLength(HOURS_KEPT);
    expect(history?.hours[0]?.[1]).toBe(6);
    expect(history?.hours.at(-1)?.[1]).toBe(HOURS_KEPT + 5);
  });

  it("a store that fails is bookkeeping lost, never a failed pass", async () => {
    const store = await opened();
    const failing = {
      ...store,
      getCheckpoint: store.getCheckpoint.bind(store),
      setCheckpoint: () => Promise.reject(new Error("disk full")),
    } as MirrorStore;
    const ctx = testContext(failing);
    const c = new Counters(ctx.clock);
    c.requests = 3;
    await expect(new RequestLog(ctx).record(c)).resolves.toBeUndefined();
  });

  it("reads a missing or damaged checkpoint as no history", () => {
    expect(parseHistory(null)).toBeNull();
    expect(parseHistory("not json")).toBeNull();
    expect(parseHistory('{"hours":3}')).toBeNull();
    expect(parseHistory('{"hours":[[1,2],["x",3],[4]]}')).toEqual({
      hours: [[1, 2]],
      orders: null,
      sweepIntervalMs: 0,
    });
  });
});
