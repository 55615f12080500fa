import { describe, expect, it, vi } from "vitest";
import { detectRuntime, sdkVersion, userAgent, withUserAgent } from "../../src/core/user-agent";

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
});

describe("User-Agent on requests", () => {
  async function sentAgent(agent: string | undefined, given?: string): Promise<string | null> {
    let seen: string | null = "not sent";
    const fetchFn = withUserAgent(async (request) => {
      seen = request.headers.get("user-agent");
      return new Response("{}");
    }, agent);
    const headers: Record<string, string> = given ? { "user-agent": given } : {};
    await fetchFn(new Request("https://api.example.test/v1/sites", { headers }));
    return seen;
  }

  it("is the SDK's alone when the partner gives none", async () => {
    expect(await sentAgent("partner-orders/1.2.3 (node/20.11.1)")).toBe(
      "partner-orders/1.2.3 (node/20.11.1)",
    );
  });

  it("a partner's User-Agent follows the SDK's, one space between", async () => {
    expect(await sentAgent("partner-orders/1.2.3 (node/20.11.1)", "my-app/2")).toBe(
      "partner-orders/1.2.3 (node/20.11.1) my-app/2",
    );
  });

  it("in a browser the request is sent as given, through the same fetch", async () => {
    vi.stubGlobal("window", {});
    vi.stubGlobal("document", {});
    try {
      const fetchFn = async () => new Response("{}");
      expect(withUserAgent(fetchFn)).toBe(fetchFn);
      expect(await sentAgent(undefined, "my-app/2")).toBe("my-app/2");
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
