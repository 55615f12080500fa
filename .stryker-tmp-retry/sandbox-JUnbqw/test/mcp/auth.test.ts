// @ts-nocheck
import { AuthenticationError, PartnerOrders, RateLimitError } from "partner-orders";
import { connectMcp } from "partner-orders/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { mcpSandbox } from "./support";

/**
 * The MCP connection authenticates and retries like the REST client (API document, POST /v1/mcp:
 * "Errors at HTTP level: 401, 429 (with Retry-After)"; Errors rule 3).
 */
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function setup(options: Parameters<typeof mcpSandbox>[0] = {}) {
  const s = await mcpSandbox(options);
  closers.push(() => s.sandbox.close());
  return s;
}

describe("bearer", () => {
  it("shares the REST client's token cache: one token for REST and MCP calls", async () => {
    const { sandbox, client } = await setup();
    const partner = client();
    await partner.me();
    const mcp = await connectMcp(partner);
    await mcp.listTools();
    await mcp.callTool({ name: "me", arguments: {} });
    expect(sandbox.counters.tokenRequests).toBe(1);
    await mcp.close();
  });

  it("concurrent REST and MCP calls share one token request (single flight)", async () => {
    const { sandbox, client } = await setup();
    const partner = client();
    const [mcp] = await Promise.all([connectMcp(partner), partner.me(), partner.sites.list()]);
    expect(sandbox.counters.tokenRequests).toBe(1);
    await mcp.close();
  });

  it("a 401 is answered by one fresh token and the call goes through", async () => {
    const { sandbox, client } = await setup({ clock: "manual" });
    const partner = client();
    const mcp = await connectMcp(partner);
    expect(sandbox.counters.tokenRequests).toBe(1);
    // The service's clock passes the token's lifetime; the client's cache does not know it yet.
    sandbox.clock.advance(3_601_000);
    const result = await mcp.callTool({ name: "list_sites", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(sandbox.counters.tokenRequests).toBe(2);
    expect(sandbox.requests.filter((r) => r.path === "/v1/mcp").map((r) => r.status)).toContain(
      401,
    );
    await mcp.close();
  });

  it("a second 401 is thrown as AuthenticationError, after exactly one refresh", async () => {
    const { sandbox, client } = await setup();
    const mcp = await connectMcp(client());
    sandbox.faults.inject({ method: "POST", path: "/v1/mcp", status: 401, times: 2 });
    const error = await mcp.callTool({ name: "me", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: "invalid_token" });
    expect(sandbox.counters.tokenRequests).toBe(2);
    await mcp.close();
  });

  it("a token the partner manages is sent as given", async () => {
    const { sandbox, listener } = await setup();
    const minted = await sandbox.fetch("/oauth2/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", ...idSecret(sandbox) }),
    });
    const { access_token } = (await minted.json()) as { access_token: string };
    const mcp = await connectMcp(
      new PartnerOrders({ baseUrl: listener.url, accessToken: access_token }),
    );
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
    await mcp.close();
  });
});

function idSecret(sandbox: { credentials: { clientId: string; clientSecret: string } }) {
  return {
    client_id: sandbox.credentials.clientId,
    client_secret: sandbox.credentials.clientSecret,
  };
}

describe("429", () => {
  it("waits what Retry-After says, on the client's clock, then retries", async () => {
    const { sandbox, client, clock } = await setup();
    const mcp = await connectMcp(client());
    sandbox.faults.inject({ method: "POST", path: "/v1/mcp", status: 429, retryAfter: 7 });
    const result = await mcp.callTool({ name: "list_sites", arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(7_000);
    await mcp.close();
  });

  it("with retries used up, RateLimitError carries the hint", async () => {
    const { sandbox, client } = await setup();
    const mcp = await connectMcp(client({ maxRetries: 1 }));
    sandbox.faults.inject({
      method: "POST",
      path: "/v1/mcp",
      status: 429,
      retryAfter: 3,
      times: 2,
    });
    const error = await mcp.callTool({ name: "me", arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfterSeconds: 3, code: "rate_limit_exceeded" });
    await mcp.close();
  });

  it("a hint over 60 s is not waited for", async () => {
    const { sandbox, client, clock } = await setup();
    const mcp = await connectMcp(client());
    sandbox.faults.inject({ method: "POST", path: "/v1/mcp", status: 429, retryAfter: 600 });
    await expect(mcp.callTool({ name: "me", arguments: {} })).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(clock.sleeps).toEqual([]);
    await mcp.close();
  });
});
