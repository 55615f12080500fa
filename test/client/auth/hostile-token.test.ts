import { describe, expect, it } from "vitest";
import { AuthenticationError, PartnerOrdersError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { json, raw } from "../../support/fake-server";

const me = { partnerId: "p1", siteIds: [12], authMethod: "client_credentials", scopes: [] };

describe("a token answer with a hostile expires_in", () => {
  it("1e308 is capped (24 h): one token serves many calls, renewed before a day has passed", async () => {
    const { client, server, clock } = harness();
    server.on("POST /oauth2/token", () => json({ access_token: "long", expires_in: 1e308 }));
    server.on("GET /v1/me", () => json(me));
    for (let i = 0; i < 5; i++) await client.me();
    expect(server.tokenRequests).toHaveLength(1);
    clock.advance(24 * 3600 * 1000);
    await client.me();
    expect(server.tokenRequests).toHaveLength(2);
  });

  it.each([
    ["negative", "-5"],
    ["zero", "0"],
    ["a string", '"3600"'],
    ["null", "null"],
    ["an object", "{}"],
  ])("%s is a typed error, and no call is sent with that token", async (_, value) => {
    const { client, server } = harness();
    server.on("POST /oauth2/token", () => raw(`{"access_token":"t","expires_in":${value}}`));
    server.on("GET /v1/me", () => json(me));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toContain("expires_in");
    expect(server.to("GET /v1/me")).toHaveLength(0);
  });

  it("absent still means the one-hour default", async () => {
    const { client, server, clock } = harness();
    server.on("POST /oauth2/token", () => json({ access_token: "t" }));
    server.on("GET /v1/me", () => json(me));
    await client.me();
    clock.advance(3000 * 1000);
    await client.me();
    expect(server.tokenRequests).toHaveLength(1);
  });
});

describe("a token answer without a usable access_token", () => {
  it.each([
    ["missing", "{}"],
    ["a number", '{"access_token":123,"expires_in":3600}'],
    ["null", '{"access_token":null,"expires_in":3600}'],
    ["empty", '{"access_token":"","expires_in":3600}'],
    ["not JSON", "<html>ok</html>"],
    ["JSON null", "null"],
    ["a JSON string", '"token"'],
  ])("%s is an AuthenticationError, never a token 'undefined'", async (_, body) => {
    const { client, server } = harness();
    server.on("POST /oauth2/token", () => raw(body));
    server.on("GET /v1/me", () => json(me));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(PartnerOrdersError);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(server.to("GET /v1/me")).toHaveLength(0);
  });
});
