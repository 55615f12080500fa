// @ts-nocheck
import {
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  EdgeFirewallError,
  isProblem,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from "partner-orders";
import { FIXTURES } from "partner-orders/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type E2E, rejection, startE2E } from "./support";

/**
 * Errors end to end: problem documents from the sandbox over real HTTP become the typed error family
 * (API document, "Errors"), and injected faults are retried or thrown as the retry table says.
 */

let e2e: E2E;
beforeEach(async () => {
  e2e = await startE2E();
});
afterEach(() => e2e.close());

const orderPath = "/v1/orders/{orderNumber}";
const attempts = () => e2e.sandbox.counters.requests[`GET ${orderPath}`] ?? 0;

describe("problem documents", () => {
  it("an order outside the grant is NotFoundError order_not_found (same as missing)", async () => {
    const error = await rejection(e2e.client.orders.get(FIXTURES.orders.otherPartner));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(isProblem(error, "order_not_found")).toBe(true);
    const missing = await rejection(e2e.client.orders.get(999_999));
    expect(isProblem(missing, "order_not_found")).toBe(true);
    // 404 is never retried.
    expect(attempts()).toBe(2);
  });

  it("a client without orders:read gets PermissionDeniedError insufficient_scope on orders.list", async () => {
    const sitesOnly = e2e.newClient({ scopes: ["sites:read"] });
    expect((await sitesOnly.me()).scopes).toEqual(["partner-api/sites:read"]);
    const error = await rejection(sitesOnly.orders.list());
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error).not.toBeInstanceOf(EdgeFirewallError);
    expect(isProblem(error, "insufficient_scope")).toBe(true);
    expect(e2e.sandbox.counters.requests["GET /v1/orders"]).toBe(1);
  });

  it("a partner record without orders:read caps the token the same way", async () => {
    e2e.sandbox.admin.setCapabilities(FIXTURES.partnerId, ["partner-api/sites:read"]);
    const error = await rejection(e2e.client.orders.get(FIXTURES.orders.tracking));
    expect(isProblem(error, "insufficient_scope")).toBe(true);
  });

  it("bad credentials give an AuthenticationError that carries no secret", async () => {
    const secret = "wrong-secret-0d3f9a7c";
    const client = e2e.newClient({ clientSecret: secret });
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    const seen = [
      String(error),
      (error as Error).message,
      (error as Error).stack ?? "",
      JSON.stringify(error),
      JSON.stringify((error as APIError).problem ?? {}),
    ].join("\n");
    expect(seen).not.toContain(secret);
    expect(seen).not.toContain(
      Buffer.from(`${e2e.sandbox.credentials.clientId}:${secret}`).toString("base64"),
    );
    // One token request, not a storm; the API itself was never asked.
    expect(e2e.sandbox.counters.tokenRequests).toBe(1);
    expect(e2e.sandbox.counters.requests["GET /v1/me"]).toBeUndefined();
  });
});

describe("injected faults", () => {
  it("503 then success: retried after a backoff, the call succeeds", async () => {
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, status: 503 });
    const order = await e2e.client.orders.get(FIXTURES.orders.tracking);
    expect(order.orderNumber).toBe(FIXTURES.orders.tracking);
    expect(attempts()).toBe(2);
    expect(e2e.clock.sleeps).toHaveLength(1);
    expect(e2e.clock.sleeps[0]).toBeGreaterThanOrEqual(1_000);
  });

  it("429 with Retry-After: waited at least the hint on the client's clock, then retried", async () => {
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, status: 429, retryAfter: 7 });
    const order = await e2e.client.orders.get(FIXTURES.orders.tracking);
    expect(order.orderNumber).toBe(FIXTURES.orders.tracking);
    expect(attempts()).toBe(2);
    expect(e2e.clock.sleeps).toHaveLength(1);
    expect(e2e.clock.sleeps[0]).toBeGreaterThanOrEqual(7_000);
  });

  it("429 with a hint over 60 s is thrown at once as RateLimitError", async () => {
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, status: 429, retryAfter: 120 });
    const error = await rejection(e2e.client.orders.get(FIXTURES.orders.tracking));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterSeconds).toBe(120);
    expect(isProblem(error, "rate_limit_exceeded")).toBe(true);
    expect(attempts()).toBe(1);
    expect(e2e.clock.sleeps).toEqual([]);
  });

  it("the edge firewall's bodiless 403 is EdgeFirewallError, not a scope error, not retried", async () => {
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, firewall: true });
    const error = await rejection(e2e.client.orders.get(FIXTURES.orders.tracking));
    expect(error).toBeInstanceOf(EdgeFirewallError);
    expect(error).not.toBeInstanceOf(PermissionDeniedError);
    expect(error).toMatchObject({ status: 403, code: undefined, requestId: undefined });
    expect(attempts()).toBe(1);
  });

  it("the edge firewall on /v1/ping too", async () => {
    e2e.sandbox.faults.inject({ method: "GET", path: "/v1/ping", firewall: true });
    expect(await rejection(e2e.client.ping())).toBeInstanceOf(EdgeFirewallError);
  });

  it("an unknown problem code is kept, as an error of its status", async () => {
    e2e.sandbox.faults.inject({
      method: "GET",
      path: orderPath,
      status: 400,
      code: "brand_new_rule",
      detail: "A rule added within v1.",
    });
    const error = await rejection(e2e.client.orders.get(FIXTURES.orders.tracking));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error).toMatchObject({ status: 400, code: "brand_new_rule" });
    expect(isProblem(error, "brand_new_rule")).toBe(true);
    expect((error as APIError).problem?.detail).toBe("A rule added within v1.");

    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, status: 418, code: "teapot" });
    const other = await rejection(e2e.client.orders.get(FIXTURES.orders.tracking));
    expect(other).toBeInstanceOf(APIError);
    expect(other).toMatchObject({ status: 418, code: "teapot" });
  });

  it("a dropped connection is retried and the call succeeds", async () => {
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, drop: "before" });
    const order = await e2e.client.orders.get(FIXTURES.orders.tracking);
    expect(order.orderNumber).toBe(FIXTURES.orders.tracking);
    expect(attempts()).toBe(2);
    expect(e2e.clock.sleeps).toHaveLength(1);
  });

  it("a 500 is retried once, a second one is thrown", async () => {
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, status: 500, times: 2 });
    const error = await rejection(e2e.client.orders.get(FIXTURES.orders.tracking));
    expect(isProblem(error, "internal_error")).toBe(true);
    expect(attempts()).toBe(2);
  });

  it("429 with Retry-After as an HTTP date: waited until that date on the client's clock", async () => {
    const date = new Date(e2e.clock.now() + 9_000).toUTCString();
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, status: 429, retryAfter: date });
    await e2e.client.orders.get(FIXTURES.orders.tracking);
    expect(attempts()).toBe(2);
    // toUTCString drops the milliseconds: the date is 8 to 9 seconds ahead.
    expect(e2e.clock.sleeps[0]).toBeGreaterThanOrEqual(8_000);
  });

  it("an attempt slower than timeoutMs is APITimeoutError", async () => {
    await e2e.client.me(); // the token is cached: only the slow attempt is timed
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, delayMs: 5_000 });
    const started = performance.now();
    const error = await rejection(
      e2e.client.orders.get(FIXTURES.orders.tracking, { timeoutMs: 200, maxRetries: 0 }),
    );
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(attempts()).toBe(1);
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it("an AbortSignal fired during the HTTP exchange is APIUserAbortError, not retried", async () => {
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, delayMs: 5_000 });
    const controller = new AbortController();
    // Abort once the service holds the request, so the exchange is really under way.
    void (async () => {
      while (attempts() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
    })();
    const started = performance.now();
    const error = await rejection(
      e2e.client.orders.get(FIXTURES.orders.tracking, { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - started).toBeLessThan(4_000);
    expect(attempts()).toBe(1);
  });
});

describe("more problem documents", () => {
  it("quotes: 422 quote_invalid and 404 quote_product_not_found", async () => {
    const over = await rejection(e2e.client.products.quote(FIXTURES.products.pod, 501));
    expect(over).toBeInstanceOf(UnprocessableEntityError);
    expect(isProblem(over, "quote_invalid")).toBe(true);
    const unpriced = await rejection(e2e.client.products.quote(FIXTURES.products.unpriceable, 1));
    expect(unpriced).toBeInstanceOf(NotFoundError);
    expect(isProblem(unpriced, "quote_product_not_found")).toBe(true);
  });

  it("a product or the items of an order outside the grant are 404", async () => {
    const product = await rejection(e2e.client.products.get(FIXTURES.products.otherPartner));
    expect(isProblem(product, "product_not_found")).toBe(true);
    const items = await rejection(e2e.client.orders.items(FIXTURES.orders.otherPartner));
    expect(isProblem(items, "order_not_found")).toBe(true);
    const shipments = await rejection(e2e.client.orders.shipments(FIXTURES.orders.otherPartner));
    expect(isProblem(shipments, "order_not_found")).toBe(true);
  });

  it("an unknown submission is NotFoundError submission_not_found", async () => {
    const error = await rejection(
      e2e.client.submissions.get("3f2b8c1e-6d4a-4b5e-9f1a-2c3d4e5f6a7b"),
    );
    expect(isProblem(error, "submission_not_found")).toBe(true);
  });
});

describe("cursors and logs", () => {
  it("a cursor from another endpoint is BadRequestError invalid_cursor", async () => {
    const items = await e2e.client.orders.items(FIXTURES.orders.manyItems, { limit: 10 });
    const error = await rejection(e2e.client.orders.list({ cursor: items.nextCursor as string }));
    expect(error).toBeInstanceOf(BadRequestError);
    expect(isProblem(error, "invalid_cursor")).toBe(true);
  });

  it("debug logs of a whole flow with retries and a 401 carry no secret and no token", async () => {
    const lines: string[] = [];
    const record = (message: string, ...rest: unknown[]) => {
      lines.push(`${message} ${JSON.stringify(rest)}`);
    };
    const logger = { debug: record, info: record, warn: record, error: record };
    const client = e2e.newClient({ logger, logLevel: "debug" });
    e2e.sandbox.faults.inject({ method: "GET", path: orderPath, status: 503 });
    await client.orders.get(FIXTURES.orders.tracking);
    e2e.sandbox.clock.advance(3_601_000); // the token expires on the service
    for await (const _ of client.orders.list({ siteId: FIXTURES.sites.main, limit: 200 })) {
      // consume
    }
    await rejection(client.orders.get(FIXTURES.orders.otherPartner));
    expect(lines.length).toBeGreaterThan(3);
    const text = lines.join("\n");
    expect(text).not.toContain(e2e.sandbox.credentials.clientSecret);
    expect(text).not.toMatch(/sbx_[A-Za-z0-9_-]{8,}/); // the sandbox's access tokens
    expect(text).not.toMatch(/basic [A-Za-z0-9+/=]{8,}/i);
    expect(text).not.toMatch(/bearer /i);
  });

  it("a baseUrl with a trailing slash reaches the same endpoints", async () => {
    const client = e2e.newClient({ baseUrl: `${e2e.url}/` });
    expect((await client.me()).partnerId).toBe(FIXTURES.partnerId);
    expect((await client.orders.get(FIXTURES.orders.tracking)).orderNumber).toBe(
      FIXTURES.orders.tracking,
    );
  });
});
