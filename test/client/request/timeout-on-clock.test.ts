import { describe, expect, it } from "vitest";
import { APITimeoutError } from "../../../src/core/errors";
import { systemClock } from "../../../src/internal/clock";
import { harness, rejection } from "../../support/client";
import { stall } from "../../support/fake-server";

// The per-attempt timeout runs on the client's clock, like every other wait: with a test clock, an
// attempt of a whole minute times out as soon as fake time says so, with no real time spent.
describe("timeoutMs on the injected clock", () => {
  it("an API attempt times out when the clock's time passes timeoutMs", {
    timeout: 2_000,
  }, async () => {
    const { client, server, clock } = harness({ timeoutMs: 60_000, maxRetries: 0 });
    server.on("GET /v1/me", stall(clock));
    const started = clock.monotonic();
    expect(await rejection(client.me())).toBeInstanceOf(APITimeoutError);
    expect(clock.monotonic() - started).toBe(60_000);
  });

  it("a token request times out on the clock too", { timeout: 2_000 }, async () => {
    const { client, server, clock } = harness({ timeoutMs: 60_000, maxRetries: 0 });
    server.on("POST /oauth2/token", stall(clock));
    expect(await rejection(client.me())).toBeInstanceOf(APITimeoutError);
    expect(server.tokenRequests).toHaveLength(1);
    await expect.poll(() => server.tokenRequests[0]?.signal.aborted).toBe(true);
  });

  it("a finished attempt leaves no timer behind", async () => {
    const { client, server, clock } = harness();
    server.on("GET /v1/me", () => new Response("{}", { status: 200 }));
    await client.me();
    expect(clock.pendingTimers).toBe(0);
  });

  it("the system clock keeps timers on the host's", () => {
    let fired = false;
    const cancel = systemClock.setTimer?.(60_000, () => {
      fired = true;
    });
    expect(cancel).toBeTypeOf("function");
    cancel?.();
    expect(fired).toBe(false);
  });
});
