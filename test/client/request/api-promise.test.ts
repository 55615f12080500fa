import { describe, expect, it } from "vitest";
import { APIPromise, mapResult } from "../../../src/core/api-promise";

const response = new Response("{}", { status: 200, headers: { "x-ratelimit-remaining": "7" } });

describe("a call's promise", () => {
  it("names itself APIPromise", () => {
    const promise = new APIPromise(Promise.resolve({ data: 1, response }));
    expect(Object.prototype.toString.call(promise)).toBe("[object APIPromise]");
  });

  it("resolves with the data; withResponse gives the data with its response", async () => {
    const promise = new APIPromise(Promise.resolve({ data: { id: 1 }, response }));
    expect(await promise).toEqual({ id: 1 });
    const both = await promise.withResponse();
    expect(both.data).toEqual({ id: 1 });
    expect(both.response).toBe(response);
  });

  it("a failure reaches catch with the reason, and finally runs once either way", async () => {
    const reason = new Error("boom");
    let settled = 0;
    const failed = new APIPromise<number>(Promise.reject(reason));
    expect(await failed.catch((e) => e)).toBe(reason);
    await expect(failed.finally(() => settled++)).rejects.toBe(reason);
    const ok = new APIPromise(Promise.resolve({ data: 5, response }));
    expect(await ok.finally(() => settled++)).toBe(5);
    expect(await ok.catch(() => 0)).toBe(5);
    expect(settled).toBe(2);
  });

  it("a transformed result keeps its response and is given it", async () => {
    const seen: Response[] = [];
    const mapped = mapResult(new APIPromise(Promise.resolve({ data: 2, response })), (n, r) => {
      seen.push(r);
      return n * 10;
    });
    expect(await mapped).toBe(20);
    const both = await mapped.withResponse();
    expect(both).toEqual({ data: 20, response });
    expect(both.response).toBe(response);
    expect(seen[0]).toBe(response);
  });
});
