import { describe, expect, it } from "vitest";
import { AuthenticationError, ServiceUnavailableError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { connectionRefused, json, problem, raw } from "../../support/fake-server";
import { me } from "../../support/fixtures";

const bearer = (request: { headers: Headers }) => request.headers.get("authorization");

describe("a failed renewal", () => {
  // One token of 3600 s, then a token endpoint that fails. The renewal window opens 360 s before
  // expiry; inside it the old token is still sent (API.md, Retries), past expiry it never is.
  function failingRenewal(failure: () => Response) {
    const h = harness({ maxRetries: 0 });
    h.server.on(
      "POST /oauth2/token",
      () => json({ access_token: "token-1", expires_in: 3600 }),
      failure,
    );
    h.server.on("GET /v1/me", () => json(me));
    return h;
  }

  it.each([
    ["a 503", () => problem(503, "service_unavailable"), ServiceUnavailableError],
    ["a refused connection", connectionRefused, Error],
  ])("after %s, an expired token is not sent: the call fails", async (_, failure, type) => {
    const { client, server, clock } = failingRenewal(failure);
    await client.me();
    clock.advance(3601 * 1000);
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(type);
    expect(server.tokenRequests).toHaveLength(2);
    expect(server.to("GET /v1/me").map(bearer)).toEqual(["Bearer token-1"]);
  });

  it("the last millisecond before expiry still uses the old token; expiry itself does not", async () => {
    const { client, server, clock } = failingRenewal(() => problem(503, "service_unavailable"));
    await client.me();
    clock.advance(3600 * 1000 - 1);
    await client.me();
    expect(server.to("GET /v1/me").map(bearer)).toEqual(["Bearer token-1", "Bearer token-1"]);
    clock.advance(1);
    expect(await rejection(client.me())).toBeInstanceOf(ServiceUnavailableError);
    expect(server.to("GET /v1/me")).toHaveLength(2);
  });

  it("once a renewal succeeds again, the new token is sent", async () => {
    const { client, server, clock } = failingRenewal(() => problem(503, "service_unavailable"));
    await client.me();
    clock.advance(3601 * 1000);
    await rejection(client.me());
    server.on("POST /oauth2/token", () => json({ access_token: "token-2", expires_in: 3600 }));
    await client.me();
    expect(server.to("GET /v1/me").map(bearer)).toEqual(["Bearer token-1", "Bearer token-2"]);
  });
});

describe("a token answer without a usable access_token", () => {
  it.each([
    ["no access_token", () => json({ token_type: "Bearer", expires_in: 3600 })],
    ["an empty access_token", () => json({ access_token: "", expires_in: 3600 })],
    ["a numeric access_token", () => json({ access_token: 42, expires_in: 3600 })],
    ["a null access_token", () => json({ access_token: null, expires_in: 3600 })],
    ["a body that is not JSON", () => raw("<html>ok</html>", 200, { "content-type": "text/html" })],
  ])("%s is an AuthenticationError, and no call is sent", async (_, answer) => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /oauth2/token", answer);
    server.on("GET /v1/me", () => json(me));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toContain("without an access_token");
    expect(server.to("GET /v1/me")).toHaveLength(0);
  });
});
