import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
} from "../../../src/core/errors";
import { mcpAccessOf } from "../../../src/internal/mcp-lookup";
import { harness, rejection } from "../../support/client";
import { connectionRefused, hang, json, stall } from "../../support/fake-server";

// API calls, the token request and MCP requests leave through one path: each attempt is bounded by
// timeoutMs on the client's clock, ended by the caller's signal, never follows a redirect, and a
// connection failure is an APIConnectionError, whichever of the three sent it.

function mcpPing(client: ReturnType<typeof harness>["client"], signal?: AbortSignal) {
  const access = mcpAccessOf(client);
  if (!access) throw new Error("no MCP access");
  return access.fetch(access.endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    ...(signal ? { signal } : {}),
  });
}

const redirect = () =>
  new Response(null, { status: 302, headers: { location: "https://evil.test/steal" } });

describe("MCP requests", () => {
  it("an attempt times out after timeoutMs on the client's clock", { timeout: 2_000 }, async () => {
    const { client, server, clock } = harness({ timeoutMs: 45_000, maxRetries: 0 });
    server.on("POST /v1/mcp", stall(clock));
    await client.me().catch(() => {}); // the token is cached: only the MCP attempt is timed below
    const started = clock.monotonic();
    const error = await rejection(mcpPing(client));
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe("POST /v1/mcp timed out after 45000 ms.");
    expect(clock.monotonic() - started).toBe(45_000);
    await expect.poll(() => server.at(0, "POST /v1/mcp").signal.aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it("a timed-out attempt is retried like a REST one", { timeout: 2_000 }, async () => {
    const { client, server, clock } = harness({ timeoutMs: 10_000, maxRetries: 1 });
    server.on("POST /v1/mcp", stall(clock), () => json({ jsonrpc: "2.0", id: 1, result: {} }));
    const response = await mcpPing(client);
    expect(response.status).toBe(200);
    expect(server.requests.filter((r) => r.route === "POST /v1/mcp")).toHaveLength(2);
  });

  it("a 3xx is refused, not handed back or followed", async () => {
    const { client, server } = harness({ maxRetries: 3 });
    server.on("POST /v1/mcp", redirect);
    const error = await rejection(mcpPing(client));
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 302 });
    expect((error as Error).message).toMatch(/redirect \(302\), which is not followed/);
    expect(server.at(0, "POST /v1/mcp").redirect).toBe("manual");
    expect(server.requests.filter((r) => r.route === "POST /v1/mcp")).toHaveLength(1);
    expect(server.requests.some((r) => r.url.origin !== "https://api.test")).toBe(false);
  });

  it("the caller's abort ends the attempt with APIUserAbortError", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on("POST /v1/mcp", (request) => {
      queueMicrotask(() => controller.abort());
      return hang(request);
    });
    expect(await rejection(mcpPing(client, controller.signal))).toBeInstanceOf(APIUserAbortError);
  });

  it("requests under one long-lived signal (the MCP SDK's) leave no listener on it", async () => {
    const { client, server } = harness();
    server.on("POST /v1/mcp", () => json({ jsonrpc: "2.0", id: 1, result: {} }));
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) await mcpPing(client, controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("a connection failure is an APIConnectionError", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /v1/mcp", connectionRefused);
    const error = await rejection(mcpPing(client));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe("POST /v1/mcp failed: could not reach the service.");
  });
});

describe("the token request", () => {
  it("a 3xx from the token endpoint is refused like an API one", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /oauth2/token", redirect);
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APIError);
    expect(error).toMatchObject({ status: 302 });
    expect((error as Error).message).toBe(
      "POST /oauth2/token answered with a redirect (302), which is not followed.",
    );
    expect(server.tokenRequests[0]?.redirect).toBe("manual");
    expect(server.apiRequests).toHaveLength(0);
  });

  it("a timeout names the token request", { timeout: 2_000 }, async () => {
    const { client, server, clock } = harness({ timeoutMs: 30_000, maxRetries: 0 });
    server.on("POST /oauth2/token", stall(clock));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe("POST /oauth2/token timed out after 30000 ms.");
  });

  it("a connection failure names the token endpoint", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /oauth2/token", connectionRefused);
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe(
      "POST /oauth2/token failed: could not reach the token endpoint.",
    );
  });

  it("carries the SDK's User-Agent like every request", async () => {
    const { client, server } = harness();
    server.on("GET /v1/me", () => json({}));
    await client.me();
    expect(server.tokenRequests[0]?.headers.get("user-agent")).toMatch(/^partner-orders\//);
  });
});

describe("API calls", () => {
  it("the caller's abort ends the attempt with APIUserAbortError", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on("GET /v1/me", (request) => {
      queueMicrotask(() => controller.abort());
      return hang(request);
    });
    const error = await rejection(client.me({ signal: controller.signal }));
    expect(error).toBeInstanceOf(APIUserAbortError);
    await expect.poll(() => server.at(0, "GET /v1/me").signal.aborted).toBe(true);
  });

  it("a timeout names the call", { timeout: 2_000 }, async () => {
    const { client, server, clock } = harness({ timeoutMs: 30_000, maxRetries: 0 });
    server.on("GET /v1/me", stall(clock));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe("GET /v1/me timed out after 30000 ms.");
  });
});
