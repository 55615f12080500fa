import { describe, expect, it } from "vitest";
import { ClientCredentialsTokenSource } from "../../../src/core/auth";
import { AuthenticationError } from "../../../src/core/errors";
import { createLog } from "../../../src/core/logger";
import { resolveOptions } from "../../../src/core/options";
import { harness, rejection } from "../../support/client";
import { FakeClock } from "../../support/fake-clock";
import { baseUrl, FakeServer, json } from "../../support/fake-server";
import { me } from "../../support/fixtures";
import { httpOver } from "../../support/http";

/** Token-request behaviour that mutation testing of src/core/auth.ts found unpinned. */

function minting(expiresIn?: number) {
  const h = harness();
  let minted = 0;
  h.server.on("POST /oauth2/token", () =>
    json({ access_token: `token-${++minted}`, ...(expiresIn ? { expires_in: expiresIn } : {}) }),
  );
  h.server.on("GET /v1/me", () => json(me));
  return h;
}

describe("the token request", () => {
  it("asks for no scope when none is configured (the client's full grant)", async () => {
    const { client, server } = minting(3600);
    await client.me();
    expect(new URLSearchParams(server.at(0, "POST /oauth2/token").body).has("scope")).toBe(false);
  });

  it("goes to /oauth2/token under a baseUrl with a path, whether or not it ends with /", async () => {
    for (const base of [`${baseUrl}/partner/`, `${baseUrl}/partner`]) {
      const server = new FakeServer();
      server.on("POST /partner/oauth2/token", () => json({ access_token: "t", expires_in: 3600 }));
      server.on("GET /partner/v1/me", () => json(me));
      const { client } = harness({ baseUrl: base, fetch: server.fetch });
      await client.me();
      expect(server.to("POST /partner/oauth2/token"), base).toHaveLength(1);
    }
  });
});

describe("token lifetime", () => {
  it("a token answer without expires_in is taken to live 3600 s (renewed 360 s before)", async () => {
    const { client, server, clock } = minting();
    await client.me();
    clock.advance(3_240_000 - 1);
    await client.me();
    expect(server.tokenRequests).toHaveLength(1);
    clock.advance(1);
    await client.me();
    expect(server.tokenRequests).toHaveLength(2);
  });

  it("renewal starts exactly at expiry minus the margin, not a millisecond later", async () => {
    const { client, server, clock } = minting(3600);
    await client.me();
    clock.advance(3_240_000);
    await client.me();
    expect(server.tokenRequests).toHaveLength(2);
  });

  it("a token living exactly the 60 s margin is renewed at half-life, not on every call", async () => {
    const { client, server, clock } = minting(60);
    await client.me();
    clock.advance(29_999);
    await client.me();
    expect(server.tokenRequests).toHaveLength(1);
    clock.advance(1);
    await client.me();
    expect(server.tokenRequests).toHaveLength(2);
  });
});

describe("a refused token", () => {
  it("forgetting a token other than the cached one keeps the cached one", async () => {
    const server = new FakeServer();
    const source = new ClientCredentialsTokenSource(
      resolveOptions({ baseUrl, clientId: "id", clientSecret: "secret" }),
      httpOver(server.fetch),
      new FakeClock(),
      createLog(undefined, "off"),
    );
    expect(await source.get()).toBe("token-1");
    // A late 401 for a token already replaced must not throw away the current one.
    expect(source.invalidate("token-0")).toBe(true);
    expect(await source.get()).toBe("token-1");
    expect(server.tokenRequests).toHaveLength(1);
    source.invalidate("token-1");
    expect(await source.get()).toBe("token-2");
  });
});

describe("token endpoint errors in RFC 6749 form", () => {
  it("carry error as the code and error_description as the detail", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /oauth2/token", () =>
      json({ error: "invalid_client", error_description: "Unknown client." }, 401),
    );
    const error = (await rejection(client.me())) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBe("invalid_client");
    expect(error.title).toBe("invalid_client");
    expect(error.detail).toBe("Unknown client.");
    expect(error.problem).toMatchObject({ type: "about:blank", status: 401 });
    expect(error.message).toContain("POST /oauth2/token");
  });

  it.each([
    ["without error_description", {}],
    ["with an error_description that is not text", { error_description: 42 }],
  ])("%s, an empty detail", async (_, extra) => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /oauth2/token", () => json({ error: "invalid_client", ...extra }, 401));
    const error = (await rejection(client.me())) as AuthenticationError;
    expect(error.code).toBe("invalid_client");
    expect(error.detail).toBe("");
  });

  it("a problem document without a code keeps its title and detail", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /oauth2/token", () =>
      json({ type: "about:blank", title: "Unauthorized", status: 401, detail: "Expired." }, 401),
    );
    const error = (await rejection(client.me())) as AuthenticationError;
    expect(error.title).toBe("Unauthorized");
    expect(error.detail).toBe("Expired.");
  });

  it("a JSON body that is neither form is no problem document: no code, no problem", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /oauth2/token", () => json({ message: "nope" }, 401));
    const error = (await rejection(client.me())) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.code).toBeUndefined();
    expect(error.problem).toBeUndefined();
  });

  it("a problem document that also has an error field keeps its own code and detail", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /oauth2/token", () =>
      json(
        {
          type: "about:blank",
          title: "Unauthorized",
          status: 401,
          code: "invalid_token",
          detail: "Problem detail.",
          error: "invalid_client",
          error_description: "RFC detail.",
        },
        401,
      ),
    );
    const error = (await rejection(client.me())) as AuthenticationError;
    expect(error.code).toBe("invalid_token");
    expect(error.detail).toBe("Problem detail.");
  });

  it("a problem document without an error field is read as it is", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("POST /oauth2/token", () =>
      json(
        { type: "about:blank", title: "Unauthorized", status: 401, code: "x", detail: "d" },
        401,
      ),
    );
    const error = (await rejection(client.me())) as AuthenticationError;
    expect(error.code).toBe("x");
    expect(error.detail).toBe("d");
  });
});
