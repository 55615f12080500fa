import { describe, expect, it } from "vitest";
import { RateLimitError } from "../../../src/core/errors";
import { retryDelay } from "../../../src/core/http/retry";
import type { RateLimitGate } from "../../../src/core/rate-limit-gate";
import { harness, rejection } from "../../support/client";
import { json, problem } from "../../support/fake-server";
import { me } from "../../support/fixtures";

/**
 * The 60 s ceiling on a server-asked wait (API.md, Retries: "a hint over 60 s ... throws
 * `RateLimitError` at once"): 60 itself is waited, 61 is not.
 */
const tooMany = (retryAfter: string) =>
  problem(429, "rate_limit_exceeded", {}, { "retry-after": retryAfter });
const state = { retriesMade: 0, internalErrorRetries: 0, refreshedToken: false };
const noJitter = () => 0;
const rateLimit = (retryAfterSeconds: number) =>
  new RateLimitError({
    status: 429,
    method: "GET",
    path: "/v1/me",
    headers: new Headers(),
    retryAfterSeconds,
  });

describe("the Retry-After ceiling", () => {
  it("retryDelay waits a hint of exactly 60 s and refuses 61 s", () => {
    expect(retryDelay(rateLimit(60), state, noJitter)).toBe(60_000);
    expect(retryDelay(rateLimit(61), state, noJitter)).toBeNull();
  });

  it("a 429 asking for 60 s is waited out, then retried", async () => {
    const { client, server, clock } = harness();
    server.on(
      "GET /v1/me",
      () => tooMany("60"),
      () => json(me),
    );
    await expect(client.me()).resolves.toMatchObject({ partnerId: "p" });
    expect(server.to("GET /v1/me")).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(60_000);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(61_000);
  });

  it("a 429 asking for 61 s throws RateLimitError at once, with no sleep", async () => {
    const { client, server, clock } = harness({ maxRetries: 5 });
    server.on("GET /v1/me", () => tooMany("61"));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(61);
    expect(server.to("GET /v1/me")).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("the same boundary holds for Retry-After as an HTTP date", async () => {
    const { client, server, clock } = harness({ maxRetries: 5 });
    const at = (seconds: number) => new Date(clock.now() + seconds * 1000).toUTCString();
    server.on(
      "GET /v1/me",
      () => tooMany(at(60)),
      () => json(me),
    );
    await client.me();
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(60_000);

    server.on("GET /v1/me", () => tooMany(at(61)));
    const sleptBefore = clock.sleeps.length;
    expect(await rejection(client.me())).toBeInstanceOf(RateLimitError);
    expect(clock.sleeps).toHaveLength(sleptBefore);
  });

  describe("a fleet's shared gate", () => {
    const gate = (ms: number): RateLimitGate => ({
      waitMs: async () => ms,
      close: async () => {},
    });

    it("closed for 60 s: the call waits 60 s, then is sent", async () => {
      const { client, server, clock } = harness({ rateLimitGate: gate(60_000) });
      server.on("GET /v1/me", () => json(me));
      await client.me();
      expect(clock.sleeps).toEqual([60_000]);
      expect(server.to("GET /v1/me")).toHaveLength(1);
    });

    it("closed for a moment over 60 s: RateLimitError at once, nothing sent", async () => {
      const { client, server, clock } = harness({ rateLimitGate: gate(60_001) });
      server.on("GET /v1/me", () => json(me));
      const error = await rejection(client.me());
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterSeconds).toBe(61);
      expect(clock.sleeps).toEqual([]);
      expect(server.to("GET /v1/me")).toHaveLength(0);
    });
  });
});
