// @ts-nocheck
import { request } from "node:http";
import { createSandbox, type Listener } from "partner-orders/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tokenFor } from "./helpers";

/**
 * Methods no route has get the 405 `method_not_allowed` problem document with `Allow`, over real
 * HTTP, TRACE included: Fetch cannot even build a TRACE request, so node:http sends these.
 */
const sandbox = createSandbox();
let listener: Listener;
let token: string;
beforeAll(async () => {
  listener = await sandbox.listen();
  token = await tokenFor(sandbox);
});
afterAll(() => sandbox.close());

function send(method: string, path: string, authorization?: string) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request(`${listener.url}${path}`, {
        method,
        headers: authorization ? { authorization } : {},
      });
      req.on("response", (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end();
    },
  );
}

describe("methods no route has, over real HTTP", () => {
  it.each(["TRACE", "PROPFIND", "PURGE", "DELETE"])(
    "%s /v1/orders is answered 405 method_not_allowed, not a closed connection",
    async (method) => {
      const { status, headers, body } = await send(method, "/v1/orders", `Bearer ${token}`);
      expect(status).toBe(405);
      expect(headers["content-type"]).toBe("application/problem+json");
      expect(headers.allow).toBe("GET, POST");
      expect(JSON.parse(body)).toMatchObject({
        type: "about:blank",
        status: 405,
        code: "method_not_allowed",
      });
      expect(sandbox.requests.at(-1)).toMatchObject({ method, path: "/v1/orders", status: 405 });
    },
  );

  it("authenticates first: TRACE without a credential is the gateway's 401", async () => {
    const { status, body } = await send("TRACE", "/v1/orders");
    expect(status).toBe(401);
    expect(JSON.parse(body).code).toBe("invalid_token");
  });

  it("answers TRACE on a path that does not exist with 404", async () => {
    const { status } = await send("TRACE", "/v1/nowhere", `Bearer ${token}`);
    expect(status).toBe(404);
  });
});
