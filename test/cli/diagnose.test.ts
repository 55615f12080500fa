import { PartnerOrders } from "partner-orders";
import {
  MirrorError,
  SchemaVersionError,
  StoreAccountError,
  StoreLockedError,
  SweepHeldError,
} from "partner-orders/sync";
import { createSandbox, FIXTURES, SANDBOX_BASE_URL, type Sandbox } from "partner-orders/testing";
import { describe, expect, it } from "vitest";
import { APITimeoutError, RequestValidationError } from "../../src/core/errors";
import { diagnose } from "../../src/internal/diagnose";
import { rejection } from "../support/client";

/** Every error here is a real one: provoked through the sandbox, or a fetch that answers as a server would. */

function sandboxClient(
  sandbox: Sandbox,
  options: Partial<ConstructorParameters<typeof PartnerOrders>[0]> = {},
) {
  return new PartnerOrders({
    baseUrl: SANDBOX_BASE_URL,
    fetch: sandbox.fetch,
    ...sandbox.credentials,
    maxRetries: 0,
    ...options,
  });
}

/** A client whose token endpoint answers `status` with `body`; API calls are never reached. */
function tokenAnswer(status: number, body: string, headers: Record<string, string> = {}) {
  return new PartnerOrders({
    baseUrl: "https://api.example.test",
    clientId: "client-1",
    clientSecret: "s3cret-of-the-client",
    maxRetries: 0,
    fetch: async () => new Response(body, { status, headers }),
  });
}

const NO_TOKEN_ENDPOINT =
  "the base URL answers no token endpoint: check --base-url / PARTNER_ORDERS_BASE_URL (it should be the API root, without a path)";

describe("diagnose: the token endpoint", () => {
  it("a refused client id or secret is fatal, with a hint about them, and never shows the secret", async () => {
    const sandbox = createSandbox();
    const error = await rejection(
      sandboxClient(sandbox, { clientSecret: "wrong-secret-value-1" }).me(),
    );
    const d = diagnose(error);
    expect(d).toMatchObject({ code: "invalid_client", fatal: true });
    expect(d.hint).toMatch(/client id and secret/);
    expect(JSON.stringify(d)).not.toContain("wrong-secret-value-1");
    await sandbox.close();
  });

  it("unauthorized_client and other 4xx answers are fatal, about the credential", async () => {
    for (const [status, code] of [
      [400, "unauthorized_client"],
      [400, "unsupported_grant_type"],
      [403, "access_denied"],
    ] as const) {
      const d = diagnose(
        await rejection(tokenAnswer(status, JSON.stringify({ error: code })).me()),
      );
      expect(d, code).toMatchObject({ code, fatal: true });
      expect(d.hint).toMatch(/client id and secret/);
    }
  });

  it("invalid_scope is fatal, with a hint about scopes", async () => {
    const d = diagnose(
      await rejection(tokenAnswer(400, JSON.stringify({ error: "invalid_scope" })).me()),
    );
    expect(d).toMatchObject({ code: "invalid_scope", fatal: true });
    expect(d.hint).toMatch(/scopes/);
  });

  it("a secret the server echoes back stays out of the diagnosis", async () => {
    const d = diagnose(
      await rejection(
        tokenAnswer(
          401,
          JSON.stringify({
            error: "invalid_client",
            error_description: "bad s3cret-of-the-client",
          }),
        ).me(),
      ),
    );
    expect(d.code).toBe("invalid_client");
    expect(JSON.stringify(d)).not.toContain("s3cret-of-the-client");
  });

  it("a base URL with a path reaches no token endpoint: the gateway's invalid_token reads as that", async () => {
    const sandbox = createSandbox();
    const error = await rejection(
      sandboxClient(sandbox, { baseUrl: `${SANDBOX_BASE_URL}/v1` }).me(),
    );
    expect(error).toMatchObject({ status: 401, code: "invalid_token", path: "/oauth2/token" });
    expect(diagnose(error)).toMatchObject({
      code: "token_endpoint_not_found",
      hint: NO_TOKEN_ENDPOINT,
      fatal: true,
    });
    await sandbox.close();
  });

  it("a 404, an HTML page, a redirect or an answer without an access_token is no token endpoint", async () => {
    const answers: [number, string, Record<string, string>?][] = [
      [404, "<html><body>Not Found</body></html>", { "content-type": "text/html" }],
      [404, JSON.stringify({ message: "Not Found" })],
      [200, "<!doctype html><title>Welcome</title>", { "content-type": "text/html" }],
      [200, JSON.stringify({ token_type: "Bearer" })],
      [401, "<html>Unauthorized</html>", { "content-type": "text/html" }],
      [302, "", { location: "https://api.example.test/login" }],
    ];
    for (const [status, body, headers] of answers) {
      const d = diagnose(await rejection(tokenAnswer(status, body, headers).me()));
      expect(d, `${status} ${body}`).toMatchObject({
        code: "token_endpoint_not_found",
        hint: NO_TOKEN_ENDPOINT,
        fatal: true,
      });
      expect(d.message).toMatch(
        /^No OAuth token came from the token endpoint \(POST \/oauth2\/token/,
      );
    }
  });

  it("a 429 or a 5xx from the token endpoint is not fatal", async () => {
    const limited = diagnose(
      await rejection(
        tokenAnswer(429, JSON.stringify({ error: "slow_down" }), { "retry-after": "5" }).me(),
      ),
    );
    expect(limited).toMatchObject({ fatal: false });
    const failing = diagnose(await rejection(tokenAnswer(503, "<html>busy</html>").me()));
    expect(failing).toMatchObject({ code: "http_503", fatal: false });
  });
});

describe("diagnose: API calls", () => {
  it("insufficient_scope is fatal and names the scope needed", async () => {
    const sandbox = createSandbox();
    sandbox.admin.setCapabilities(FIXTURES.partnerId, ["partner-api/sites:read"]);
    const error = await rejection(sandboxClient(sandbox).orders.list().toArray());
    const d = diagnose(error);
    expect(d).toMatchObject({ code: "insufficient_scope", fatal: true });
    expect(d.hint).toContain("orders:read");
    await sandbox.close();
  });

  it("a site not granted (invalid_site_id) is fatal, pointing at siteIds and `partner-orders me`", async () => {
    const sandbox = createSandbox();
    const error = await rejection(
      sandboxClient(sandbox).orders.list({ siteId: 999_999 }).toArray(),
    );
    const d = diagnose(error);
    expect(d).toMatchObject({ code: "invalid_site_id", fatal: true });
    expect(d.hint).toMatch(/siteIds.*partner-orders me/);
    await sandbox.close();
  });

  it("a 401 after the client's own retry with a fresh token is fatal (revoked, disabled)", async () => {
    const sandbox = createSandbox();
    sandbox.admin.setPartnerDisabled(FIXTURES.partnerId);
    const before = sandbox.counters.tokenRequests;
    const error = await rejection(sandboxClient(sandbox, { maxRetries: 2 }).me());
    // The client minted a second token before giving up.
    expect(sandbox.counters.tokenRequests - before).toBe(2);
    expect(error).toMatchObject({ status: 401, path: "/v1/me" });
    const d = diagnose(error);
    expect(d).toMatchObject({ code: "invalid_token", fatal: true });
    expect(d.hint).toMatch(/revoked|disabled/);
    await sandbox.close();
  });

  it("the edge firewall's 403 is not fatal, on an API call or the token endpoint", async () => {
    for (const path of ["/v1/me", "/oauth2/token"]) {
      const sandbox = createSandbox();
      sandbox.faults.inject({ path, firewall: true });
      const d = diagnose(await rejection(sandboxClient(sandbox).me()));
      expect(d, path).toMatchObject({ code: "edge_firewall", fatal: false });
      await sandbox.close();
    }
  });

  it("429 and 5xx are not fatal, with the problem's code", async () => {
    for (const [status, code] of [
      [429, "rate_limit_exceeded"],
      [500, "internal_error"],
      [503, "service_unavailable"],
    ] as const) {
      const sandbox = createSandbox();
      sandbox.faults.inject({
        path: "/v1/me",
        status,
        retryAfter: status === 429 ? 120 : undefined,
      });
      const d = diagnose(await rejection(sandboxClient(sandbox).me()));
      expect(d, String(status)).toMatchObject({ code, fatal: false });
      expect(d.hint).toBeDefined();
      await sandbox.close();
    }
  });

  it("a dropped connection and a timeout are not fatal", async () => {
    const sandbox = createSandbox();
    sandbox.faults.inject({ path: "/v1/me", drop: "before" });
    const dropped = diagnose(await rejection(sandboxClient(sandbox).me()));
    expect(dropped).toMatchObject({ code: "connection_error", fatal: false });
    await sandbox.close();
    expect(diagnose(new APITimeoutError("GET /v1/me timed out after 50 ms."))).toMatchObject({
      code: "timeout",
      message: "GET /v1/me timed out after 50 ms.",
      fatal: false,
    });
  });

  it("another answer keeps its own code and is not fatal", async () => {
    const sandbox = createSandbox();
    const d = diagnose(await rejection(sandboxClient(sandbox).orders.get(999_999_999)));
    expect(d).toMatchObject({ code: "order_not_found", hint: undefined, fatal: false });
    expect(d.message).toMatch(/^GET \/v1\/orders\/999999999 failed with 404 order_not_found/);
    await sandbox.close();
  });
});

describe("diagnose: the mirror's errors", () => {
  it("carry their own code and hint, the hint not repeated in the message", () => {
    const locked = diagnose(new StoreLockedError("/data/orders.db", 4242, "host-a"));
    expect(locked).toMatchObject({ code: "store_locked", fatal: true });
    expect(locked.message).toBe(
      "/data/orders.db is in use by process 4242 on host-a, which runs the mirror on it.",
    );
    expect(locked.hint).toMatch(/^SQLite is one process/);
    expect(diagnose(new SchemaVersionError(9, 3, "orders.db"))).toMatchObject({
      code: "schema_too_new",
      fatal: true,
    });
    expect(
      diagnose(
        new StoreAccountError(
          { partnerId: "a", baseUrl: "https://x.test/" },
          { partnerId: "b", baseUrl: "https://x.test/" },
        ),
      ),
    ).toMatchObject({ code: "store_account_mismatch", fatal: true });
    expect(
      diagnose(new MirrorError("store_open_failed", "cannot open /x/y.db: no such directory")),
    ).toEqual({
      code: "store_open_failed",
      message: "cannot open /x/y.db: no such directory",
      hint: undefined,
      fatal: true,
    });
  });

  it("a store that is unavailable for now, or a sweep held elsewhere, is not fatal", () => {
    expect(
      diagnose(
        new MirrorError("store_unavailable", "the database is restarting", { hint: "wait" }),
      ),
    ).toEqual({
      code: "store_unavailable",
      message: "the database is restarting",
      hint: "wait",
      fatal: false,
    });
    expect(diagnose(new SweepHeldError("host-b/17/abc", "2024-05-01T10:00:00.000Z"))).toMatchObject(
      {
        code: "sweep_held",
        fatal: false,
      },
    );
  });
});

describe("diagnose: anything else", () => {
  it("is unexpected and not fatal: its class and message, never the rest of a driver's error", () => {
    const driver = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
      errno: -111,
      code: "ECONNREFUSED",
      address: "127.0.0.1",
      config: { password: "pg-password-1" },
    });
    expect(diagnose(driver)).toEqual({
      code: "unexpected",
      message: "connect ECONNREFUSED 127.0.0.1:5432",
      hint: undefined,
      fatal: false,
    });
    expect(
      diagnose(new TypeError("Cannot open database because the directory does not exist")),
    ).toMatchObject({
      code: "unexpected",
      message: "TypeError: Cannot open database because the directory does not exist",
    });
    expect(diagnose("a string")).toMatchObject({ code: "unexpected", message: "a string" });
    expect(diagnose(new Error("x".repeat(5_000))).message.length).toBeLessThan(1_100);
  });

  it("an invalid request keeps its violations in the message, once", () => {
    const error = new RequestValidationError([
      { path: "lines", message: "must have 1 to 100 entries" },
    ]);
    const d = diagnose(error);
    expect(d).toMatchObject({ code: "invalid_request", fatal: false });
    expect(d.message.match(/lines: must have/g)).toHaveLength(1);
  });
});
