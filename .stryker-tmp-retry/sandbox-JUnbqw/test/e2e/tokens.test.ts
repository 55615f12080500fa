// @ts-nocheck
import { FIXTURES } from "partner-orders/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type E2E, orderFor, rawWalk, startE2E } from "./support";

/**
 * The token cache end to end (API document, Authentication 1: cache the token, do not mint per
 * request; Errors rule 3: on 401 mint a new token and retry once).
 */

let e2e: E2E | undefined;
afterEach(async () => {
  await e2e?.close();
  e2e = undefined;
});

describe("token cache", () => {
  it("100 concurrent cold calls share exactly one token request", async () => {
    e2e = await startE2E();
    const results = await Promise.all(Array.from({ length: 100 }, () => e2e?.client.me()));
    expect(results.every((me) => me?.partnerId === FIXTURES.partnerId)).toBe(true);
    expect(e2e.sandbox.counters.tokenRequests).toBe(1);
    expect(e2e.sandbox.counters.requests["GET /v1/me"]).toBe(100);
    // And the cached token keeps serving later calls.
    await e2e.client.sites.list();
    expect(e2e.sandbox.counters.tokenRequests).toBe(1);
  });

  it("a token expired on the service mid-iteration: one 401, one mint, no order skipped or repeated", async () => {
    e2e = await startE2E({ tokenTtlSeconds: 600 });
    const expected = await rawWalk<{ orderNumber: number }>(e2e, "/v1/orders?limit=200", "orders");
    e2e.sandbox.resetCounters();

    const seen: number[] = [];
    let expiredAt = -1;
    for await (const order of e2e.client.orders.list({ limit: 40 })) {
      seen.push(order.orderNumber);
      if (seen.length === 100) {
        // Only the service's clock moves: the client still thinks its token is fresh.
        expiredAt = e2e.sandbox.requests.length;
        e2e.sandbox.clock.advance(601_000);
      }
    }
    expect(seen).toEqual(expected.map((o) => o.orderNumber));
    expect(new Set(seen).size).toBe(seen.length);

    // The page after the expiry was answered 401 once, then fetched again with a fresh token.
    const after = e2e.sandbox.requests.slice(expiredAt);
    const statuses = after.map((r) => `${r.method} ${r.template} ${r.status}`);
    expect(statuses.slice(0, 3)).toEqual([
      "GET /v1/orders 401",
      "POST /oauth2/token 200",
      "GET /v1/orders 200",
    ]);
    expect(after.filter((r) => r.status === 401)).toHaveLength(1);
    // The first mint (cold start) and the one after the 401.
    expect(e2e.sandbox.counters.tokensIssued).toBe(2);
  });

  it("a revoked client's token fails on next use and is not retried forever", async () => {
    e2e = await startE2E();
    await e2e.client.me();
    e2e.sandbox.admin.revokeClient(e2e.sandbox.credentials.clientId);
    await expect(e2e.client.me()).rejects.toMatchObject({ status: 401 });
    // One 401, one refused mint: nothing more.
    expect(e2e.sandbox.counters.requests["GET /v1/me"]).toBe(2);
    expect(e2e.sandbox.counters.tokenRequests).toBe(2);
  });
});

describe("token expiry under load", () => {
  it("20 concurrent calls all answered 401 after a server-side expiry share one new token", async () => {
    e2e = await startE2E({ tokenTtlSeconds: 600 });
    await e2e.client.me();
    e2e.sandbox.clock.advance(601_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => e2e?.client.sites.list()));
    expect(results.every((sites) => sites?.length === 3)).toBe(true);
    expect(e2e.sandbox.counters.tokensIssued).toBe(2);
  });
});

describe("the token endpoint over real HTTP", () => {
  it("client_secret_post and client_secret_basic both authenticate", async () => {
    e2e = await startE2E();
    const post = e2e.newClient({ tokenEndpointAuth: "client_secret_post" });
    expect((await post.me()).partnerId).toBe(FIXTURES.partnerId);
    const basic = e2e.newClient({ tokenEndpointAuth: "client_secret_basic" });
    expect((await basic.me()).partnerId).toBe(FIXTURES.partnerId);
    expect(e2e.sandbox.counters.tokensIssued).toBe(2);
  });

  it("credentials with reserved characters survive Basic and form encoding", async () => {
    e2e = await startE2E();
    const clientId = "rotated:client+id %2F é";
    const clientSecret = "s3cr:et+/=%20&x é";
    e2e.sandbox.admin.addClient(FIXTURES.partnerId, clientId, clientSecret);
    for (const tokenEndpointAuth of ["client_secret_basic", "client_secret_post"] as const) {
      const client = e2e.newClient({ clientId, clientSecret, tokenEndpointAuth });
      expect((await client.me()).partnerId, tokenEndpointAuth).toBe(FIXTURES.partnerId);
    }
  });

  it("requested scopes are prefixed and intersected with the partner record", async () => {
    e2e = await startE2E();
    const client = e2e.newClient({ scopes: ["orders:read", "admin:everything"] });
    expect((await client.me()).scopes).toEqual(["partner-api/orders:read"]);
  });

  it("a 429 with Retry-After, a 503 and a dropped connection at the token endpoint are retried", async () => {
    e2e = await startE2E();
    const token = { method: "POST", path: "/oauth2/token" } as const;
    e2e.sandbox.faults.inject({ ...token, status: 429, retryAfter: 3 });
    expect((await e2e.client.me()).partnerId).toBe(FIXTURES.partnerId);
    expect(e2e.clock.sleeps[0]).toBeGreaterThanOrEqual(3_000);

    for (const fault of [{ status: 503 }, { drop: "before" as const }]) {
      const client = e2e.newClient();
      e2e.sandbox.faults.inject({ ...token, ...fault });
      expect((await client.me()).partnerId, JSON.stringify(fault)).toBe(FIXTURES.partnerId);
    }
    // Three faults, three successful retries.
    expect(e2e.sandbox.counters.requests["POST /oauth2/token"]).toBe(6);
    expect(e2e.sandbox.counters.faultsTriggered).toBe(3);
    expect(e2e.sandbox.counters.tokensIssued).toBe(3);
  });

  it("rotation: a second client of the same partner works; revoking the old one leaves it working", async () => {
    e2e = await startE2E();
    e2e.sandbox.admin.addClient(FIXTURES.partnerId, "sandbox-client-2", "second-secret");
    const next = e2e.newClient({ clientId: "sandbox-client-2", clientSecret: "second-secret" });
    expect((await next.me()).partnerId).toBe((await e2e.client.me()).partnerId);
    e2e.sandbox.admin.revokeClient(e2e.sandbox.credentials.clientId);
    await expect(e2e.client.me()).rejects.toMatchObject({ status: 401 });
    expect((await next.me()).partnerId).toBe(FIXTURES.partnerId);
  });
});

describe("short-lived tokens during a long wait", () => {
  it("renews before expiry on the client's clock: polls never meet a 401", async () => {
    e2e = await startE2E({
      tokenTtlSeconds: 5,
      syncWaitMs: 0,
      submissionTimings: { processingAfterMs: 1_000, completeAfterMs: 30_000 },
    });
    const result = await e2e.client.submitOrderAndWait(orderFor("ttl-1"));
    expect(result.status).toBe("completed");
    expect(e2e.sandbox.requests.filter((r) => r.status === 401)).toEqual([]);
    // 30 s of polling with 5 s tokens: renewed several times, never per request.
    const polls = e2e.sandbox.counters.requests["GET /v1/orders/submissions/{submissionId}"] ?? 0;
    expect(e2e.sandbox.counters.tokensIssued).toBeGreaterThanOrEqual(6);
    expect(e2e.sandbox.counters.tokensIssued).toBeLessThan(polls + 1);
  });
});
