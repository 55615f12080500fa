import { describe, expect, it } from "vitest";
import { PartnerOrders } from "../../../src/client";
import {
  APIConnectionError,
  type APIError,
  APITimeoutError,
  AuthenticationError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
} from "../../../src/core/errors";
import type { Logger } from "../../../src/core/logger";
import type { SharedToken, TokenCache } from "../../../src/core/token-cache";
import { harness, rejection } from "../../support/client";
import { FakeClock } from "../../support/fake-clock";
import {
  baseUrl,
  connectionRefused,
  FakeServer,
  json,
  problem,
  raw,
  stall,
} from "../../support/fake-server";
import { me } from "../../support/fixtures";

function bearer(request: { headers: Headers }): string | null {
  return request.headers.get("authorization");
}

describe("token request", () => {
  it("sends HTTP Basic by default, each part form-urlencoded (RFC 6749 2.3.1)", async () => {
    const { client, server } = harness({ clientId: "my id", clientSecret: "s:e/c+ret é" });
    server.on("GET /v1/me", () => json(me));
    await client.me();
    const token = server.at(0, "POST /oauth2/token");
    const header = bearer(token) ?? "";
    expect(header.startsWith("Basic ")).toBe(true);
    const decoded = new TextDecoder().decode(
      Uint8Array.from(atob(header.slice(6)), (c) => c.charCodeAt(0)),
    );
    expect(decoded).toBe("my+id:s%3Ae%2Fc%2Bret+%C3%A9");
    expect(token.headers.get("content-type")).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(token.body);
    expect(form.get("grant_type")).toBe("client_credentials");
    expect(form.has("client_secret")).toBe(false);
  });

  it("sends the credentials in the form with client_secret_post", async () => {
    const { client, server } = harness({ tokenEndpointAuth: "client_secret_post" });
    server.on("GET /v1/me", () => json(me));
    await client.me();
    const token = server.at(0, "POST /oauth2/token");
    expect(bearer(token)).toBeNull();
    const form = new URLSearchParams(token.body);
    expect(form.get("client_id")).toBe("client-id");
    expect(form.get("client_secret")).toBe("client-secret");
  });

  it("prefixes each scope with partner-api/", async () => {
    const { client, server } = harness({ scopes: ["orders:read", "sites:read"] });
    server.on("GET /v1/me", () => json(me));
    await client.me();
    const form = new URLSearchParams(server.at(0, "POST /oauth2/token").body);
    expect(form.get("scope")).toBe("partner-api/orders:read partner-api/sites:read");
  });

  it("sends no token to GET /v1/ping", async () => {
    const { client, server } = harness();
    server.on("GET /v1/ping", () => json({ ok: true }));
    await client.ping();
    expect(server.tokenRequests).toHaveLength(0);
    expect(bearer(server.at(0, "GET /v1/ping"))).toBeNull();
  });
});

describe("token cache", () => {
  it("reuses one token for many calls", async () => {
    const { client, server } = harness();
    server.on("GET /v1/me", () => json(me));
    await client.me();
    await client.me();
    await client.me();
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.to("GET /v1/me").map(bearer)).toEqual(Array(3).fill("Bearer token-1"));
  });

  it.each([
    // expires_in, renewal margin: max(60 s, 10 %)
    [3600, 360],
    [300, 60],
    [100, 60],
  ])(
    "renews a %i s token %i s before expiry, on the monotonic clock",
    async (expiresIn, margin) => {
      const { client, server, clock } = harness();
      let minted = 0;
      server.on("POST /oauth2/token", () =>
        json({ access_token: `token-${++minted}`, expires_in: expiresIn }),
      );
      server.on("GET /v1/me", () => json(me));
      await client.me();
      clock.advance((expiresIn - margin) * 1000 - 1);
      await client.me();
      expect(server.tokenRequests).toHaveLength(1);
      clock.advance(2);
      await client.me();
      expect(server.tokenRequests).toHaveLength(2);
      expect(server.to("GET /v1/me").map(bearer)).toEqual([
        "Bearer token-1",
        "Bearer token-1",
        "Bearer token-2",
      ]);
    },
  );

  it("renews a token that lives no longer than the margin at half-life, not on every call", async () => {
    const { client, server, clock } = harness();
    server.on("POST /oauth2/token", () => json({ access_token: "short", expires_in: 40 }));
    server.on("GET /v1/me", () => json(me));
    await client.me();
    clock.advance(19_000);
    await client.me();
    expect(server.tokenRequests).toHaveLength(1);
    clock.advance(2_000);
    await client.me();
    expect(server.tokenRequests).toHaveLength(2);
  });

  it("keeps using the still-valid token when an early renewal fails", async () => {
    const { client, server, clock } = harness();
    server.on(
      "POST /oauth2/token",
      () => json({ access_token: "token-1", expires_in: 3600 }),
      () => problem(503, "service_unavailable"),
    );
    server.on("GET /v1/me", () => json(me));
    await client.me();
    clock.advance(3300 * 1000); // inside the renewal window, before expiry
    await client.me();
    expect(server.tokenRequests).toHaveLength(2);
    expect(server.to("GET /v1/me").map(bearer)).toEqual(["Bearer token-1", "Bearer token-1"]);
  });

  it("shares one token request among 100 concurrent cold calls", async () => {
    const { client, server } = harness();
    server.on("POST /oauth2/token", async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return json({ access_token: "shared", expires_in: 3600 });
    });
    server.on("GET /v1/me", () => json(me));
    await Promise.all(Array.from({ length: 100 }, () => client.me()));
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.to("GET /v1/me")).toHaveLength(100);
    expect(new Set(server.to("GET /v1/me").map(bearer))).toEqual(new Set(["Bearer shared"]));
  });
});

describe("a 401 from the API", () => {
  it("drops the token, mints one new token and retries once", async () => {
    const { client, server } = harness();
    server.on(
      "GET /v1/me",
      () => problem(401, "invalid_token"),
      () => json(me),
    );
    await expect(client.me()).resolves.toEqual(me);
    expect(server.tokenRequests).toHaveLength(2);
    expect(server.to("GET /v1/me").map(bearer)).toEqual(["Bearer token-1", "Bearer token-2"]);
  });

  it("throws AuthenticationError on a second 401", async () => {
    const { client, server } = harness({ maxRetries: 5 });
    server.on("GET /v1/me", () => problem(401, "invalid_token"));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).code).toBe("invalid_token");
    expect(server.to("GET /v1/me")).toHaveLength(2);
    expect(server.tokenRequests).toHaveLength(2);
  });

  it("with a fixed accessToken string, is thrown at once", async () => {
    const { client, server } = harness({
      accessToken: "fixed",
      clientId: undefined,
      clientSecret: undefined,
    });
    server.on("GET /v1/me", () => problem(401, "invalid_token"));
    expect(await rejection(client.me())).toBeInstanceOf(AuthenticationError);
    expect(server.requests).toHaveLength(1);
    expect(bearer(server.at(0))).toBe("Bearer fixed");
  });

  it("with an accessToken function, calls it again and retries", async () => {
    let calls = 0;
    const { client, server } = harness({
      accessToken: async () => `fn-${++calls}`,
      clientId: undefined,
      clientSecret: undefined,
    });
    server.on(
      "GET /v1/me",
      () => problem(401, "invalid_token"),
      () => json(me),
    );
    await client.me();
    expect(calls).toBe(2);
    expect(server.tokenRequests).toHaveLength(0);
    expect(server.requests.map(bearer)).toEqual(["Bearer fn-1", "Bearer fn-2"]);
  });
});

describe("token endpoint failures become typed errors without the secret", () => {
  const secret = "SECRET-PLANTED-123";
  const cases = [
    {
      name: "an RFC 6749 invalid_client 401",
      answer: () => json({ error: "invalid_client", error_description: "bad client" }, 401),
      type: AuthenticationError,
      code: "invalid_client",
    },
    {
      name: "a problem document 403",
      answer: () => problem(403, "insufficient_scope"),
      type: PermissionDeniedError,
      code: "insufficient_scope",
    },
    {
      name: "a 429 with Retry-After",
      answer: () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "7" }),
      type: RateLimitError,
      code: "rate_limit_exceeded",
    },
    {
      name: "a non-JSON 500",
      answer: () => raw("<html>oops</html>", 500, { "content-type": "text/html" }),
      type: InternalServerError,
      code: undefined,
    },
  ];

  it.each(cases)("$name", async ({ answer, type, code }) => {
    const { client, server } = harness({ clientSecret: secret, maxRetries: 0 });
    server.on("POST /oauth2/token", answer);
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(type);
    expect((error as AuthenticationError).code).toBe(code);
    expect((error as Error).message).toContain("/oauth2/token");
    for (const text of [
      String(error),
      (error as Error).stack ?? "",
      JSON.stringify({ ...(error as object) }),
    ]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(btoa(`client-id:${secret}`));
    }
    expect(server.to("GET /v1/me")).toHaveLength(0);
    if (error instanceof RateLimitError) expect(error.retryAfterSeconds).toBe(7);
  });
});

describe("a token endpoint that never answers", () => {
  it("is bounded by timeoutMs like any attempt, retried, then APITimeoutError", async () => {
    const { client, server, clock } = harness({ timeoutMs: 20, maxRetries: 1 });
    server.on("POST /oauth2/token", stall(clock));
    expect(await rejection(client.me())).toBeInstanceOf(APITimeoutError);
    expect(server.tokenRequests).toHaveLength(2);
    await expect.poll(() => server.tokenRequests.every((r) => r.signal.aborted)).toBe(true);
    expect(server.to("GET /v1/me")).toHaveLength(0);
  });
});

/** A client whose token endpoint answers `answer` and whose GET /v1/me succeeds. */
function tokenAnswer(answer: () => Response) {
  const h = harness({ maxRetries: 0 });
  h.server.on("POST /oauth2/token", answer);
  h.server.on("GET /v1/me", () => json(me));
  return h;
}

describe("a token answer the client cannot use", () => {
  it.each([
    ["JSON null", "null"],
    ["a JSON string", '"token"'],
    ["a JSON array", '["token"]'],
    ["text that is not JSON", "access_token=t"],
    ["an empty access_token", '{"access_token":""}'],
    ["a numeric access_token", '{"access_token":5}'],
  ])("%s is an AuthenticationError saying the access_token is missing", async (_what, body) => {
    const { client } = tokenAnswer(() => raw(body, 200, { "content-type": "application/json" }));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).message).toBe(
      "POST /oauth2/token answered 200 without an access_token.",
    );
    expect((error as AuthenticationError).status).toBe(200);
    expect((error as AuthenticationError).path).toBe("/oauth2/token");
    expect((error as AuthenticationError).method).toBe("POST");
  });

  it.each([0, -1, "3600", null])("expires_in %j is refused with its own message", async (value) => {
    const { client } = tokenAnswer(() => json({ access_token: "t", expires_in: value }));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toBe(
      "POST /oauth2/token answered 200 with an expires_in that is not a positive number of seconds.",
    );
  });

  it("an RFC 6749 error without error_description has an empty detail", async () => {
    const { client } = tokenAnswer(() => json({ error: "invalid_client" }, 401));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).problem).toEqual({
      type: "about:blank",
      title: "invalid_client",
      status: 401,
      code: "invalid_client",
      detail: "",
      requestId: "",
    });
  });

  it("several scopes are asked for in one space-separated scope", async () => {
    const h = harness({ scopes: ["orders.read", "orders.write"] });
    h.server.on("POST /oauth2/token", () => json({ access_token: "t", expires_in: 3600 }));
    h.server.on("GET /v1/me", () => json(me));
    await h.client.me();
    const form = new URLSearchParams(h.server.at(0, "POST /oauth2/token").body);
    expect(form.get("scope")).toBe("partner-api/orders.read partner-api/orders.write");
    expect(form.get("grant_type")).toBe("client_credentials");
  });
});

describe("the token request on the wire and when it fails", () => {
  it("asks for JSON", async () => {
    const { client, server } = tokenAnswer(() => json({ access_token: "t", expires_in: 3600 }));
    await client.me();
    expect(server.at(0, "POST /oauth2/token").headers.get("accept")).toBe("application/json");
  });

  it("a refused connection is a connection error naming the token endpoint, with its cause", async () => {
    const { client } = tokenAnswer(connectionRefused);
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe(
      "POST /oauth2/token failed: could not reach the token endpoint.",
    );
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it("a token endpoint that never answers times out with the configured delay in the message", async () => {
    const h = harness({ timeoutMs: 25, maxRetries: 0 });
    h.server.on("POST /oauth2/token", stall(h.clock));
    const error = await rejection(h.client.me());
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe("POST /oauth2/token timed out after 25 ms.");
  });
});

describe("a token endpoint that echoes the credential", () => {
  it("the Basic credential of the unencoded id and secret is redacted too", async () => {
    const raw64 = btoa("my id:my/secret");
    const h = harness({ clientId: "my id", clientSecret: "my/secret", maxRetries: 0 });
    h.server.on("POST /oauth2/token", () =>
      json({ error: "invalid_client", error_description: `bad credential ${raw64}` }, 401),
    );
    const error = await rejection(h.client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).detail).toBe("bad credential [redacted]");
  });
});

describe("a token lifetime the client refuses", () => {
  it("an infinite expires_in (1e999 in the JSON) is refused, not read as a day", async () => {
    const { client } = tokenAnswer(() => raw('{"access_token":"t","expires_in":1e999}'));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toBe(
      "POST /oauth2/token answered 200 with an expires_in that is not a positive number of seconds.",
    );
  });

  it("a refusal whose body is JSON null is still an AuthenticationError", async () => {
    const { client } = tokenAnswer(() => raw("null", 401));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
  });
});

describe("a 401 met by calls in flight together", () => {
  it("each drops the refused token and retries with the one new token", async () => {
    const h = harness();
    h.server.on("GET /v1/me", (request) =>
      request.headers.get("authorization") === "Bearer token-1"
        ? problem(401, "invalid_token")
        : json(me),
    );
    const results = await Promise.all([h.client.me(), h.client.me()]);
    expect(results.map((r) => r.partnerId)).toEqual([me.partnerId, me.partnerId]);
    expect(h.server.tokenRequests).toHaveLength(2);
  });
});

describe("a token the partner provides", () => {
  it("a fixed accessToken echoed by the service is redacted from the error", async () => {
    const h = harness({
      clientId: undefined,
      clientSecret: undefined,
      accessToken: "fixed-abc-123",
    });
    h.server.on("GET /v1/me", () =>
      problem(404, "order_not_found", { detail: "no order for fixed-abc-123" }),
    );
    const error = await rejection(h.client.me());
    expect((error as APIError).detail).toBe("no order for [redacted]");
  });

  it("a function that resolves to no token: the call goes at once, and the service's 401 is thrown", async () => {
    let calls = 0;
    const h = harness({
      clientId: undefined,
      clientSecret: undefined,
      accessToken: async () => {
        calls++;
        return undefined as unknown as string;
      },
    });
    h.server.on("GET /v1/me", (request) =>
      request.headers.has("authorization") ? json(me) : problem(401, "invalid_token"),
    );
    const error = await rejection(h.client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    // Nothing was sent to mint again, and no failure of the SDK's own was retried first.
    expect(calls).toBe(1);
    expect(h.clock.sleeps).toEqual([]);
  });
});

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A token cache of one slot, whatever the key, holding `initial` at first. */
function oneSlotCache(initial?: SharedToken) {
  let stored = initial;
  const sets: { token: SharedToken; ttlMs: number }[] = [];
  const cache: TokenCache = {
    get: async () => stored,
    set: async (_key, token, ttlMs) => {
      sets.push({ token, ttlMs });
      stored = token;
    },
    lock: async () => ({ release: async () => {} }),
  };
  return { cache, sets };
}

describe("a token shared through tokenCache", () => {
  it("is stored with wall-clock times every process can read, until it expires", async () => {
    const { cache, sets } = oneSlotCache();
    const h = harness({ tokenCache: cache });
    h.server.on("GET /v1/me", () => json(me));
    const now = h.clock.now();
    await h.client.me();
    // The default token endpoint gives 3,600 s; renewal comes 10 % (360 s) before expiry.
    expect(sets).toEqual([
      {
        token: { accessToken: "token-1", expiresAt: now + 3_600_000, refreshAt: now + 3_240_000 },
        ttlMs: 3_600_000,
      },
    ]);
  });

  it("another process's token is sent until it expires on this process's clock, never after", async () => {
    const h = harness();
    const now = h.clock.now();
    const { cache } = oneSlotCache({
      accessToken: "shared-token",
      refreshAt: now + 100_000,
      expiresAt: now + 200_000,
    });
    const shared = new PartnerOrders({
      baseUrl,
      clientId: "client-id",
      clientSecret: "client-secret",
      fetch: h.server.fetch,
      clock: h.clock,
      maxRetries: 0,
      tokenCache: cache,
    });
    h.server.on("GET /v1/me", () => json(me));
    h.server.on("POST /oauth2/token", () => problem(500, "internal_error"));
    await shared.me();
    h.clock.advance(150_000);
    // Due for renewal; the renewal fails, so the still-valid token is kept.
    await shared.me();
    const sent = h.server.to("GET /v1/me").map((r) => r.headers.get("authorization"));
    expect(sent).toEqual(["Bearer shared-token", "Bearer shared-token"]);
    h.clock.advance(100_000);
    const error = await rejection(shared.me());
    expect(error).toBeInstanceOf(InternalServerError);
    expect(h.server.to("GET /v1/me")).toHaveLength(2);
  });

  it("keeps each credential's token apart when several share one cache", async () => {
    const stored = new Map<string, SharedToken>();
    const cache: TokenCache = {
      get: async (key) => stored.get(key),
      set: async (key, token) => void stored.set(key, token),
      lock: async () => ({ release: async () => {} }),
    };
    const server = new FakeServer();
    server.on("GET /v1/me", () => json(me));
    const clock = new FakeClock();
    const client = (clientId: string) =>
      new PartnerOrders({
        baseUrl,
        clientId,
        clientSecret: "s3cret",
        fetch: server.fetch,
        clock,
        tokenCache: cache,
      });
    await client("client-a").me();
    await client("client-b").me();
    await client("client-a").me();
    const sent = server.to("GET /v1/me").map((r) => r.headers.get("authorization"));
    expect(sent).toEqual(["Bearer token-1", "Bearer token-2", "Bearer token-1"]);
    expect(server.tokenRequests).toHaveLength(2);
  });

  it("waits for another process's token on the client's clock, then mints its own", async () => {
    // Another process holds the right to mint and never stores a token.
    const cache: TokenCache = {
      get: async () => undefined,
      set: async () => {},
      lock: async () => undefined,
    };
    const h = harness({ tokenCache: cache });
    h.server.on("GET /v1/me", () => json(me));
    await h.client.me();
    // Documented defaults of the shared token: looks every 50 ms, for 5 s.
    expect(new Set(h.clock.sleeps)).toEqual(new Set([50]));
    expect(h.clock.sleeps.reduce((a, b) => a + b, 0)).toBe(5_000);
    expect(h.server.tokenRequests).toHaveLength(1);
  });

  it("an unreachable cache is logged by the error's name only", async () => {
    const failure = Object.assign(new Error("redis://:hunter2@cache:6379 refused"), {
      name: "ConnectionRefusedError",
    });
    const cache: TokenCache = {
      get: () => Promise.reject(failure),
      set: () => Promise.reject(failure),
      lock: () => Promise.reject(failure),
    };
    const lines: unknown[][] = [];
    const h = harness({
      tokenCache: cache,
      logger: { ...silent, warn: (...args: unknown[]) => void lines.push(args) },
    });
    h.server.on("GET /v1/me", () => json(me));
    await h.client.me();
    expect(lines).toContainEqual([
      "[partner-orders] token cache unavailable; this process mints its own token",
      { error: "ConnectionRefusedError" },
    ]);
    expect(JSON.stringify(lines)).not.toContain("hunter2");
  });
});
