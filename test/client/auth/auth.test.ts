import { describe, expect, it } from "vitest";
import {
  APITimeoutError,
  AuthenticationError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
} from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { json, problem, raw, stall } from "../../support/fake-server";
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
