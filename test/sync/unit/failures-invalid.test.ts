import { describe, expect, it } from "vitest";
import { APIConnectionError } from "../../../src/core/errors";
import { MirrorError } from "../../../src/sync/errors";
import { Failures } from "../../../src/sync/failures";
import { decodeFailure, fieldOf } from "../../../src/sync/invalid";
import type { MirrorStore } from "../../../src/sync/types";
import { decodeError, problem, testContext } from "./context-support";

const ctx = () => testContext({} as MirrorStore);

describe("Failures", () => {
  it("warns of each transient failure at once and counts it, throwing nothing", () => {
    const c = ctx();
    const failures = new Failures(c);
    const error = new APIConnectionError();
    failures.add("reading order 7 failed", error, "it is read again next round");
    failures.add("reading order 8 failed", error, "later");
    expect(failures.count).toBe(2);
    expect(c.warnings).toEqual([
      { message: "reading order 7 failed", error, next: "it is read again next round" },
      { message: "reading order 8 failed", error, next: "later" },
    ]);
    expect(() => failures.throwIfFatal()).not.toThrow();
  });

  it("keeps the first fatal failure, without warning, and throws it once asked", () => {
    const c = ctx();
    const failures = new Failures(c);
    const first = new MirrorError("store_locked", "locked");
    const second = new MirrorError("schema_too_new", "newer");
    failures.add("a", first, "x");
    failures.add("b", second, "y");
    expect(failures.count).toBe(2);
    expect(c.warnings).toEqual([]);
    expect(() => failures.throwIfFatal()).toThrow(first);
  });

  it("turns a revoked credential into a fatal mirror error carrying it", () => {
    const c = ctx();
    const failures = new Failures(c);
    const revoked = problem(401, "invalid_token");
    failures.add("reading order 9 failed", revoked, "next");
    let thrown: unknown;
    try {
      failures.throwIfFatal();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MirrorError);
    expect((thrown as MirrorError).cause).toBe(revoked);
    expect(c.warnings).toEqual([]);
  });

  it("starts with no failures", () => {
    const failures = new Failures(ctx());
    expect(failures.count).toBe(0);
    expect(() => failures.throwIfFatal()).not.toThrow();
  });
});

describe("decodeFailure", () => {
  it("names the order, its field without the list prefix, the reason and the time", () => {
    expect(decodeFailure(decodeError("orders[].totals.order", "not money"), 100001, 0)).toEqual({
      orderNumber: 100001,
      field: "totals.order",
      reason: "not money",
      at: "1970-01-01T00:00:00.000Z",
    });
    expect(decodeFailure(decodeError("items[].price", "bad"), null, 1_772_366_400_000)).toEqual({
      orderNumber: null,
      field: "items[].price",
      reason: "bad",
      at: "2026-03-01T12:00:00.000Z",
    });
  });

  it("is undefined for any other error", () => {
    expect(decodeFailure(new Error("orders[].x"), 1, 0)).toBeUndefined();
    expect(decodeFailure(problem(404, "order_not_found"), 1, 0)).toBeUndefined();
  });
});

describe("fieldOf", () => {
  it("drops only a leading orders[]. prefix", () => {
    expect(fieldOf("orders[].totals.order")).toBe("totals.order");
    expect(fieldOf("totals.order")).toBe("totals.order");
    expect(fieldOf("x.orders[].totals")).toBe("x.orders[].totals");
    expect(fieldOf("ordersX[].a")).toBe("ordersX[].a");
    expect(fieldOf("orders[]xa")).toBe("orders[]xa");
    expect(fieldOf("")).toBe("");
  });
});
