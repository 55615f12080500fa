// @ts-nocheck
import { createMemoryDedupeStore, createRedisDedupeStore } from "partner-orders/webhooks";
import { describe, expect, it, vi } from "vitest";

describe("createMemoryDedupeStore", () => {
  it("claims an id once", async () => {
    const store = createMemoryDedupeStore();
    expect(await store.claim("evt_1")).toBe(true);
    expect(await store.claim("evt_1")).toBe(false);
    expect(await store.claim("evt_2")).toBe(true);
  });

  it("gives exactly one of many concurrent claims", async () => {
    const store = createMemoryDedupeStore();
    const answers = await Promise.all(Array.from({ length: 20 }, () => store.claim("evt_1")));
    expect(answers.filter(Boolean)).toHaveLength(1);
  });

  it("forgets an id after its TTL, on the injected clock", async () => {
    let now = 1_000;
    const store = createMemoryDedupeStore({ ttlMs: 100, now: () => now });
    await store.claim("evt_1");
    now += 99;
    expect(await store.claim("evt_1")).toBe(false);
    now += 1;
    expect(await store.claim("evt_1")).toBe(true);
  });

  it("stays bounded, forgetting the oldest ids first", async () => {
    const store = createMemoryDedupeStore({ maxEntries: 3 });
    for (const id of ["a", "b", "c", "d"]) await store.claim(id);
    expect(await store.claim("b")).toBe(false);
    expect(await store.claim("a")).toBe(true); // "a" was pushed out by "d"
  });

  it("releases an id so it can be claimed again", async () => {
    const store = createMemoryDedupeStore();
    await store.claim("evt_1");
    await store.release?.("evt_1");
    expect(await store.claim("evt_1")).toBe(true);
  });

  it("refuses nonsense sizes", () => {
    expect(() => createMemoryDedupeStore({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => createMemoryDedupeStore({ ttlMs: -1 })).toThrow(RangeError);
  });
});

describe("createRedisDedupeStore, by client shape", () => {
  it("calls a node-redis client with { NX, PX }", async () => {
    const set = vi.fn().mockResolvedValueOnce("OK").mockResolvedValueOnce(null);
    const store = createRedisDedupeStore({ isOpen: true, set, del: vi.fn() } as never, {
      ttlMs: 5_000,
    });
    expect(await store.claim("evt_1")).toBe(true);
    expect(await store.claim("evt_1")).toBe(false);
    expect(set).toHaveBeenCalledWith("partner-orders:webhook-event:evt_1", "1", {
      NX: true,
      PX: 5_000,
    });
  });

  it("calls an ioredis client with PX ms NX", async () => {
    const set = vi.fn().mockResolvedValueOnce("OK").mockResolvedValueOnce(null);
    const del = vi.fn().mockResolvedValue(1);
    const store = createRedisDedupeStore(
      { status: "ready", set, del },
      { prefix: "p:", ttlMs: 60_000 },
    );
    expect(await store.claim("evt_1")).toBe(true);
    expect(await store.claim("evt_1")).toBe(false);
    expect(set).toHaveBeenCalledWith("p:evt_1", "1", "PX", 60_000, "NX");
    await store.release?.("evt_1");
    expect(del).toHaveBeenCalledWith("p:evt_1");
  });

  it("passes a client failure on to the caller", async () => {
    const store = createRedisDedupeStore({
      status: "end",
      set: () => Promise.reject(new Error("closed")),
      del: vi.fn(),
    });
    await expect(store.claim("evt_1")).rejects.toThrow("closed");
  });

  it("refuses something that is not a client", () => {
    expect(() => createRedisDedupeStore({} as never)).toThrow(TypeError);
  });
});
