import { describe, expect, it } from "vitest";
import type { APIError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { json } from "../../support/fake-server";
import { orderRequest } from "../../support/fixtures";

// API.md, Safety: no secret in any error, message or stack, even when a hostile or careless server
// echoes one back in its error text.
const clientId = "client-id";
const secret = "S3cr3t/Plant+ed= &x";
const token = "tok/EN+planted=456";
const basic = btoa(
  `${encodeURIComponent(clientId)}:${encodeURIComponent(secret).replace(/%20/g, "+")}`,
);
const forms = [
  secret,
  encodeURIComponent(secret),
  encodeURIComponent(secret).replace(/%20/g, "+"),
  basic,
  token,
  encodeURIComponent(token),
];
const echo = forms.join(" | ");

function problemEcho(status: number, code: string): Response {
  return json(
    {
      type: "about:blank",
      title: `title ${echo}`,
      status,
      code,
      detail: `detail ${echo}`,
      requestId: "req-1",
      extra: { nested: [`member ${echo}`] },
    },
    status,
  );
}

function renderings(error: unknown): string {
  const e = error as APIError;
  return [
    String(e),
    e.message,
    e.stack ?? "",
    e.detail ?? "",
    e.title ?? "",
    JSON.stringify(e.problem ?? null),
  ].join("\n");
}

describe("a server that echoes secrets in its error text", () => {
  it("token endpoint error_description: every form, the previous token's included, redacted", async () => {
    const { client, server, clock } = harness({ clientId, clientSecret: secret, maxRetries: 0 });
    server.on(
      "POST /oauth2/token",
      () => json({ access_token: token, expires_in: 3600 }),
      () => json({ error: "invalid_client", error_description: `bad ${echo}` }, 401),
    );
    server.on("GET /v1/me", () => json({}));
    await client.me();
    clock.advance(3600 * 1000);
    const error = await rejection(client.me());
    const text = renderings(error);
    for (const form of forms) expect(text).not.toContain(form);
    expect((error as APIError).detail).toContain("[redacted]");
  });

  it("API problem document: the access token and the credential forms are redacted", async () => {
    const { client, server } = harness({ clientId, clientSecret: secret, maxRetries: 0 });
    server.on("POST /oauth2/token", () => json({ access_token: token, expires_in: 3600 }));
    server.on("GET /v1/orders/5", () => problemEcho(404, "order_not_found"));
    const error = await rejection(client.orders.get(5));
    const text = renderings(error);
    for (const form of forms) expect(text).not.toContain(form);
    expect((error as APIError).message).toContain("[redacted]");
    expect(JSON.stringify((error as APIError).problem)).toContain("member [redacted]");
  });

  it("a token given as accessToken is redacted too", async () => {
    const { client, server } = harness({
      clientId: undefined,
      clientSecret: undefined,
      accessToken: token,
      maxRetries: 0,
    });
    server.on("GET /v1/orders/5", () => problemEcho(404, "order_not_found"));
    const error = await rejection(client.orders.get(5));
    expect(renderings(error)).not.toContain(token);
  });

  it("a 5 MB detail is cut to about 1,000 characters in the message", async () => {
    const { client, server } = harness({ maxRetries: 0 });
    server.on("GET /v1/orders/5", () =>
      json({ code: "order_not_found", title: "Not Found", detail: "x".repeat(5_000_000) }, 404),
    );
    const error = await rejection(client.orders.get(5));
    expect((error as Error).message.length).toBeLessThan(1_200);
    expect((error as Error).message).toContain("…");
  });
});

describe("a refused Location that echoes the access token", () => {
  it("is redacted in the SubmissionLocationError", async () => {
    const { client, server } = harness({ clientId, clientSecret: secret });
    server.on("POST /oauth2/token", () => json({ access_token: token, expires_in: 3600 }));
    server.on("POST /v1/orders", () =>
      json({ submissionId: `id-${token}`, status: "queued" }, 201, {
        location: `https://evil.test/${token}`,
      }),
    );
    const error = await rejection(client.submitOrderAndWait(orderRequest()));
    const text = renderings(error);
    expect(text).not.toContain(token);
    expect(text).toContain("[redacted]");
  });
});

describe("a retried answer with a huge code", () => {
  it("keeps the retry log line bounded", async () => {
    const lines: string[] = [];
    const push = (...args: unknown[]) => lines.push(JSON.stringify(args));
    const { client, server } = harness({
      logger: { debug: push, info: push, warn: push, error: push },
      logLevel: "debug",
    });
    server.on(
      "GET /v1/me",
      () => json({ code: "c".repeat(5_000_000), title: "Unavailable" }, 503),
      () => json({}),
    );
    await client.me();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.length).toBeLessThan(2_000);
  });
});
