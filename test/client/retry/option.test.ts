import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  defaultRetryPolicy,
  InternalServerError,
  type Logger,
  PartnerOrdersError,
  RateLimitError,
  type RetryOptions,
  ServiceUnavailableError,
} from "../../../src/index";
import { harness, rejection } from "../../support/client";
import { json, problem } from "../../support/fake-server";

const me = { partnerId: "p", partnerName: "P", grantedSiteIds: [7], authMethod: "M2M", scopes: [] };
const unavailable = () => problem(503, "service_unavailable");

/** Info lines with their fields, as a partner's logger receives them. */
function recorder(): Logger & { retries: Record<string, unknown>[] } {
  const retries: Record<string, unknown>[] = [];
  const none = () => {};
  return {
    retries,
    debug: none,
    info: (_message: string, fields?: Record<string, unknown>) => {
      if (fields) retries.push(fields);
    },
    warn: none,
    error: none,
  };
}

describe("the retry client option", () => {
  it("sets the backoff's base, with jitter off: waits of exactly base, 2 x base", async () => {
    const { client, server, clock } = harness({ retry: { baseDelayMs: 200, jitter: 0 } });
    server.on("GET /v1/me", unavailable, unavailable, () => json(me));
    await expect(client.me()).resolves.toEqual(me);
    expect(server.apiRequests).toHaveLength(3);
    expect(clock.sleeps).toEqual([200, 400]);
  });

  it("caps each wait at maxDelayMs", async () => {
    const retry = { baseDelayMs: 3_000, maxDelayMs: 5_000, jitter: 0 };
    const { client, server, clock } = harness({ retry, maxRetries: 3 });
    server.on("GET /v1/me", unavailable, unavailable, unavailable, () => json(me));
    await client.me();
    expect(clock.sleeps).toEqual([3_000, 5_000, 5_000]);
  });

  it("a rule set to false is never retried", async () => {
    const { client, server, clock } = harness({ retry: { rules: { 500: false } }, maxRetries: 5 });
    server.on(
      "GET /v1/me",
      () => problem(500, "internal_error"),
      () => json(me),
    );
    expect(await rejection(client.me())).toBeInstanceOf(InternalServerError);
    expect(server.apiRequests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("a 401 rule set to false throws the first 401 without a fresh token", async () => {
    const { client, server } = harness({ retry: { rules: { 401: false } } });
    server.on(
      "GET /v1/me",
      () => problem(401, "invalid_token"),
      () => json(me),
    );
    expect(await rejection(client.me())).toBeInstanceOf(AuthenticationError);
    expect(server.apiRequests).toHaveLength(1);
  });

  it("a rule's maxRetries bounds that answer within the call's maxRetries", async () => {
    const retry = { rules: { 503: { maxRetries: 1 } } };
    const { client, server } = harness({ retry, maxRetries: 5 });
    server.on("GET /v1/me", unavailable);
    expect(await rejection(client.me())).toBeInstanceOf(ServiceUnavailableError);
    expect(server.apiRequests).toHaveLength(2);
  });

  it("a rule's minDelayMs is the least wait, backoff off", async () => {
    const retry = { jitter: 0, rules: { 503: { backoff: false, minDelayMs: 50 } } };
    const { client, server, clock } = harness({ retry });
    server.on("GET /v1/me", unavailable, unavailable, () => json(me));
    await client.me();
    expect(clock.sleeps).toEqual([50, 50]);
  });

  it("maxRetryAfterSeconds: a longer 429 hint is thrown at once", async () => {
    const { client, server, clock } = harness({ retry: { maxRetryAfterSeconds: 5 } });
    server.on(
      "GET /v1/me",
      () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "6" }),
      () => json(me),
    );
    expect(await rejection(client.me())).toBeInstanceOf(RateLimitError);
    expect(server.apiRequests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("withOptions({ retry }) changes the new client only, over the original's policy", async () => {
    const { client, server, clock } = harness({ retry: { jitter: 0 } });
    server.on("GET /v1/me", unavailable, () => json(me));
    await client.withOptions({ retry: { baseDelayMs: 10 } }).me();
    expect(clock.sleeps).toEqual([10]);
    server.on("GET /v1/me", unavailable, () => json(me));
    await client.me();
    expect(clock.sleeps).toEqual([10, 1_000]);
  });

  it("logs the number of the attempt that failed: 1, then 2", async () => {
    const logger = recorder();
    const { client, server } = harness({ logger, logLevel: "info" });
    server.on("GET /v1/me", unavailable, unavailable, () => json(me));
    await client.me();
    expect(logger.retries.map((fields) => fields.attempt)).toEqual([1, 2]);
  });

  it.each<[string, RetryOptions]>([
    ["a negative base", { baseDelayMs: -1 }],
    ["a cap under the base", { baseDelayMs: 2_000, maxDelayMs: 1_000 }],
    ["jitter over 1", { jitter: 2 }],
    ["NaN", { maxDelayMs: Number.NaN }],
    ["a negative Retry-After ceiling", { maxRetryAfterSeconds: -5 }],
    ["a negative rule delay", { rules: { 503: { minDelayMs: -10 } } }],
    ["a fractional rule count", { rules: { 429: { maxRetries: 1.5 } } }],
    ["a 500 retried twice", { rules: { 500: { maxRetries: 2 } } }],
    ["a 500 retried under a second", { rules: { 500: { minDelayMs: 100 } } }],
    ["a 401 retried twice", { rules: { 401: { maxRetries: 2 } } }],
    ["a final 409 made retryable", { rules: { 409: {} } as RetryOptions["rules"] }],
    ["a 400 made retryable", { rules: { 400: { maxRetries: 1 } } as RetryOptions["rules"] }],
    ["a negative budget", { budget: { capacity: -1 } }],
  ])("refuses %s with PartnerOrdersError", (_, retry) => {
    const error = (() => {
      try {
        harness({ retry });
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(PartnerOrdersError);
    const { client } = harness();
    expect(() => client.withOptions({ retry })).toThrow(PartnerOrdersError);
  });

  it("a 409 is not retried even with every rule on and a large budget", async () => {
    const { client, server } = harness({ maxRetries: 5, retry: { budget: { capacity: 10_000 } } });
    server.on("GET /v1/me", () => problem(409, "partner_order_id_reused"));
    await rejection(client.me());
    expect(server.apiRequests).toHaveLength(1);
  });
});

describe("defaultRetryPolicy", () => {
  it("documents API.md's defaults and cannot be changed", () => {
    expect(defaultRetryPolicy).toMatchObject({
      baseDelayMs: 1_000,
      maxDelayMs: 20_000,
      maxRetryAfterSeconds: 60,
      rules: {
        401: { maxRetries: 1, minDelayMs: 0 },
        500: { maxRetries: 1, minDelayMs: 1_000 },
        503: { backoff: true },
      },
      budget: { capacity: 500, retryCost: 14, throttlingRetryCost: 5 },
    });
    expect(Object.isFrozen(defaultRetryPolicy.rules[500])).toBe(true);
    expect(Object.keys(defaultRetryPolicy.rules)).not.toContain("409");
  });
});
