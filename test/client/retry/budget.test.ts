import { describe, expect, it } from "vitest";
import {
  defaultRetryPolicy,
  PartnerOrdersError,
  RateLimitError,
  ServiceUnavailableError,
} from "../../../src/index";
import { harness, rejection } from "../../support/client";
import { json, problem } from "../../support/fake-server";
import { overUndici } from "../../support/wire";

const me = { partnerId: "p", partnerName: "P", grantedSiteIds: [7], authMethod: "M2M", scopes: [] };
const unavailable = () => problem(503, "service_unavailable");
const ok = () => json(me);

// Concurrent calls share one fake clock: the backoff one call sleeps moves time on for the attempts
// of the others still in flight (over a socket they are), so no attempt may time out meanwhile.
const patient = 3_600_000;

describe("the client-wide retry budget", () => {
  it("bounds a 503 storm: 1,000 concurrent calls make 1,000 + capacity / retryCost requests", async () => {
    const { client, server } = harness({ timeoutMs: patient });
    server.on("GET /v1/me", unavailable);
    const results = await Promise.allSettled(Array.from({ length: 1_000 }, () => client.me()));
    const budget = defaultRetryPolicy.budget;
    if (!budget) throw new Error("the default policy has a budget");
    const retries = Math.floor(budget.capacity / budget.retryCost);
    expect(retries).toBe(35);
    expect(server.apiRequests).toHaveLength(1_000 + retries);
    const errors = results.map((r) => (r.status === "rejected" ? r.reason : undefined));
    for (const error of errors) expect(error).toBeInstanceOf(ServiceUnavailableError);
    const spent = errors.filter((e) => /retry budget is spent/.test((e as Error).message));
    // Every call met the empty budget: 965 at their first failure, the 35 that retried at their
    // second. Over a socket answers arrive in any order: a call may retry twice before others fail
    // once, and then ends on its own maxRetries.
    if (overUndici) expect(spent.length).toBeGreaterThanOrEqual(1_000 - retries);
    else expect(spent).toHaveLength(1_000);
  });

  it("turned off, every call spends its own maxRetries", async () => {
    const { client, server } = harness({ retry: { budget: false }, timeoutMs: patient });
    server.on("GET /v1/me", unavailable);
    await Promise.allSettled(Array.from({ length: 100 }, () => client.me()));
    expect(server.apiRequests).toHaveLength(300);
  });

  it("once empty, a retryable failure is thrown at once, with its own class", async () => {
    const { client, server, clock } = harness({
      maxRetries: 1,
      retry: { budget: { capacity: 14 } },
    });
    server.on("GET /v1/me", unavailable);
    await rejection(client.me());
    expect(server.apiRequests).toHaveLength(2);
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as Error).message).toMatch(/retry budget is spent/);
    expect(server.apiRequests).toHaveLength(3);
    expect(clock.sleeps).toHaveLength(1);
  });

  it("a call that succeeds after a retry gives back what that retry spent", async () => {
    const { client, server } = harness({ retry: { budget: { capacity: 15, successRefund: 0 } } });
    for (let i = 0; i < 3; i++) {
      server.on("GET /v1/me", unavailable, ok);
      await expect(client.me()).resolves.toEqual(me);
    }
    expect(server.apiRequests).toHaveLength(6);
  });

  it("calls that succeed at once refill it by successRefund each", async () => {
    const { client, server } = harness({
      maxRetries: 1,
      retry: { budget: { capacity: 14, successRefund: 2 } },
    });
    server.on("GET /v1/me", unavailable);
    await rejection(client.me()); // spends all 14
    server.on("GET /v1/me", ok);
    for (let i = 0; i < 6; i++) await client.me(); // +12: still short of a retry
    server.on("GET /v1/me", unavailable, ok);
    await rejection(client.me());
    expect(server.apiRequests).toHaveLength(2 + 6 + 1);
    server.on("GET /v1/me", ok);
    await client.me(); // +2, full again
    server.on("GET /v1/me", unavailable, ok);
    await expect(client.me()).resolves.toEqual(me);
    expect(server.apiRequests).toHaveLength(2 + 6 + 1 + 1 + 2);
  });

  it("a 429 retry costs throttlingRetryCost", async () => {
    const limited = () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "1" });
    const { client, server } = harness({
      maxRetries: 5,
      retry: { budget: { capacity: 10, retryCost: 100, throttlingRetryCost: 5 } },
    });
    server.on("GET /v1/me", limited);
    expect(await rejection(client.me())).toBeInstanceOf(RateLimitError);
    expect(server.apiRequests).toHaveLength(3);
  });

  it("is shared by clients made with withOptions()", async () => {
    const { client, server } = harness({ maxRetries: 1, retry: { budget: { capacity: 14 } } });
    server.on("GET /v1/me", unavailable);
    const other = client.withOptions({ timeoutMs: 1_000 });
    await rejection(other.me());
    expect(server.apiRequests).toHaveLength(2);
    await rejection(client.me());
    expect(server.apiRequests).toHaveLength(3);
    // A client that turns it off retries on its own.
    await rejection(client.withOptions({ retry: { budget: false } }).me());
    expect(server.apiRequests).toHaveLength(5);
  });

  it("withOptions() cannot resize the shared budget", () => {
    const { client } = harness();
    expect(() => client.withOptions({ retry: { budget: { capacity: 5 } } })).toThrow(
      PartnerOrdersError,
    );
  });
});
