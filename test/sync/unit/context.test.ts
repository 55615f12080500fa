import { describe, expect, it } from "vitest";
import { APIConnectionError, APIError } from "../../../src/core/errors";
import {
  Counters,
  codeOf,
  InvalidOrders,
  messageOf,
  parseJson,
  STATUS,
} from "../../../src/sync/context";
import type { InvalidOrder, MirrorStore } from "../../../src/sync/types";
import { problem, TestClock } from "./context-support";

/** A store holding only checkpoints, recording each write. */
function checkpoints(initial: Record<string, string> = {}) {
  const values = new Map(Object.entries(initial));
  const writes: (string | null)[] = [];
  let failNext = 0;
  const store = {
    async getCheckpoint(name: string) {
      return values.get(name) ?? null;
    },
    async setCheckpoint(name: string, value: string | null) {
      if (failNext > 0) {
        failNext--;
        throw new Error("store away");
      }
      expect(name).toBe("status:invalid-orders");
      writes.push(value);
      if (value === null) values.delete(name);
      else values.set(name, value);
    },
  } as unknown as MirrorStore;
  return {
    store,
    writes,
    list: () => JSON.parse(values.get("status:invalid-orders") ?? "[]") as InvalidOrder[],
    failWrites(n: number) {
      failNext = n;
    },
  };
}

const bad = (orderNumber: number | null, field = "totals.order"): InvalidOrder => ({
  orderNumber,
  field,
  reason: "not money",
  at: "2026-03-01T12:00:00.000Z",
});

describe("Counters", () => {
  it("reports every counter, the invalid orders and the rounded duration", () => {
    const clock = new TestClock();
    const counters = new Counters(clock);
    expect(counters.started).toBe(5_000);
    counters.ordersSeen = 1;
    counters.ordersAdded = 2;
    counters.ordersChanged = 3;
    counters.itemsReread = 4;
    counters.shipmentsReread = 5;
    counters.changesWritten = 6;
    counters.requests = 7;
    counters.invalidOrders.set("9", bad(9));
    clock.mono = 6_234.6;
    expect(counters.report()).toEqual({
      ordersSeen: 1,
      ordersAdded: 2,
      ordersChanged: 3,
      itemsReread: 4,
      shipmentsReread: 5,
      changesWritten: 6,
      requests: 7,
      invalidOrders: [bad(9)],
      durationMs: 1235,
    });
  });

  it("starts at zero", () => {
    const counters = new Counters(new TestClock());
    expect(counters.report()).toEqual({
      ordersSeen: 0,
      ordersAdded: 0,
      ordersChanged: 0,
      itemsReread: 0,
      shipmentsReread: 0,
      changesWritten: 0,
      requests: 0,
      invalidOrders: [],
      durationMs: 0,
    });
    expect(counters.pages).toBe(0);
  });

  it("tells progress: pages, orders, requests and the rate per second since it started", () => {
    const clock = new TestClock();
    const lines: unknown[] = [];
    const counters = new Counters(clock, (p) => lines.push(p));
    counters.pages = 2;
    counters.ordersSeen = 30;
    counters.requests = 12;
    counters.progress();
    clock.mono += 4_000;
    counters.progress();
    expect(lines).toEqual([
      { pages: 2, orders: 30, requests: 12, ratePerSecond: 0 },
      { pages: 2, orders: 30, requests: 12, ratePerSecond: 3 },
    ]);
  });

  it("tells nothing without a listener, and a listener that throws does not fail the pass", () => {
    new Counters(new TestClock()).progress();
    let calls = 0;
    const counters = new Counters(new TestClock(), () => {
      calls++;
      throw new Error("boom");
    });
    expect(() => counters.progress()).not.toThrow();
    expect(calls).toBe(1);
  });
});

describe("InvalidOrders", () => {
  it("adds entries to the pass's counters and the stored list, one per order", async () => {
    const cp = checkpoints();
    const invalid = new InvalidOrders(cp.store);
    const counters = new Counters(new TestClock());
    await invalid.add(bad(7), counters);
    await invalid.add(bad(8), counters);
    await invalid.add({ ...bad(7), reason: "again" }, counters);
    expect(cp.list()).toEqual([bad(8), { ...bad(7), reason: "again" }]);
    expect([...counters.invalidOrders.entries()]).toEqual([
      ["7", { ...bad(7), reason: "again" }],
      ["8", bad(8)],
    ]);
  });

  it("keys a row without an order number by its field", async () => {
    const cp = checkpoints();
    const invalid = new InvalidOrders(cp.store);
    const counters = new Counters(new TestClock());
    await invalid.add(bad(null, "totals.order"), counters);
    await invalid.add(bad(null, "totals.item"), counters);
    await invalid.add(bad(null, "totals.order"), counters);
    expect([...counters.invalidOrders.keys()]).toEqual(["?totals.order", "?totals.item"]);
    expect(cp.list()).toEqual([bad(null, "totals.item"), bad(null, "totals.order")]);
  });

  it("clears an order it added, and writes null once the list is empty", async () => {
    const cp = checkpoints();
    const invalid = new InvalidOrders(cp.store);
    const counters = new Counters(new TestClock());
    await invalid.add(bad(7), counters);
    await invalid.add(bad(8), counters);
    await invalid.clear(7);
    expect(cp.list()).toEqual([bad(8)]);
    await invalid.clear(8);
    expect(cp.writes.at(-1)).toBeNull();
    expect(cp.writes).toHaveLength(4);
  });

  it("does not write for an order it does not know to be listed", async () => {
    const cp = checkpoints({ [STATUS.invalid]: JSON.stringify([bad(7)]) });
    const invalid = new InvalidOrders(cp.store);
    await invalid.clear(7);
    expect(cp.writes).toEqual([]);
    await invalid.load();
    await invalid.clear(9);
    expect(cp.writes).toEqual([]);
    await invalid.clear(7);
    expect(cp.writes).toEqual([null]);
    // Cleared once: a second clear writes nothing.
    await invalid.clear(7);
    expect(cp.writes).toEqual([null]);
  });

  it("keeps the last thousand entries", async () => {
    const many = Array.from({ length: 1_000 }, (_, i) => bad(i + 1));
    const cp = checkpoints({ [STATUS.invalid]: JSON.stringify(many) });
    const invalid = new InvalidOrders(cp.store);
    await invalid.add(bad(5_000), new Counters(new TestClock()));
    const list = cp.list();
    expect(list).toHaveLength(1_000);
    expect(list[0]).toEqual(bad(2));
    expect(list.at(-1)).toEqual(bad(5_000));
  });

  it("reads an unreadable stored list as empty", async () => {
    const cp = checkpoints({ [STATUS.invalid]: "{not json" });
    const invalid = new InvalidOrders(cp.store);
    await invalid.add(bad(3), new Counters(new TestClock()));
    expect(cp.list()).toEqual([bad(3)]);
  });

  it("a failed write rejects that change only; the next one still runs", async () => {
    const cp = checkpoints();
    const invalid = new InvalidOrders(cp.store);
    const counters = new Counters(new TestClock());
    cp.failWrites(1);
    const first = invalid.add(bad(1), counters);
    const second = invalid.add(bad(2), counters);
    await expect(first).rejects.toThrow("store away");
    await second;
    expect(cp.list()).toEqual([bad(2)]);
  });

  it("runs changes one after another, each on the list the last one wrote", async () => {
    const cp = checkpoints();
    const invalid = new InvalidOrders(cp.store);
    const counters = new Counters(new TestClock());
    await Promise.all([invalid.add(bad(1), counters), invalid.add(bad(2), counters)]);
    expect(cp.list()).toEqual([bad(1), bad(2)]);
  });
});

describe("parseJson", () => {
  it("parses JSON, and is undefined for null or text that is not JSON", () => {
    expect(parseJson<number[]>("[1,2]")).toEqual([1, 2]);
    expect(parseJson("null")).toBeNull();
    expect(parseJson(null)).toBeUndefined();
    expect(parseJson("{")).toBeUndefined();
  });
});

describe("codeOf", () => {
  it("prefers an error's own string code", () => {
    expect(codeOf(problem(404, "order_not_found"))).toBe("order_not_found");
    expect(codeOf({ code: "store_unavailable" })).toBe("store_unavailable");
  });

  it("falls back on the HTTP status of an API error without a code", () => {
    const error = new APIError({
      status: 503,
      method: "GET",
      path: "/v1/orders",
      headers: new Headers(),
    });
    expect(codeOf(error)).toBe("http_503");
  });

  it("ignores an empty or non-string code", () => {
    const empty = Object.assign(new TypeError("x"), { code: "" });
    expect(codeOf(empty)).toBe("TypeError");
    const numeric = Object.assign(new RangeError("x"), { code: 42 });
    expect(codeOf(numeric)).toBe("RangeError");
  });

  it("names the error otherwise, or its type", () => {
    expect(codeOf(new APIConnectionError())).toBe("APIConnectionError");
    expect(codeOf(new SyntaxError("x"))).toBe("SyntaxError");
    expect(codeOf("text")).toBe("string");
    expect(codeOf(null)).toBe("object");
    expect(codeOf(undefined)).toBe("undefined");
  });
});

describe("messageOf", () => {
  it("is an error's message, or the value as text", () => {
    expect(messageOf(new Error("broken"))).toBe("broken");
    expect(messageOf(42)).toBe("42");
  });
});
