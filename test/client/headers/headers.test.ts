import { describe, expect, it } from "vitest";
import { PartnerOrders } from "../../../src/client";
import { RequestValidationError } from "../../../src/core/errors";
import { userAgent } from "../../../src/core/user-agent";
import { mcpAccessOf } from "../../../src/internal/mcp-lookup";
import { harness, rejection } from "../../support/client";
import { baseUrl, json } from "../../support/fake-server";
import {
  completedSubmission,
  orderRequest,
  submission,
  submissionId,
} from "../../support/fixtures";

const pollPath = `/v1/orders/submissions/${submissionId}`;
const sites = () => json({ sites: [] });

function construct(options: ConstructorParameters<typeof PartnerOrders>[0]): unknown {
  try {
    new PartnerOrders(options);
  } catch (error) {
    return error;
  }
  throw new Error("expected the constructor to throw");
}

describe("defaultHeaders and per-call headers", () => {
  it("adds defaultHeaders to every API call, and a call's headers to that call only", async () => {
    const { client, server } = harness({ defaultHeaders: { "X-Team": "checkout" } });
    server.on("GET /v1/sites", sites);
    await client.sites.list({ headers: { "X-Correlation-Id": "c-1" } });
    await client.sites.list();
    const [first, second] = server.to("GET /v1/sites");
    expect(first?.headers.get("x-team")).toBe("checkout");
    expect(first?.headers.get("x-correlation-id")).toBe("c-1");
    expect(second?.headers.get("x-team")).toBe("checkout");
    expect(second?.headers.get("x-correlation-id")).toBeNull();
  });

  it("a call's header replaces a default of the same name, whatever its case", async () => {
    const { client, server } = harness({ defaultHeaders: { "X-Team": "checkout" } });
    server.on("GET /v1/sites", sites);
    await client.sites.list({ headers: { "x-team": "billing" } });
    expect(server.at(0, "GET /v1/sites").headers.get("x-team")).toBe("billing");
  });

  it("keeps the SDK's Authorization and Accept beside them", async () => {
    const { client, server } = harness({ defaultHeaders: { "X-Team": "checkout" } });
    server.on("GET /v1/sites", sites);
    await client.sites.list();
    const request = server.at(0, "GET /v1/sites");
    expect(request.headers.get("authorization")).toBe("Bearer token-1");
    expect(request.headers.get("accept")).toBe("application/json");
  });

  it("are not sent to the token endpoint", async () => {
    const { client, server } = harness({ defaultHeaders: { "X-Team": "checkout" } });
    server.on("GET /v1/sites", sites);
    await client.sites.list({ headers: { "X-Correlation-Id": "c-1" } });
    const token = server.at(0, "POST /oauth2/token");
    expect(token.headers.get("x-team")).toBeNull();
    expect(token.headers.get("x-correlation-id")).toBeNull();
  });

  it("go on every page of a list and every request of a wait", async () => {
    const { client, server } = harness();
    server.on(
      "GET /v1/orders",
      () => json({ orders: [{ orderNumber: 1 }], nextCursor: "c1" }),
      () => json({ orders: [], nextCursor: null }),
    );
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, { location: pollPath, "retry-after": "2" }),
    );
    server.on(`GET ${pollPath}`, () => json(completedSubmission()));
    const headers = { "X-Correlation-Id": "c-9" };
    await client.orders.list({}, { headers }).toArray();
    await client.submitOrderAndWait(orderRequest(), { headers });
    await client.submissions.wait(submissionId, { headers });
    const sent = server.apiRequests.map((r) => [r.route, r.headers.get("x-correlation-id")]);
    expect(sent).toEqual([
      ["GET /v1/orders", "c-9"],
      ["GET /v1/orders", "c-9"],
      ["POST /v1/orders", "c-9"],
      [`GET ${pollPath}`, "c-9"],
      [`GET ${pollPath}`, "c-9"],
    ]);
  });

  it("defaultHeaders go on MCP requests, under the headers the MCP transport set", async () => {
    const { client, server } = harness({
      defaultHeaders: { "X-Team": "checkout", "Mcp-Session-Id": "from-defaults" },
    });
    server.on("POST /v1/mcp", () => json({ jsonrpc: "2.0", id: 1, result: {} }));
    const access = mcpAccessOf(client);
    if (!access) throw new Error("no MCP access");
    await access.fetch(access.endpoint, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "mcp-session-id": "s-1" },
      body: "{}",
    });
    const request = server.at(0, "POST /v1/mcp");
    expect(request.headers.get("x-team")).toBe("checkout");
    expect(request.headers.get("mcp-session-id")).toBe("s-1");
    expect(request.headers.get("authorization")).toBe("Bearer token-1");
  });

  it("a User-Agent given follows the SDK's", async () => {
    const { client, server } = harness({ defaultHeaders: { "User-Agent": "acme-shop/4.2" } });
    server.on("GET /v1/sites", sites);
    await client.sites.list();
    expect(server.at(0, "GET /v1/sites").headers.get("user-agent")).toBe(
      `${userAgent()} acme-shop/4.2`,
    );
  });
});

describe("headers the SDK owns", () => {
  it.each(["Authorization", "authorization", "AUTHORIZATION", "Content-Type", "Accept"])(
    "defaultHeaders with %s: the constructor throws RequestValidationError",
    (name) => {
      const error = construct({
        baseUrl,
        accessToken: "t",
        defaultHeaders: { [name]: "Bearer my-own-token" },
      });
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).violations).toEqual([
        {
          path: `defaultHeaders[${JSON.stringify(name)}]`,
          message: expect.stringMatching(/cannot be set/),
        },
      ]);
      // The value may be a credential: it never appears in the error.
      expect((error as Error).message).not.toContain("my-own-token");
    },
  );

  it("a call's Authorization is rejected before anything is sent", async () => {
    const { client, server } = harness();
    server.on("GET /v1/sites", sites);
    const error = await rejection(
      client.sites.list({ headers: { Authorization: "Bearer my-own-token" } }),
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).violations[0]?.path).toBe('headers["Authorization"]');
    expect((error as Error).message).not.toContain("my-own-token");
    expect(server.requests).toHaveLength(0);
  });

  it("a POST's Content-Type cannot be replaced", async () => {
    const { client, server } = harness();
    const error = await rejection(
      client.orders.submit(orderRequest(), { headers: { "content-type": "text/plain" } }),
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(server.requests).toHaveLength(0);
  });

  it("a wait with an owned header fails before the order is posted", async () => {
    const { client, server } = harness();
    const error = await rejection(
      client.submitOrderAndWait(orderRequest(), { headers: { Authorization: "x" } }),
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(server.requests).toHaveLength(0);
  });

  it("refuses a header name or value HTTP cannot carry", async () => {
    expect(
      construct({ baseUrl, accessToken: "t", defaultHeaders: { "Bad Name": "x" } }),
    ).toBeInstanceOf(RequestValidationError);
    const { client, server } = harness();
    const error = await rejection(client.sites.list({ headers: { "X-A": "line\r\nInjected: 1" } }));
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(server.requests).toHaveLength(0);
  });
});
