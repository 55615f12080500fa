import { describe, expect, it } from "vitest";
import { EdgeFirewallError, ServiceUnavailableError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { problem } from "../../support/fake-server";

// API document, GET /v1/ping: "Response shape of GET /v1/ping: not shown", so any 2xx is alive.
describe("ping()", () => {
  it.each([
    ["a plain-text body", () => new Response("OK", { headers: { "content-type": "text/plain" } })],
    [
      "an HTML body",
      () => new Response("<html>up</html>", { headers: { "content-type": "text/html" } }),
    ],
    ["no body", () => new Response(null, { status: 204 })],
    ["a JSON body", () => Response.json({ status: "ok" })],
  ])("resolves to undefined on a 2xx with %s", async (_, answer) => {
    const { client, server } = harness();
    server.on("GET /v1/ping", answer);
    await expect(client.ping()).resolves.toBeUndefined();
    const { data, response } = await client.ping().withResponse();
    expect(data).toBeUndefined();
    expect(response.ok).toBe(true);
  });

  it("throws on failure: the edge firewall's bodiless 403, a 503 once retries are used up", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on(
      "GET /v1/ping",
      () => new Response(null, { status: 403 }),
      () => problem(503, "service_unavailable"),
    );
    expect(await rejection(client.ping())).toBeInstanceOf(EdgeFirewallError);
    expect(await rejection(client.ping())).toBeInstanceOf(ServiceUnavailableError);
  });
});
