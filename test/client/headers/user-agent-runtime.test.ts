import { describe, expect, it, vi } from "vitest";
import { PartnerOrders } from "../../../src/client";
import { builtVersion, detectRuntime, sdkVersion, userAgent } from "../../../src/core/user-agent";

describe("runtime named in the User-Agent", () => {
  it("a Bun or Deno global without a version string is not taken for that runtime", () => {
    const node = { process: { versions: { node: "20.11.1" } } };
    expect(detectRuntime({ ...node, Bun: {} })).toBe("node/20.11.1");
    expect(detectRuntime({ ...node, Deno: { version: {} } })).toBe("node/20.11.1");
    expect(detectRuntime({ ...node, Deno: {} })).toBe("node/20.11.1");
  });

  it("a window without a document (a worker shim) still gets the SDK's User-Agent", () => {
    const globals = { window: {}, process: { versions: { node: "20.11.1" } } };
    expect(userAgent(globals)).toBe(`partner-orders/${sdkVersion} (node/20.11.1)`);
    expect(userAgent({ document: {} })).toBe(`partner-orders/${sdkVersion} (unknown)`);
  });

  it("the package version is the one built in", () => {
    expect(sdkVersion).not.toBe("0.0.0-dev");
    expect(sdkVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("source run without the built-in version (tsx) says 0.0.0-dev instead of failing", () => {
    expect(builtVersion(() => "1.4.0")).toBe("1.4.0");
    expect(builtVersion(() => undefined)).toBe("0.0.0-dev");
    const notDefined = () => {
      throw new ReferenceError("__PARTNER_ORDERS_VERSION__ is not defined");
    };
    expect(builtVersion(notDefined)).toBe("0.0.0-dev");
  });
});

describe("User-Agent on requests", () => {
  async function sentAgent(given?: string): Promise<string | null> {
    let seen: string | null = "not sent";
    const client = new PartnerOrders({
      baseUrl: "https://api.example.test",
      accessToken: "t",
      fetch: async (input, init) => {
        seen = new Request(input, init).headers.get("user-agent");
        return new Response(JSON.stringify({ sites: [] }), {
          headers: { "content-type": "application/json" },
        });
      },
      ...(given ? { defaultHeaders: { "user-agent": given } } : {}),
    });
    await client.sites.list();
    return seen;
  }

  it("is the SDK's alone when the partner gives none", async () => {
    expect(await sentAgent()).toBe(userAgent());
  });

  it("a partner's User-Agent follows the SDK's, one space between", async () => {
    expect(await sentAgent("my-app/2")).toBe(`${userAgent()} my-app/2`);
  });

  it("in a browser the request is sent with the partner's own User-Agent only", async () => {
    vi.stubGlobal("window", {});
    vi.stubGlobal("document", {});
    try {
      expect(await sentAgent("my-app/2")).toBe("my-app/2");
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
