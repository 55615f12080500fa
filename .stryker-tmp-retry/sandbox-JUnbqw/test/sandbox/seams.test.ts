// @ts-nocheck
import { createSandbox } from "partner-orders/testing";
import { describe, expect, it } from "vitest";
import { api, tokenFor } from "./helpers";

describe("route seam", () => {
  it("lets a route replace POST /v1/mcp and run REST operations as the same caller", async () => {
    const sandbox = createSandbox();
    sandbox.route({
      method: "POST",
      path: "/v1/mcp",
      handle: async (ctx) => ctx.callRest("GET", "/v1/orders/100001"),
    });
    const full = api(sandbox, await tokenFor(sandbox));
    expect((await full.post("/v1/mcp", {})).json.orderNumber).toBe(100001);
    // The REST rules still apply inside: scope is checked for the same principal.
    const narrow = api(sandbox, await tokenFor(sandbox, ["sites:read"]));
    expect((await narrow.post("/v1/mcp", {})).json.code).toBe("insufficient_scope");
  });
});

describe("sandbox clock", () => {
  it("is a Clock whose sleeps resolve only when manual time reaches them", async () => {
    const sandbox = createSandbox({ clock: "manual", startTime: new Date("2030-01-01T00:00:00Z") });
    expect(sandbox.clock.now()).toBe(Date.parse("2030-01-01T00:00:00Z"));
    let woke = false;
    const sleeping = sandbox.clock.sleep(1000).then(() => {
      woke = true;
    });
    sandbox.clock.advance(999);
    await Promise.resolve();
    expect(woke).toBe(false);
    sandbox.clock.advance(1);
    await sleeping;
    expect(sandbox.clock.monotonic()).toBe(1000);
    const aborted = new AbortController();
    const cancelled = sandbox.clock.sleep(10, aborted.signal);
    aborted.abort(new Error("stop"));
    await expect(cancelled).rejects.toThrow("stop");
  });
});
