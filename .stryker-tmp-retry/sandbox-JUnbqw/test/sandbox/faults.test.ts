// @ts-nocheck
import { createSandbox } from "partner-orders/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { api, tokenFor, validOrder } from "./helpers";

const sandbox = createSandbox({ clock: "manual", syncWaitMs: 0 });
let token: string;
let client: ReturnType<typeof api>;
beforeAll(async () => {
  token = await tokenFor(sandbox);
  client = api(sandbox, token);
});
afterEach(() => sandbox.faults.clear());
afterAll(() => sandbox.close());

const auth = () => ({ authorization: `Bearer ${token}` });

describe("faults.inject", () => {
  it("answers the edge firewall's bodiless 403 without a problem document or requestId", async () => {
    sandbox.faults.inject({ path: "/v1/ping", firewall: true });
    const res = await sandbox.fetch("/v1/ping");
    expect(res.status).toBe(403);
    expect(await res.text()).toBe("");
    expect(res.headers.get("content-type")).toBeNull();
    expect(res.headers.get("x-request-id")).toBeNull();
    expect((await sandbox.fetch("/v1/ping")).status).toBe(200);
  });

  it("answers the next N matching requests with a status, any code and Retry-After", async () => {
    sandbox.faults.inject({
      method: "get",
      path: "/v1/orders/{orderNumber}",
      times: 2,
      status: 503,
      code: "brand_new_code",
      retryAfter: 7,
    });
    for (let i = 0; i < 2; i++) {
      const { status, json, headers } = await client.get("/v1/orders/100001");
      expect([status, json.code, headers.get("retry-after")]).toEqual([503, "brand_new_code", "7"]);
      expect(headers.get("content-type")).toBe("application/problem+json");
    }
    expect((await client.get("/v1/orders/100001")).status).toBe(200);
    expect(sandbox.faults.pending).toHaveLength(0);
  });

  it("matches by RegExp and leaves other requests alone", async () => {
    sandbox.faults.inject({ path: /\/shipments$/, status: 429 });
    expect((await client.get("/v1/orders/100001")).status).toBe(200);
    const limited = await client.get("/v1/orders/100001/shipments");
    expect([limited.status, limited.json.code]).toEqual([429, "rate_limit_exceeded"]);
  });

  it("answers a bare status as the service would: Retry-After on a 429, the fixed sentences on 401 and 500", async () => {
    sandbox.faults.inject({ path: "/v1/me", status: 429 });
    const limited = await client.get("/v1/me");
    expect([limited.status, limited.headers.get("retry-after")]).toEqual([429, "1"]);
    // Authentication failure: one generic, fixed detail whatever the cause.
    const unauthenticated = await sandbox.fetch("/v1/me");
    sandbox.faults.inject({ path: "/v1/me", status: 401 });
    const injected = await client.get("/v1/me");
    expect(injected.json.detail).toBe(
      ((await unauthenticated.json()) as { detail: string }).detail,
    );
    expect(injected.json.code).toBe("invalid_token");
    sandbox.faults.inject({ path: "/v1/me", status: 500 });
    const internal = await client.get("/v1/me");
    expect([internal.json.code, internal.json.detail]).toEqual([
      "internal_error",
      "An unexpected error occurred.",
    ]);
  });

  it("drops the connection before the work: fetch rejects and nothing was created", async () => {
    const before = sandbox.counters.submissionsCreated;
    sandbox.faults.inject({ method: "POST", path: "/v1/orders", drop: "before" });
    const order = validOrder();
    const post = () =>
      sandbox.fetch("/v1/orders", { method: "POST", headers: auth(), body: JSON.stringify(order) });
    await expect(post()).rejects.toThrow(TypeError);
    expect(sandbox.counters.submissionsCreated).toBe(before);
    expect((await post()).status).toBe(201);
  });

  it("drops the connection after the work: the retry finds the submission already there", async () => {
    const before = sandbox.counters.submissionsCreated;
    sandbox.faults.inject({ method: "POST", path: "/v1/orders", drop: "after" });
    const body = JSON.stringify(validOrder());
    const post = () => sandbox.fetch("/v1/orders", { method: "POST", headers: auth(), body });
    await expect(post()).rejects.toThrow(TypeError);
    expect(sandbox.counters.submissionsCreated).toBe(before + 1);
    expect((await post()).status).toBe(200);
    // The request log kept both bodies, identical.
    const posts = sandbox.requests
      .filter((r) => r.method === "POST" && r.path === "/v1/orders")
      .slice(-2);
    expect(posts.map((p) => p.body)).toEqual([body, body]);
  });

  it("answers a status after the work: a 503 follows a committed POST, and the identical retry finds it", async () => {
    const before = sandbox.counters.submissionsCreated;
    sandbox.faults.inject({ method: "POST", path: "/v1/orders", status: 503, after: true });
    const body = JSON.stringify(validOrder());
    const post = () => sandbox.fetch("/v1/orders", { method: "POST", headers: auth(), body });
    const failed = await post();
    expect(failed.status).toBe(503);
    expect(failed.headers.get("content-type")).toBe("application/problem+json");
    expect(((await failed.json()) as { code: string }).code).toBe("service_unavailable");
    expect(sandbox.counters.submissionsCreated).toBe(before + 1);
    // POST /v1/orders 6: the identical body under the same partnerOrderId is 200 with the original.
    const retried = await post();
    expect(retried.status).toBe(200);
    const newest = (await client.get("/v1/orders/submissions?limit=1")).json.submissions[0];
    expect(((await retried.json()) as { submissionId: string }).submissionId).toBe(
      newest.submissionId,
    );
    expect(sandbox.counters.submissionsCreated).toBe(before + 1);
  });

  it("delays in real time, so a client timeout fires", async () => {
    sandbox.faults.inject({ path: "/v1/me", delayMs: 200 });
    const started = Date.now();
    const attempt = sandbox.fetch("/v1/me", { headers: auth(), signal: AbortSignal.timeout(30) });
    await expect(attempt).rejects.toMatchObject({ name: "TimeoutError" });
    expect(Date.now() - started).toBeLessThan(150);
  });
});

describe("listen(): a real HTTP server", () => {
  it("serves the same sandbox over loopback, and drops a connection by destroying the socket", async () => {
    const { url, close } = await sandbox.listen();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const me = await fetch(`${url}/v1/me`, { headers: auth() });
    expect((await me.json()).partnerId).toBe("ptn_sandbox");
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      ...{ client_id: "sandbox-client" },
      client_secret: "sandbox-secret",
    });
    expect((await fetch(`${url}/oauth2/token`, { method: "POST", body: form })).status).toBe(200);
    sandbox.faults.inject({ path: "/v1/sites", drop: "before" });
    await expect(fetch(`${url}/v1/sites`, { headers: auth() })).rejects.toThrow(TypeError);
    sandbox.faults.inject({ path: "/v1/ping", firewall: true });
    const blocked = await fetch(`${url}/v1/ping`);
    expect([blocked.status, await blocked.text()]).toEqual([403, ""]);
    await close();
    await expect(fetch(`${url}/v1/ping`)).rejects.toThrow();
  });
});

describe("mswHandlers()", () => {
  it("serves the sandbox through msw at a base URL, drops included", async () => {
    const { setupServer } = await import("msw/node");
    const server = setupServer(...(await sandbox.mswHandlers("https://api.partner.test")));
    server.listen({ onUnhandledRequest: "error" });
    try {
      const res = await fetch("https://api.partner.test/v1/orders/100001", { headers: auth() });
      expect((await res.json()).orderNumber).toBe(100001);
      sandbox.faults.inject({ path: "/v1/ping", drop: "before" });
      await expect(fetch("https://api.partner.test/v1/ping")).rejects.toThrow(TypeError);
    } finally {
      server.close();
    }
  });
});
