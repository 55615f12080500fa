import { describe, expect, it } from "vitest";
import { PartnerOrders } from "../../../src/client";
import { PartnerOrdersError } from "../../../src/core/errors";
import { isolateClientEnv } from "../../support/env";
import { FakeServer, json } from "../../support/fake-server";

isolateClientEnv();

function construct(options: ConstructorParameters<typeof PartnerOrders>[0]): unknown {
  try {
    new PartnerOrders(options);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("client options", () => {
  it("refuses a client without baseUrl", () => {
    const error = construct({ clientId: "id", clientSecret: "s" });
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toMatch(/baseUrl/);
  });

  it("reads baseUrl, clientId and clientSecret from the environment", async () => {
    process.env.PARTNER_ORDERS_BASE_URL = "https://env.test";
    process.env.PARTNER_ORDERS_CLIENT_ID = "env-id";
    process.env.PARTNER_ORDERS_CLIENT_SECRET = "env-secret";
    const seen: string[] = [];
    const client = new PartnerOrders({
      fetch: (async (request: Request) => {
        seen.push(`${request.method} ${request.url}`);
        if (request.url.endsWith("/oauth2/token")) {
          expect(atob((request.headers.get("authorization") ?? "").slice(6))).toBe(
            "env-id:env-secret",
          );
          return json({ access_token: "t", expires_in: 3600 });
        }
        return json({ sites: [] });
      }) as typeof fetch,
    });
    await client.sites.list();
    expect(seen).toEqual(["POST https://env.test/oauth2/token", "GET https://env.test/v1/sites"]);
  });

  it("refuses http: to a host that is not loopback", () => {
    const error = construct({ baseUrl: "http://api.example.com", accessToken: "t" });
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toMatch(/https/);
  });

  it.each(["http://127.0.0.1:8080", "http://localhost:3000"])(
    "accepts loopback %s",
    async (url) => {
      const server = new FakeServer(new URL(url).origin).on("GET /v1/sites", () =>
        json({ sites: [] }),
      );
      const client = new PartnerOrders({ baseUrl: url, accessToken: "t", fetch: server.fetch });
      await client.sites.list();
      expect(server.at(0).url.origin).toBe(new URL(url).origin);
    },
  );

  it("refuses a client with no credential at all", () => {
    const error = construct({ baseUrl: "https://api.test" });
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect((error as Error).message).toMatch(/credential/i);
  });

  it("refuses a secret without an id, and never repeats the secret", () => {
    const error = construct({ baseUrl: "https://api.test", clientSecret: "SECRET-PLANTED-123" });
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(String(error)).not.toContain("SECRET-PLANTED-123");
    expect((error as Error).stack ?? "").not.toContain("SECRET-PLANTED-123");
  });

  it("does not echo a secret placed in the baseUrl", () => {
    const error = construct({
      baseUrl: "http://user:SECRET-PLANTED-123@api.example.com",
      accessToken: "t",
    });
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(String(error)).not.toContain("SECRET-PLANTED-123");
  });
});
