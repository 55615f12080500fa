import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
  UnprocessableEntityError,
} from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { connectionRefused, hang, json, problem, stall } from "../../support/fake-server";
import { completedSubmission, me, orderRequest } from "../../support/fixtures";

describe("answers that are never retried", () => {
  it.each([
    [400, "invalid_request", BadRequestError],
    [403, "insufficient_scope", PermissionDeniedError],
    [404, "order_not_found", NotFoundError],
    [409, "partner_order_id_reused", ConflictError],
    [422, "quote_invalid", UnprocessableEntityError],
  ])("%i %s: one request, thrown at once", async (status, code, type) => {
    const { client, server, clock } = harness({ maxRetries: 5 });
    server.on("GET /v1/me", () => problem(status, code));
    expect(await rejection(client.me())).toBeInstanceOf(type);
    expect(server.apiRequests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("an edge-firewall 403 without a body: one request", async () => {
    const { client, server } = harness({ maxRetries: 5 });
    server.on("GET /v1/me", () => new Response(null, { status: 403 }));
    await rejection(client.me());
    expect(server.apiRequests).toHaveLength(1);
  });
});

describe("429", () => {
  it("waits at least Retry-After seconds, plus jitter, then retries", async () => {
    const { client, server, clock } = harness();
    server.on(
      "GET /v1/me",
      () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "3" }),
      () => json(me),
    );
    await expect(client.me()).resolves.toEqual(me);
    expect(server.apiRequests).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(3000);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(3000 + 1000);
  });

  it("reads Retry-After as an HTTP date against the client's clock", async () => {
    const { client, server, clock } = harness();
    server.on(
      "GET /v1/me",
      () =>
        problem(
          429,
          "rate_limit_exceeded",
          {},
          {
            "retry-after": new Date(clock.now() + 10_000).toUTCString(),
          },
        ),
      () => json(me),
    );
    await client.me();
    expect(server.apiRequests).toHaveLength(2);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(10_000);
    expect(clock.sleeps[0]).toBeLessThanOrEqual(11_000);
  });

  it("throws RateLimitError at once when the hint is over 60 s", async () => {
    const { client, server, clock } = harness({ maxRetries: 5 });
    server.on("GET /v1/me", () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "61" }));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(61);
    expect(server.apiRequests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("throws RateLimitError when the retries are used up", async () => {
    const { client, server } = harness({ maxRetries: 1 });
    server.on("GET /v1/me", () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "1" }));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(1);
    expect(server.apiRequests).toHaveLength(2);
  });
});

describe("500", () => {
  it("is retried at most once, after at least 1 s", async () => {
    const { client, server, clock } = harness({ maxRetries: 5 });
    server.on("GET /v1/me", () => problem(500, "internal_error"));
    expect(await rejection(client.me())).toBeInstanceOf(InternalServerError);
    expect(server.apiRequests).toHaveLength(2);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(1000);
  });
});

/** Asserts exponential backoff from about 1 s, doubling, each step capped at 20 s (+ jitter). */
function expectBackoff(sleeps: number[], count: number): void {
  expect(sleeps).toHaveLength(count);
  sleeps.forEach((ms, i) => {
    const step = Math.min(20_000, 1000 * 2 ** i);
    expect(ms).toBeGreaterThanOrEqual(step);
    expect(ms).toBeLessThanOrEqual(step * 1.25);
  });
}

describe("503, connection errors and timeouts: exponential backoff", () => {
  it("503 backs off from 1 s, doubling, capped at 20 s", async () => {
    const { client, server, clock } = harness({ maxRetries: 7 });
    server.on("GET /v1/me", () => problem(503, "service_unavailable"));
    expect(await rejection(client.me())).toBeInstanceOf(ServiceUnavailableError);
    expect(server.apiRequests).toHaveLength(8);
    expectBackoff(clock.sleeps, 7);
  });

  it("a connection error (fetch rejects) is retried, then APIConnectionError", async () => {
    const { client, server, clock } = harness();
    server.on("GET /v1/me", connectionRefused);
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APITimeoutError);
    expect(server.apiRequests).toHaveLength(3);
    expectBackoff(clock.sleeps, 2);
  });

  it("a connection error then success resolves", async () => {
    const { client, server } = harness();
    server.on("GET /v1/me", connectionRefused, () => json(me));
    await expect(client.me()).resolves.toEqual(me);
    expect(server.apiRequests).toHaveLength(2);
  });

  it("an attempt longer than timeoutMs is aborted and retried, then APITimeoutError", async () => {
    const { client, server, clock } = harness({ timeoutMs: 15 });
    server.on("GET /v1/me", stall(clock));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(server.apiRequests).toHaveLength(3);
    await expect.poll(() => server.apiRequests.every((r) => r.signal.aborted)).toBe(true);
    expectBackoff(clock.sleeps, 2);
  });

  it("a per-call timeoutMs bounds each attempt of that call", async () => {
    const { client, server, clock } = harness({ maxRetries: 0 });
    server.on("GET /v1/me", stall(clock));
    expect(await rejection(client.me({ timeoutMs: 10 }))).toBeInstanceOf(APITimeoutError);
    expect(server.apiRequests).toHaveLength(1);
  });
});

describe("maxRetries", () => {
  it("defaults to 2: three requests in all", async () => {
    const { client, server } = harness();
    server.on("GET /v1/me", () => problem(503, "service_unavailable"));
    await rejection(client.me());
    expect(server.apiRequests).toHaveLength(3);
  });

  it("is a client option", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("GET /v1/me", () => problem(503, "service_unavailable"));
    await rejection(client.me());
    expect(server.apiRequests).toHaveLength(1);
  });

  it("is a per-call option that wins over the client's", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("GET /v1/me", () => problem(503, "service_unavailable"));
    await rejection(client.me({ maxRetries: 3 }));
    expect(server.apiRequests).toHaveLength(4);
  });

  it("bounds all retryable answers of one call together", async () => {
    const { client, server } = harness({ maxRetries: 2 });
    server.on(
      "GET /v1/me",
      () => problem(401, "invalid_token"),
      () => problem(503, "service_unavailable"),
      connectionRefused,
      () => json(me),
    );
    expect(await rejection(client.me())).toBeInstanceOf(APIConnectionError);
    expect(server.apiRequests).toHaveLength(3);
  });
});

describe("what a retry sends", () => {
  it("a retried submit sends byte-identical bodies", async () => {
    const { client, server } = harness({ maxRetries: 3 });
    server.on(
      "POST /v1/orders",
      () => problem(503, "service_unavailable"),
      connectionRefused,
      () => json(completedSubmission(), 201),
    );
    const { created } = await client.orders.submit(orderRequest());
    expect(created).toBe(true);
    const bodies = server.to("POST /v1/orders").map((r) => r.body);
    expect(bodies).toHaveLength(3);
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0] ?? "")).toEqual(orderRequest());
  });

  it("a retried quote sends the identical body", async () => {
    const { client, server } = harness();
    server.on(
      "POST /v1/products/SLO_1/quote",
      () => problem(503, "service_unavailable"),
      () =>
        json({
          productId: "SLO_1",
          quantity: 3,
          totalPrice: 9.5,
          createdOn: "2030-01-01T00:00:00Z",
        }),
    );
    await client.products.quote("SLO_1", 3);
    expect(server.to("POST /v1/products/SLO_1/quote").map((r) => r.body)).toEqual([
      '{"quantity":3}',
      '{"quantity":3}',
    ]);
  });
});

describe("abort", () => {
  it("an aborted call throws APIUserAbortError and is not retried", async () => {
    const { client, server } = harness({ maxRetries: 5 });
    const controller = new AbortController();
    server.on("GET /v1/me", (request) => {
      setTimeout(() => controller.abort(), 1);
      return hang(request);
    });
    const error = await rejection(client.me({ signal: controller.signal }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(server.apiRequests).toHaveLength(1);
  });

  it("a signal aborted before the call sends nothing", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    controller.abort();
    expect(await rejection(client.me({ signal: controller.signal }))).toBeInstanceOf(
      APIUserAbortError,
    );
    expect(server.apiRequests).toHaveLength(0);
  });

  it("an abort during a backoff sleep stops the retries", async () => {
    const { client, server, clock } = harness({ maxRetries: 5 });
    const controller = new AbortController();
    server.on("GET /v1/me", () => {
      controller.abort();
      return problem(503, "service_unavailable");
    });
    expect(await rejection(client.me({ signal: controller.signal }))).toBeInstanceOf(
      APIUserAbortError,
    );
    expect(server.apiRequests).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });
});

describe("redirects", () => {
  it("a 3xx to another origin is not followed and becomes an APIError", async () => {
    const { client, server } = harness({ maxRetries: 3 });
    server.on(
      "GET /v1/me",
      () => new Response(null, { status: 302, headers: { location: "https://evil.test/steal" } }),
    );
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(302);
    expect(server.at(0, "GET /v1/me").redirect).toBe("manual");
    expect(server.requests.some((r) => r.url.origin !== "https://api.test")).toBe(false);
    expect(server.apiRequests).toHaveLength(1);
  });
});
