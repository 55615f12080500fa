// @ts-nocheck
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PartnerOrders } from "partner-orders";
import { connectMcp } from "partner-orders/mcp";
import type { Listener, Sandbox } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpSandbox, toolJson } from "./support";

/** POST /v1/mcp end to end: the official MCP client over real HTTP against the sandbox. */
let sandbox: Sandbox;
let listener: Listener;
let client: PartnerOrders;
let mcp: Client;
let token: string;

beforeAll(async () => {
  const setup = await mcpSandbox({ clock: "manual", syncWaitMs: 0 });
  sandbox = setup.sandbox;
  listener = setup.listener;
  client = setup.client({ scopes: ["orders:read", "sites:read"] });
  mcp = await connectMcp(client);
  const minted = await sandbox.fetch("/oauth2/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "client_credentials",
      client_id: sandbox.credentials.clientId,
      client_secret: sandbox.credentials.clientSecret,
    }),
  });
  token = ((await minted.json()) as { access_token: string }).access_token;
});

afterAll(async () => {
  await mcp.close();
  await sandbox.close();
});

/** The REST answer's JSON, as the REST endpoint writes it. */
async function rest(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await sandbox.fetch(path, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response.json();
}

const call = (name: string, args: Record<string, unknown> = {}) =>
  mcp.callTool({ name, arguments: args });

describe("tools/list", () => {
  it("lists one tool per REST operation, each with an object input schema", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "get_order",
        "get_product",
        "get_submission",
        "list_order_items",
        "list_orders",
        "list_products",
        "list_shipments",
        "list_sites",
        "list_submissions",
        "me",
        "quote_product",
        "submit_order",
      ].sort(),
    );
    const getOrder = tools.find((t) => t.name === "get_order");
    expect(getOrder?.inputSchema).toMatchObject({
      type: "object",
      required: ["orderNumber"],
      properties: { orderNumber: { type: "integer" } },
    });
  });

  it("hides the order reads from a credential without orders:read; calling one anyway is the REST 403", async () => {
    const sitesOnly = await connectMcp(
      new PartnerOrders({ baseUrl: listener.url, ...sandbox.credentials, scopes: ["sites:read"] }),
    );
    const { tools } = await sitesOnly.listTools();
    const names = tools.map((t) => t.name);
    expect(names).not.toContain("list_orders");
    expect(names).not.toContain("get_order");
    expect(names).toContain("list_sites");
    expect(names.length).toBe(10);
    const result = await sitesOnly.callTool({
      name: "get_order",
      arguments: { orderNumber: sandbox.fixtures.orders.tracking },
    });
    expect(result.isError).toBe(true);
    expect(toolJson(result)).toMatchObject({ status: 403, code: "insufficient_scope" });
    await sitesOnly.close();
  });
});

describe("tools/call gives the REST answers", () => {
  it("get_order: the REST body, money strings untouched", async () => {
    const n = sandbox.fixtures.orders.tracking;
    const result = await call("get_order", { orderNumber: n });
    expect(result.isError).toBeFalsy();
    expect(toolJson(result)).toEqual(await rest("GET", `/v1/orders/${n}`));
    const order = await client.orders.get(n);
    const totals = (toolJson(result) as { totals: { order: string | null } }).totals;
    expect(order.totals.order === null ? null : order.totals.order.toFixed(10)).toBe(totals.order);
  });

  it("list_order_items, list_shipments, get_product, quote_product, list_sites, me", async () => {
    const { orders, products } = sandbox.fixtures;
    const cases: Array<[string, Record<string, unknown>, string, string, unknown?]> = [
      [
        "list_order_items",
        { orderNumber: orders.manyItems, limit: 5 },
        "GET",
        `/v1/orders/${orders.manyItems}/items?limit=5`,
      ],
      [
        "list_shipments",
        { orderNumber: orders.tracking },
        "GET",
        `/v1/orders/${orders.tracking}/shipments`,
      ],
      [
        "list_products",
        { serviceType: "STOCK", limit: 3 },
        "GET",
        "/v1/products?serviceType=STOCK&limit=3",
      ],
      [
        "get_product",
        { productId: products.stockTracked },
        "GET",
        `/v1/products/${products.stockTracked}`,
      ],
      [
        "quote_product",
        { productId: products.pod, quantity: 250 },
        "POST",
        `/v1/products/${products.pod}/quote`,
        { quantity: 250 },
      ],
      ["list_sites", {}, "GET", "/v1/sites"],
    ];
    for (const [name, args, method, path, body] of cases) {
      const result = await call(name, args);
      expect(result.isError, name).toBeFalsy();
      const expected = (await rest(method, path, body)) as Record<string, unknown>;
      // A quote is stamped with the time it was made; everything else must match exactly.
      if (name === "quote_product") delete expected.createdOn;
      expect(toolJson(result), name).toMatchObject(expected);
    }
    expect(toolJson(await call("me"))).toMatchObject({
      partnerId: sandbox.fixtures.partnerId,
      authMethod: "COGNITO_M2M",
    });
  });

  it("list_orders pages with the REST cursors, matching the REST client page for page", async () => {
    const siteId = sandbox.fixtures.sites.main;
    const first = toolJson(await call("list_orders", { siteId, limit: 2 })) as {
      orders: Array<{ orderNumber: number }>;
      nextCursor: string;
    };
    const second = toolJson(
      await call("list_orders", { siteId, limit: 2, cursor: first.nextCursor }),
    ) as { orders: Array<{ orderNumber: number }> };
    const pages = client.orders.list({ siteId, limit: 2 }).pages();
    const restPages = [];
    for await (const page of pages) {
      restPages.push(page.data.map((o) => o.orderNumber));
      if (restPages.length === 2) break;
    }
    expect([first.orders, second.orders].map((p) => p.map((o) => o.orderNumber))).toEqual(
      restPages,
    );
  });

  it("submit_order, get_submission and an idempotent resend", async () => {
    const order = {
      siteId: sandbox.fixtures.sites.main,
      partnerOrderId: `mcp-${Date.now()}`,
      shipTo: {
        name: "Ada",
        address1: "1 Main St",
        city: "Springfield",
        state: "IL",
        postalCode: "62701",
        country: "US",
      },
      lines: [
        {
          productId: sandbox.fixtures.products.stockTracked,
          variantId: sandbox.fixtures.variants.plenty,
          partnerLineId: "l1",
          quantity: 2,
        },
      ],
    };
    const created = toolJson(await call("submit_order", order)) as {
      submissionId: string;
      status: string;
    };
    expect(["queued", "processing", "completed"]).toContain(created.status);
    const again = toolJson(await call("submit_order", order)) as { submissionId: string };
    expect(again.submissionId).toBe(created.submissionId);
    const polled = toolJson(
      await call("get_submission", { submissionId: created.submissionId }),
    ) as { submissionId: string };
    expect(polled.submissionId).toBe(created.submissionId);
    expect(await client.submissions.get(created.submissionId)).toMatchObject({
      submissionId: created.submissionId,
    });
  });
});

describe("errors", () => {
  it("a problem document is a tool error carrying it", async () => {
    const result = await call("get_order", { orderNumber: 999_999_999 });
    expect(result.isError).toBe(true);
    expect(toolJson(result)).toMatchObject({ status: 404, code: "order_not_found" });
    const invalid = await call("submit_order", { siteId: 101, partnerOrderId: "x", lines: [] });
    expect(invalid.isError).toBe(true);
    expect(toolJson(invalid)).toMatchObject({ status: 400, code: "invalid_request" });
  });

  it("an unknown tool or arguments of the wrong type are JSON-RPC invalid params (-32602)", async () => {
    await expect(call("delete_everything")).rejects.toMatchObject({ code: -32602 });
    await expect(call("get_order", { orderNumber: "100001" })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(call("get_order", {})).rejects.toMatchObject({ code: -32602 });
    await expect(call("list_sites", { extra: 1 })).rejects.toMatchObject({ code: -32602 });
  });

  it("a method the endpoint does not have is JSON-RPC method not found (-32601)", async () => {
    await expect(mcp.listPrompts()).rejects.toMatchObject({ code: -32601 });
  });

  it("without a valid credential the endpoint answers 401 with a problem document", async () => {
    const response = await fetch(`${listener.url}/v1/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer not-a-token",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toContain("application/problem+json");
    expect(await response.json()).toMatchObject({ status: 401, code: "invalid_token" });
  });
});
