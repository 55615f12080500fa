import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PartnerOrders } from "../../../src/client";
import { APIError } from "../../../src/core/errors";
import { FakeClock } from "../../support/fake-clock";

type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const seen: string[] = [];
const elsewhere: string[] = [];
let meCalls = 0;
let api: Server;
let other: Server;
let apiUrl: string;
let otherUrl: string;

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const routes: Record<string, Route> = {
  "POST /oauth2/token": (req, res, body) => {
    const basic = req.headers.authorization ?? "";
    const ok =
      new URLSearchParams(body).get("grant_type") === "client_credentials" &&
      Buffer.from(basic.slice(6), "base64").toString() === "loop-id:loop-secret";
    if (ok) send(res, 200, { access_token: "loop-token", token_type: "Bearer", expires_in: 3600 });
    else send(res, 401, { error: "invalid_client" });
  },
  "GET /v1/me": (req, res) => {
    if (++meCalls === 1) {
      req.socket.destroy(); // the connection drops before any answer
      return;
    }
    if (req.headers.authorization !== "Bearer loop-token") {
      send(res, 401, {
        type: "about:blank",
        title: "Unauthorized",
        status: 401,
        code: "invalid_token",
        detail: "",
        requestId: "r",
      });
      return;
    }
    send(res, 200, {
      partnerId: "p-loop",
      partnerName: "Loop",
      grantedSiteIds: [1],
      authMethod: "COGNITO_M2M",
      scopes: [],
    });
  },
  "GET /v1/sites": (_req, res) =>
    send(
      res,
      200,
      { sites: [{ siteId: 1, name: "One", homeUrl: null, live: true }] },
      { "x-ratelimit-remaining": "99" },
    ),
  "GET /v1/orders/1": (_req, res) => {
    res.writeHead(302, { location: `${otherUrl}/v1/orders/1` });
    res.end();
  },
};

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

beforeAll(async () => {
  api = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      const key = `${req.method} ${req.url?.split("?")[0]}`;
      seen.push(key);
      const route = routes[key];
      if (route) route(req, res, body);
      else
        send(res, 404, {
          type: "about:blank",
          title: "Not Found",
          status: 404,
          code: "not_found",
          detail: "",
          requestId: "r",
        });
    });
  });
  other = createServer((req, res) => {
    elsewhere.push(`${req.method} ${req.url}`);
    send(res, 200, {});
  });
  apiUrl = await listen(api);
  otherUrl = await listen(other);
});

afterAll(async () => {
  await Promise.all([close(api), close(other)]);
});

function client(clock = new FakeClock()) {
  return new PartnerOrders({
    baseUrl: apiUrl,
    clientId: "loop-id",
    clientSecret: "loop-secret",
    clock,
  });
}

describe("real HTTP on loopback", () => {
  it("retries a dropped connection and then succeeds", async () => {
    const clock = new FakeClock();
    const me = await client(clock).me();
    expect(me.partnerId).toBe("p-loop");
    expect(meCalls).toBe(2);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(1000);
  });

  it("reads a list with its response headers", async () => {
    const { data, response } = await client().sites.list().withResponse();
    expect(data).toEqual([{ siteId: 1, name: "One", homeUrl: null, live: true }]);
    expect(response.headers.get("x-ratelimit-remaining")).toBe("99");
  });

  it("does not follow a redirect to another origin", async () => {
    const error = await client()
      .orders.get(1)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(302);
    expect(elsewhere).toEqual([]);
    expect(seen.filter((s) => s === "GET /v1/orders/1")).toHaveLength(1);
  });
});
