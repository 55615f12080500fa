import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PartnerOrders } from "../../../src/client";
import { detectRuntime, userAgent } from "../../../src/core/user-agent";
import { mcpAccessOf } from "../../../src/internal/mcp-lookup";
import { harness } from "../../support/client";
import { baseUrl, FakeServer, json } from "../../support/fake-server";

// Read here, independently of the build-time constant the SDK uses.
const { version } = JSON.parse(
  readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
) as { version: string };
const expected = `partner-orders/${version} (node/${process.versions.node})`;

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("User-Agent", () => {
  it("names the package version from package.json and the Node version", () => {
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(userAgent()).toBe(expected);
  });

  it("is sent on the token request and on every API call", async () => {
    const { client, server } = harness();
    server.on("GET /v1/sites", () => json({ sites: [] }));
    await client.sites.list();
    await client.sites.list();
    expect(server.requests.map((r) => r.route)).toEqual([
      "POST /oauth2/token",
      "GET /v1/sites",
      "GET /v1/sites",
    ]);
    for (const request of server.requests) expect(request.headers.get("user-agent")).toBe(expected);
  });

  it("is sent on calls without a credential (ping) and with a token of your own", async () => {
    const server = new FakeServer().on("GET /v1/ping", () => json({ status: "ok" }));
    const client = new PartnerOrders({ baseUrl, accessToken: "t", fetch: server.fetch });
    await client.ping();
    expect(server.at(0, "GET /v1/ping").headers.get("user-agent")).toBe(expected);
  });

  it("is sent on every attempt of a retried call", async () => {
    const { client, server } = harness();
    server.on(
      "GET /v1/sites",
      () => new Response(null, { status: 503 }),
      () => json({ sites: [] }),
    );
    await client.sites.list();
    const attempts = server.to("GET /v1/sites");
    expect(attempts).toHaveLength(2);
    for (const r of attempts) expect(r.headers.get("user-agent")).toBe(expected);
  });

  it("is sent on MCP requests", async () => {
    const { client, server } = harness();
    server.on("POST /v1/mcp", () => json({ jsonrpc: "2.0", id: 1, result: {} }));
    const access = mcpAccessOf(client);
    if (!access) throw new Error("no MCP access");
    await access.fetch(access.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(server.at(0, "POST /v1/mcp").headers.get("user-agent")).toBe(expected);
  });

  it("is not set in a browser, where the request goes out without failing", async () => {
    vi.stubGlobal("window", {});
    vi.stubGlobal("document", {});
    const { client, server } = harness();
    server.on("GET /v1/sites", () => json({ sites: [] }));
    await client.sites.list();
    expect(server.at(0, "GET /v1/sites").headers.get("user-agent")).toBeNull();
  });
});

describe("runtime detection", () => {
  it.each([
    [{ process: { versions: { node: "20.11.1" } } }, "node/20.11.1"],
    [{ Bun: { version: "1.1.38" }, process: { versions: { node: "22.6.0" } } }, "bun/1.1.38"],
    [
      { Deno: { version: { deno: "2.1.4" } }, process: { versions: { node: "20.11.1" } } },
      "deno/2.1.4",
    ],
    [{}, "unknown"],
    [{ process: {} }, "unknown"],
  ])("%j is %s", (globals, runtime) => {
    expect(detectRuntime(globals)).toBe(runtime);
    expect(userAgent(globals)).toBe(`partner-orders/${version} (${runtime})`);
  });

  it("gives no User-Agent in a browser", () => {
    expect(userAgent({ window: {}, document: {} })).toBeUndefined();
  });
});
