import { describe, expect, it } from "vitest";
import {
  addressesOf,
  decodeSafely,
  fromNode,
  json,
  page,
  SECURITY_HEADERS,
} from "../../../src/sync/status-page/http";

/** The status page's request and answer shapes, whichever adapter is in use. */
describe("the status page's HTTP parts", () => {
  it("answers under the strict headers: no inline script or style, no framing, no caching", () => {
    expect(SECURITY_HEADERS).toEqual({
      "content-security-policy":
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "cache-control": "no-store",
    });
    expect(page("text/css", "b{}")).toEqual({
      status: 200,
      headers: { ...SECURITY_HEADERS, "content-type": "text/css" },
      body: "b{}",
    });
    expect(page("text/html", "x", 503).status).toBe(503);
    expect(json(404, { error: "e" })).toEqual({
      status: 404,
      headers: { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" },
      body: '{"error":"e"}',
    });
    expect(json(405, {}, { allow: "GET" }).headers.allow).toBe("GET");
  });

  it("reads a Node request: its path, headers, addresses, and whether a proxy forwarded it", () => {
    const raw = {
      method: "GET",
      url: "/status.json?q=1",
      headers: { host: "localhost:8080", accept: ["a", "b"] },
      socket: { remoteAddress: "::1", localAddress: "127.0.0.1" },
    };
    const request = fromNode(raw);
    expect(request.method).toBe("GET");
    expect(request.url.pathname).toBe("/status.json");
    expect(request.url.search).toBe("?q=1");
    expect(request.header("accept")).toBe("a, b");
    expect(request.header("host")).toBe("localhost:8080");
    expect(request.header("authorization")).toBeUndefined();
    expect(request.addresses).toEqual({
      remote: "::1",
      local: "127.0.0.1",
      host: "localhost:8080",
      forwarded: false,
    });
    expect(request.originalPath).toBeUndefined();
    expect(request.raw).toBe(raw);
    for (const header of ["forwarded", "x-forwarded-for"]) {
      expect(fromNode({ headers: { [header]: "for=1.2.3.4" } }).addresses.forwarded, header).toBe(
        true,
      );
    }
  });

  it("takes a missing URL as /, one that does not parse as no page, and no socket as unknown", () => {
    const bare = fromNode({ headers: {} });
    expect(bare.url.pathname).toBe("/");
    expect(bare.addresses).toEqual({
      remote: undefined,
      local: undefined,
      host: undefined,
      forwarded: false,
    });
    expect(fromNode({ url: "//", headers: {}, socket: null }).url.pathname).toBe("/invalid-path");
  });

  it("keeps Express's full path only when it differs from the path under the mount", () => {
    expect(
      fromNode({ url: "/?x=1", originalUrl: "/ops/status?x=1", headers: {} }).originalPath,
    ).toBe("/ops/status");
    expect(
      fromNode({ url: "/a?x=1", originalUrl: "/a?y=2", headers: {} }).originalPath,
    ).toBeUndefined();
    expect(fromNode({ originalUrl: "/ops", headers: {} }).originalPath).toBe("/ops");
  });

  it("finds where a Fetch request came from in what the server passes after it", () => {
    const none = { remote: undefined, local: undefined };
    // Nothing found: both addresses named, each undefined.
    expect(addressesOf([])).toStrictEqual(none);
    expect(addressesOf([null, "text", 7, {}])).toEqual(none);
    expect(addressesOf([{ remoteAddress: "::1", localAddress: "::1" }])).toEqual({
      remote: "::1",
      local: "::1",
    });
    expect(addressesOf([{ remoteAddress: "::1" }])).toEqual({ remote: "::1", local: undefined });
    // Hono on Node: env.incoming.socket.
    expect(
      addressesOf([
        { incoming: { socket: { remoteAddress: "10.0.0.1", localAddress: "10.0.0.2" } } },
      ]),
    ).toEqual({ remote: "10.0.0.1", local: "10.0.0.2" });
    // Deno: info.remoteAddr.hostname; the listening address is not given.
    expect(addressesOf([{ remoteAddr: { hostname: "127.0.0.1" } }])).toEqual({
      remote: "127.0.0.1",
      local: undefined,
    });
    expect(addressesOf([{ remoteAddr: {} }, { remoteAddress: "192.0.2.1" }])).toEqual({
      remote: "192.0.2.1",
      local: undefined,
    });
    expect(addressesOf([{ remoteAddress: 5, incoming: {} }])).toEqual(none);
  });

  it("decodes a path segment, and keeps one that does not decode as it is", () => {
    expect(decodeSafely("st%61tus")).toBe("status");
    expect(decodeSafely("%E0%A4%A")).toBe("%E0%A4%A");
  });
});
