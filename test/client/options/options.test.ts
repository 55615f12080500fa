import { describe, expect, it, vi } from "vitest";
import { PartnerOrders } from "../../../src/client";
import { PartnerOrdersError } from "../../../src/core/errors";
import { defaultRetryPolicy } from "../../../src/core/http/policy";
import {
  type ClientOptions,
  checkOverrides,
  env,
  resolveOptions,
  resolveTuning,
} from "../../../src/core/options";
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

isolateClientEnv();

const baseUrl = "https://api.example.test";
const credential = { clientId: "id", clientSecret: "secret" };

/** The message `resolveOptions(options)` fails with, checked to be the SDK's typed error. */
function refusal(options: ClientOptions): string {
  try {
    resolveOptions(options);
  } catch (error) {
    expect(error).toBeInstanceOf(PartnerOrdersError);
    return (error as Error).message;
  }
  throw new Error("expected the options to be refused");
}

describe("baseUrl", () => {
  it("missing or empty, the message says where to put it", () => {
    const message = "No baseUrl: pass { baseUrl } or set PARTNER_ORDERS_BASE_URL.";
    expect(refusal({ ...credential })).toBe(message);
    process.env.PARTNER_ORDERS_BASE_URL = "";
    expect(refusal({ ...credential })).toBe(message);
  });

  it("an empty environment variable counts as unset", () => {
    process.env.PARTNER_ORDERS_CLIENT_ID = "";
    expect(env("PARTNER_ORDERS_CLIENT_ID")).toBeUndefined();
    process.env.PARTNER_ORDERS_CLIENT_ID = "from-env";
    expect(env("PARTNER_ORDERS_CLIENT_ID")).toBe("from-env");
  });

  it("a runtime whose process has no env, or no process at all, reads no variable and still resolves", () => {
    // Bundlers for edge runtimes may leave a bare `process` shim; the SDK must not throw on it.
    for (const shim of [{ versions: {} }, undefined]) {
      vi.stubGlobal("process", shim);
      try {
        expect(env("PARTNER_ORDERS_CLIENT_ID")).toBeUndefined();
        expect(resolveOptions({ baseUrl, accessToken: "t" }).clientId).toBeUndefined();
      } finally {
        vi.unstubAllGlobals();
      }
    }
    expect(globalThis.process.env).toBeDefined();
  });

  it("not a URL is refused as such", () => {
    expect(refusal({ ...credential, baseUrl: "api.example.test" })).toBe(
      "baseUrl is not a valid absolute URL.",
    );
  });

  it.each([
    "http://127.0.0.1",
    "http://127.10.20.30:8080",
    "http://localhost:3000",
    "http://[::1]:3000",
  ])("http: to the loopback host %s is accepted", (url) => {
    expect(resolveOptions({ ...credential, baseUrl: url }).baseUrl.protocol).toBe("http:");
  });

  it.each(["http://127.0.0.1.example.test", "http://api.example.test"])(
    "http: to %s is refused",
    (url) => {
      expect(refusal({ ...credential, baseUrl: url })).toBe(
        "baseUrl must use https: (http: is accepted only for loopback hosts such as 127.0.0.1).",
      );
    },
  );

  it("a scheme other than https: is refused", () => {
    expect(refusal({ ...credential, baseUrl: "ftp://api.example.test" })).toBe(
      "baseUrl must use https:.",
    );
  });

  it.each(["https://user@api.example.test", "https://:pw@api.example.test"])(
    "credentials in %s are refused",
    (url) => {
      expect(refusal({ ...credential, baseUrl: url })).toBe(
        "baseUrl must not carry credentials; pass clientId and clientSecret instead.",
      );
    },
  );

  it("query and fragment are dropped; the path is kept", () => {
    const { baseUrl: url } = resolveOptions({
      ...credential,
      baseUrl: "https://api.example.test/partner/?x=1#top",
    });
    expect(url.href).toBe("https://api.example.test/partner/");
  });
});

describe("credentials", () => {
  it("none at all names the three kinds", () => {
    expect(refusal({ baseUrl })).toBe(
      "No credential: pass { clientId, clientSecret } (or set PARTNER_ORDERS_CLIENT_ID and " +
        "PARTNER_ORDERS_CLIENT_SECRET), { accessToken }, or { mtls }.",
    );
  });

  it("an id without a secret, or a secret without an id, names the missing one", () => {
    expect(refusal({ baseUrl, clientId: "id" })).toBe("clientSecret is missing.");
    expect(refusal({ baseUrl, clientSecret: "s" })).toBe("clientId is missing.");
  });

  it("id and secret are read from the environment", () => {
    process.env.PARTNER_ORDERS_CLIENT_ID = "env-id";
    process.env.PARTNER_ORDERS_CLIENT_SECRET = "env-secret";
    const resolved = resolveOptions({ baseUrl });
    expect([resolved.clientId, resolved.clientSecret]).toEqual(["env-id", "env-secret"]);
  });

  it("an access token alone, or mTLS alone, is enough", () => {
    expect(resolveOptions({ baseUrl, accessToken: "t" }).accessToken).toBe("t");
    const mtls = { cert: "c", key: "k" };
    expect(resolveOptions({ baseUrl, mtls }).mtls).toBe(mtls);
    expect(resolveOptions({ baseUrl, mtls, clientId: "id" }).clientId).toBe("id");
  });

  it("mTLS with an access token or a client secret is refused", () => {
    const message =
      "mtls is a credential of its own: do not combine it with accessToken or clientSecret.";
    const mtls = { cert: "c", key: "k" };
    expect(refusal({ baseUrl, mtls, accessToken: "t" })).toBe(message);
    expect(refusal({ baseUrl, mtls, clientSecret: "s" })).toBe(message);
  });

  it("scopes get the partner-api/ prefix once; Basic auth is the default", () => {
    const resolved = resolveOptions({
      ...credential,
      baseUrl,
      scopes: ["orders.read", "partner-api/orders.write"],
    });
    expect(resolved.scopes).toEqual(["partner-api/orders.read", "partner-api/orders.write"]);
    expect(resolved.tokenEndpointAuth).toBe("client_secret_basic");
    expect(resolveOptions({ ...credential, baseUrl }).scopes).toEqual([]);
    expect(
      resolveOptions({ ...credential, baseUrl, tokenEndpointAuth: "client_secret_post" })
        .tokenEndpointAuth,
    ).toBe("client_secret_post");
  });
});

describe("tuning", () => {
  it("defaults: 2 retries, 30 s timeout, no headers, the default retry policy with its budget", () => {
    const resolved = resolveOptions({ ...credential, baseUrl });
    expect(resolved.maxRetries).toBe(2);
    expect(resolved.timeoutMs).toBe(30_000);
    expect(resolved.defaultHeaders).toEqual({});
    expect(resolved.retry).toBe(defaultRetryPolicy);
    expect(resolved.retryBudget).toBeDefined();
    expect(
      resolveOptions({ ...credential, baseUrl, retry: { budget: false } }).retryBudget,
    ).toBeUndefined();
  });

  it.each([-1, 1.5, Number.NaN])("maxRetries %s is refused", (maxRetries) => {
    expect(refusal({ ...credential, baseUrl, maxRetries })).toBe(
      "maxRetries must be a whole number >= 0.",
    );
  });

  it("maxRetries 0 is accepted", () => {
    expect(resolveOptions({ ...credential, baseUrl, maxRetries: 0 }).maxRetries).toBe(0);
  });

  it.each([0, -5, Number.NaN, Number.POSITIVE_INFINITY])("timeoutMs %s is refused", (timeoutMs) => {
    expect(refusal({ ...credential, baseUrl, timeoutMs })).toBe(
      "timeoutMs must be a positive number.",
    );
  });

  it("derived tuning adds headers to the base's and keeps the rest", () => {
    const base = resolveOptions({ ...credential, baseUrl, defaultHeaders: { "X-A": "1" } });
    const derived = resolveTuning({ defaultHeaders: { "X-B": "2" } }, base);
    expect(derived.defaultHeaders).toEqual({ "x-a": "1", "x-b": "2" });
    expect(resolveTuning({}, base).defaultHeaders).toBe(base.defaultHeaders);
    expect(resolveTuning({ timeoutMs: 5 }, base)).toMatchObject({ timeoutMs: 5, maxRetries: 2 });
  });

  it("a client of its own may size its retry budget freely", () => {
    const resolved = resolveOptions({
      ...credential,
      baseUrl,
      retry: { budget: { capacity: 10 } },
    });
    expect(resolved.retry.budget).toMatchObject({ capacity: 10 });
    expect(resolved.retryBudget?.tokens).toBe(10);
  });

  it("a derived client may turn the shared retry budget off or restate it, not change it", () => {
    const base = resolveOptions({ ...credential, baseUrl });
    expect(resolveTuning({ retry: { budget: false } }, base).retry.budget).toBe(false);
    expect(
      resolveTuning({ retry: { budget: { capacity: 500 } } }, base).retry.budget,
    ).toMatchObject({ capacity: 500 });
    expect(() => resolveTuning({ retry: { budget: { capacity: 10 } } }, base)).toThrow(
      "withOptions() shares the retry budget: it can turn it off (budget: false), not change it.",
    );
  });

  it("withOptions names every option it cannot change", () => {
    expect(() => checkOverrides({ timeoutMs: 1, baseUrl: "x", clientId: "y" })).toThrow(
      "withOptions() cannot change baseUrl, clientId: create a new PartnerOrders for that.",
    );
    expect(() =>
      checkOverrides({
        maxRetries: 1,
        retry: {},
        timeoutMs: 1,
        logger: console,
        logLevel: "off",
        defaultHeaders: {},
      }),
    ).not.toThrow();
  });
});
