import { describe, expect, it } from "vitest";
import { PartnerOrders } from "../../../src/client";
import {
  APITimeoutError,
  PartnerOrdersError,
  ServiceUnavailableError,
} from "../../../src/core/errors";
import type { Logger } from "../../../src/core/logger";
import { mcpAccessOf } from "../../../src/internal/mcp-lookup";
import { harness, rejection } from "../../support/client";
import { FakeServer, json, problem, stall } from "../../support/fake-server";

const sites = () => json({ sites: [] });
const unavailable = () => problem(503, "service_unavailable");

/** A logger that records `level message` lines. */
function recorder(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => {
    lines.push(`${level} ${message}`);
  };
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

describe("client.withOptions()", () => {
  it("shares the token: calls on both clients make one token request", async () => {
    const { client, server } = harness();
    server.on("GET /v1/sites", sites);
    const other = client.withOptions({ maxRetries: 5 });
    await other.sites.list();
    await client.sites.list();
    await other.sites.list();
    expect(server.tokenRequests).toHaveLength(1);
    expect(server.to("GET /v1/sites").map((r) => r.headers.get("authorization"))).toEqual([
      "Bearer token-1",
      "Bearer token-1",
      "Bearer token-1",
    ]);
  });

  it("shares the single flight: concurrent first calls on both make one token request", async () => {
    const { client, server } = harness();
    server.on("GET /v1/sites", sites);
    const a = client.withOptions({ timeoutMs: 10_000 });
    const b = a.withOptions({ logLevel: "error" });
    await Promise.all([client, a, b, client, a, b].map((c) => c.sites.list()));
    expect(server.tokenRequests).toHaveLength(1);
  });

  it("a token refused on one client is renewed for all", async () => {
    const { client, server } = harness();
    server.on("GET /v1/sites", () => problem(401, "invalid_token"), sites);
    const other = client.withOptions({});
    await other.sites.list(); // 401 with token-1, then token-2
    await client.sites.list();
    expect(server.tokenRequests).toHaveLength(2);
    expect(server.at(2, "GET /v1/sites").headers.get("authorization")).toBe("Bearer token-2");
  });

  it("uses the same fetch", async () => {
    const seen: string[] = [];
    const server = new FakeServer().on("GET /v1/sites", sites);
    const client = new PartnerOrders({
      baseUrl: server.origin,
      accessToken: "t",
      fetch: ((request: Request) => {
        seen.push(new URL(request.url).pathname);
        return server.fetch(request);
      }) as typeof fetch,
    });
    await client.withOptions({ maxRetries: 0 }).sites.list();
    expect(seen).toEqual(["/v1/sites"]);
  });

  it("maxRetries changes on the new client only", async () => {
    const { client, server } = harness();
    server.on("GET /v1/sites", unavailable);
    const once = client.withOptions({ maxRetries: 0 });
    expect(await rejection(once.sites.list())).toBeInstanceOf(ServiceUnavailableError);
    expect(server.to("GET /v1/sites")).toHaveLength(1);
    expect(await rejection(client.sites.list())).toBeInstanceOf(ServiceUnavailableError);
    // The original keeps its default of 2 retries: 3 attempts.
    expect(server.to("GET /v1/sites")).toHaveLength(4);
  });

  it("timeoutMs changes on the new client only", async () => {
    const { client, server, clock } = harness({ maxRetries: 0 });
    server.on("GET /v1/me", stall(clock));
    const error = await rejection(client.withOptions({ timeoutMs: 5 }).me());
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toMatch(/after 5 ms/);
    server.on("GET /v1/me", () => json({ partnerId: "p" }));
    await expect(client.me()).resolves.toEqual({ partnerId: "p" });
  });

  it("logLevel changes on the new client only, through the same logger", async () => {
    const logger = recorder();
    const { client, server } = harness({ logger });
    server.on("GET /v1/sites", sites);
    await client.withOptions({ logLevel: "debug" }).sites.list();
    expect(logger.lines).toContain("debug [partner-orders] GET /v1/sites");
    logger.lines.length = 0;
    await client.sites.list();
    expect(logger.lines).toEqual([]);
  });

  it("a new logger keeps the original's level", async () => {
    const first = recorder();
    const second = recorder();
    const { client, server } = harness({ logger: first, logLevel: "debug" });
    server.on("GET /v1/sites", sites);
    await client.withOptions({ logger: second }).sites.list();
    expect(second.lines).toContain("debug [partner-orders] GET /v1/sites");
    expect(first.lines.filter((l) => l.includes("/v1/sites"))).toEqual([]);
  });

  it("defaultHeaders are added to the original's, on the new client only", async () => {
    const { client, server } = harness({ defaultHeaders: { "X-Team": "checkout" } });
    server.on("GET /v1/sites", sites);
    await client.withOptions({ defaultHeaders: { "X-Job": "nightly" } }).sites.list();
    await client.sites.list();
    const [derived, original] = server.to("GET /v1/sites");
    expect(derived?.headers.get("x-team")).toBe("checkout");
    expect(derived?.headers.get("x-job")).toBe("nightly");
    expect(original?.headers.get("x-team")).toBe("checkout");
    expect(original?.headers.get("x-job")).toBeNull();
  });

  it("MCP requests of the new client share the token and carry its options", async () => {
    const { client, server } = harness();
    server.on("GET /v1/sites", sites);
    server.on("POST /v1/mcp", () => json({ jsonrpc: "2.0", id: 1, result: {} }));
    await client.sites.list();
    const access = mcpAccessOf(client.withOptions({ defaultHeaders: { "X-Job": "agent" } }));
    if (!access) throw new Error("no MCP access");
    await access.fetch(access.endpoint, { method: "POST", body: "{}" });
    const mcp = server.at(0, "POST /v1/mcp");
    expect(mcp.headers.get("authorization")).toBe("Bearer token-1");
    expect(mcp.headers.get("x-job")).toBe("agent");
    expect(server.tokenRequests).toHaveLength(1);
  });

  it("checks what it is given like the constructor does", () => {
    const { client } = harness();
    expect(() => client.withOptions({ maxRetries: -1 })).toThrow(PartnerOrdersError);
    expect(() => client.withOptions({ defaultHeaders: { Authorization: "x" } })).toThrow(
      PartnerOrdersError,
    );
  });

  it("refuses options that belong to the shared connection", () => {
    const { client } = harness();
    const change = { baseUrl: "https://other.test" } as unknown as { maxRetries: number };
    expect(() => client.withOptions(change)).toThrow(/baseUrl/);
  });

  it("cannot be given connection options by a typed caller", () => {
    const { client } = harness();
    // @ts-expect-error baseUrl belongs to the shared connection
    expect(() => client.withOptions({ baseUrl: "https://other.test" })).toThrow(PartnerOrdersError);
  });
});
