// @ts-nocheck
import { createSandbox } from "partner-orders/testing";
import { afterEach, describe, expect, it } from "vitest";
import { api, tokenFor } from "./helpers";

const sandbox = createSandbox({ clock: "manual", tokenTtlSeconds: 600 });
afterEach(() => sandbox.resetCounters());

const form = (fields: Record<string, string>) => new URLSearchParams(fields);

async function expectInvalidToken(res: Response) {
  expect(res.status).toBe(401);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  const body = await res.json();
  expect(body).toMatchObject({ type: "about:blank", status: 401, code: "invalid_token" });
  expect(body.requestId).toMatch(/\S/);
  return body.detail as string;
}

describe("POST /oauth2/token", () => {
  it("issues a bearer token for credentials in the form body, scopes prefixed and intersected", async () => {
    const res = await sandbox.fetch("/oauth2/token", {
      method: "POST",
      body: form({
        grant_type: "client_credentials",
        ...{ client_id: "sandbox-client", client_secret: "sandbox-secret" },
        scope: "partner-api/orders:read partner-api/products:write",
      }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      token_type: "Bearer",
      expires_in: 600,
      scope: "partner-api/orders:read",
    });
    expect(body.access_token).toEqual(expect.any(String));
    expect(sandbox.counters.tokenRequests).toBe(1);
  });

  it("accepts HTTP Basic credentials", async () => {
    const basic = Buffer.from("sandbox-client:sandbox-secret").toString("base64");
    const res = await sandbox.fetch("/oauth2/token", {
      method: "POST",
      headers: { authorization: `Basic ${basic}` },
      body: form({ grant_type: "client_credentials" }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).scope).toBe("partner-api/orders:read partner-api/sites:read");
  });

  it("answers an unknown client or wrong secret with an RFC 6749 invalid_client body", async () => {
    for (const secret of ["wrong", ""]) {
      const res = await sandbox.fetch("/oauth2/token", {
        method: "POST",
        body: form({
          grant_type: "client_credentials",
          client_id: "sandbox-client",
          client_secret: secret,
        }),
      });
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ error: "invalid_client" });
      expect(text).not.toContain("sandbox-secret");
    }
    expect(sandbox.counters.tokenRequests).toBe(2);
    expect(sandbox.counters.tokensIssued).toBe(0);
  });

  it("refuses grant types other than client_credentials", async () => {
    const res = await sandbox.fetch("/oauth2/token", {
      method: "POST",
      body: form({
        grant_type: "password",
        client_id: "sandbox-client",
        client_secret: "sandbox-secret",
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "unsupported_grant_type" });
  });
});

describe("bearer authentication", () => {
  it("matches the Bearer prefix case-insensitively", async () => {
    const token = await tokenFor(sandbox);
    for (const prefix of ["Bearer", "bearer", "BEARER"]) {
      const res = await sandbox.fetch("/v1/me", {
        headers: { authorization: `${prefix} ${token}` },
      });
      expect(res.status).toBe(200);
    }
  });

  it("answers every failure with the same 401 invalid_token and a fresh requestId", async () => {
    const token = await tokenFor(sandbox);
    const details = new Set<string>();
    const ids = new Set<string>();
    const attempts: Record<string, string>[] = [
      {},
      { authorization: `Basic ${token}` },
      { authorization: "Bearer nope" },
      { authorization: token },
    ];
    for (const headers of attempts) {
      const res = await sandbox.fetch("/v1/orders", { headers });
      const detail = await expectInvalidToken(res.clone());
      details.add(detail);
      ids.add((await res.json()).requestId);
      expect(detail).not.toContain(token);
    }
    expect(details.size).toBe(1);
    expect(ids.size).toBe(4);
  });

  it("expires tokens on the sandbox clock", async () => {
    const token = await tokenFor(sandbox);
    const me = () => sandbox.fetch("/v1/me", { headers: { authorization: `Bearer ${token}` } });
    sandbox.clock.advance(599_000);
    expect((await me()).status).toBe(200);
    sandbox.clock.advance(1_000);
    await expectInvalidToken(await me());
  });

  it("rejects a token whose effective scope set is empty", async () => {
    const token = await tokenFor(sandbox, ["not-a-scope"]);
    await expectInvalidToken(
      await sandbox.fetch("/v1/me", { headers: { authorization: `Bearer ${token}` } }),
    );
  });

  it("stops accepting tokens of a revoked client on their next use", async () => {
    const local = createSandbox();
    local.admin.addClient(local.fixtures.partnerId, "rotated", "rotated-secret");
    const token = await tokenFor(local, null, {
      clientId: "rotated",
      clientSecret: "rotated-secret",
    });
    expect((await api(local, token).get("/v1/me")).json.partnerId).toBe(local.fixtures.partnerId);
    local.admin.revokeClient("rotated");
    expect((await api(local, token).get("/v1/me")).status).toBe(401);
    await local.close();
  });

  it("needs no credential for GET /v1/ping", async () => {
    const res = await sandbox.fetch("/v1/ping");
    expect(res.status).toBe(200);
  });
});

describe("GET /v1/me and scopes", () => {
  it("describes the principal with its effective scopes", async () => {
    const token = await tokenFor(sandbox, ["sites:read"]);
    const { status, json } = await api(sandbox, token).get("/v1/me");
    expect(status).toBe(200);
    expect(json).toEqual({
      partnerId: "ptn_sandbox",
      partnerName: "Sandbox Partner",
      grantedSiteIds: [101, 102, 103],
      authMethod: "COGNITO_M2M",
      scopes: ["partner-api/sites:read"],
    });
  });

  it("needs orders:read for the two order reads, and no scope elsewhere", async () => {
    const client = api(sandbox, await tokenFor(sandbox, ["sites:read"]));
    for (const path of ["/v1/orders", "/v1/orders/100001"]) {
      const { status, json } = await client.get(path);
      expect(status).toBe(403);
      expect(json.code).toBe("insufficient_scope");
    }
    expect((await client.get("/v1/orders/100001/items")).status).toBe(200);
    expect((await client.get("/v1/sites")).status).toBe(200);
    expect((await client.get("/v1/products")).status).toBe(200);
  });

  it("counts requests by route template", async () => {
    const client = api(sandbox, await tokenFor(sandbox));
    await client.get("/v1/orders/100001");
    await client.get("/v1/orders/100002");
    expect(sandbox.counters.requests["GET /v1/orders/{orderNumber}"]).toBe(2);
    expect(sandbox.counters.requests["POST /oauth2/token"]).toBe(1);
  });
});
