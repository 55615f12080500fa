import { describe, expect, it } from "vitest";
import { APIConnectionError, APITimeoutError, AuthenticationError } from "../../src/core/errors";
import { harness, rejection } from "../support/client";
import { connectionRefused, json, raw, stall } from "../support/fake-server";
import { me } from "../support/fixtures";

/** A client whose token endpoint answers `answer` and whose GET /v1/me succeeds. */
function tokenAnswer(answer: () => Response) {
  const h = harness({ maxRetries: 0 });
  h.server.on("POST /oauth2/token", answer);
  h.server.on("GET /v1/me", () => json(me));
  return h;
}

describe("a token answer the client cannot use", () => {
  it.each([
    ["JSON null", "null"],
    ["a JSON string", '"token"'],
    ["a JSON array", '["token"]'],
    ["text that is not JSON", "access_token=t"],
    ["an empty access_token", '{"access_token":""}'],
    ["a numeric access_token", '{"access_token":5}'],
  ])("%s is an AuthenticationError saying the access_token is missing", async (_what, body) => {
    const { client } = tokenAnswer(() => raw(body, 200, { "content-type": "application/json" }));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).message).toBe(
      "POST /oauth2/token answered 200 without an access_token.",
    );
    expect((error as AuthenticationError).status).toBe(200);
    expect((error as AuthenticationError).path).toBe("/oauth2/token");
    expect((error as AuthenticationError).method).toBe("POST");
  });

  it.each([0, -1, "3600", null])("expires_in %j is refused with its own message", async (value) => {
    const { client } = tokenAnswer(() => json({ access_token: "t", expires_in: value }));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toBe(
      "POST /oauth2/token answered 200 with an expires_in that is not a positive number of seconds.",
    );
  });

  it("an RFC 6749 error without error_description has an empty detail", async () => {
    const { client } = tokenAnswer(() => json({ error: "invalid_client" }, 401));
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).problem).toEqual({
      type: "about:blank",
      title: "invalid_client",
      status: 401,
      code: "invalid_client",
      detail: "",
      requestId: "",
    });
  });

  it("several scopes are asked for in one space-separated scope", async () => {
    const h = harness({ scopes: ["orders.read", "orders.write"] });
    h.server.on("POST /oauth2/token", () => json({ access_token: "t", expires_in: 3600 }));
    h.server.on("GET /v1/me", () => json(me));
    await h.client.me();
    const form = new URLSearchParams(h.server.at(0, "POST /oauth2/token").body);
    expect(form.get("scope")).toBe("partner-api/orders.read partner-api/orders.write");
    expect(form.get("grant_type")).toBe("client_credentials");
  });
});

describe("the token request on the wire and when it fails", () => {
  it("asks for JSON", async () => {
    const { client, server } = tokenAnswer(() => json({ access_token: "t", expires_in: 3600 }));
    await client.me();
    expect(server.at(0, "POST /oauth2/token").headers.get("accept")).toBe("application/json");
  });

  it("a refused connection is a connection error naming the token endpoint, with its cause", async () => {
    const { client } = tokenAnswer(connectionRefused);
    const error = await rejection(client.me());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe(
      "POST /oauth2/token failed: could not reach the token endpoint.",
    );
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it("a token endpoint that never answers times out with the configured delay in the message", async () => {
    const h = harness({ timeoutMs: 25, maxRetries: 0 });
    h.server.on("POST /oauth2/token", stall(h.clock));
    const error = await rejection(h.client.me());
    expect(error).toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toBe("POST /oauth2/token timed out after 25 ms.");
  });
});

describe("a token endpoint that echoes the credential", () => {
  it("the Basic credential of the unencoded id and secret is redacted too", async () => {
    const raw64 = btoa("my id:my/secret");
    const h = harness({ clientId: "my id", clientSecret: "my/secret", maxRetries: 0 });
    h.server.on("POST /oauth2/token", () =>
      json({ error: "invalid_client", error_description: `bad credential ${raw64}` }, 401),
    );
    const error = await rejection(h.client.me());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).detail).toBe("bad credential [redacted]");
  });
});
