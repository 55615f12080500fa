import { describe, expect, it } from "vitest";
import { APITimeoutError, SubmissionTimeoutError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { stall } from "../../support/fake-server";
import { orderRequest } from "../../support/fixtures";

// The wait for a token is part of the attempt: a silent token endpoint (or a token function that
// never settles) is bounded by the call's timeoutMs and by a wait's deadline, not only by the
// client's timeoutMs (30 s here).
describe("waiting for a token", () => {
  it("is bounded by a per-call timeoutMs", { timeout: 2_000 }, async () => {
    const { client, server, clock } = harness({ timeoutMs: 30_000, maxRetries: 0 });
    server.on("POST /oauth2/token", stall(clock));
    expect(await rejection(client.me({ timeoutMs: 20 }))).toBeInstanceOf(APITimeoutError);
    expect(server.to("GET /v1/me")).toHaveLength(0);
  });

  it("is bounded by the deadline of submitOrderAndWait (API.md: the deadline bounds everything)", {
    timeout: 2_000,
  }, async () => {
    const { client, server, clock } = harness({ timeoutMs: 30_000 });
    server.on("POST /oauth2/token", stall(clock));
    const error = await rejection(client.submitOrderAndWait(orderRequest(), { timeoutMs: 50 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect(server.to("POST /v1/orders")).toHaveLength(0);
  });

  it("from an accessToken function that never settles is bounded too", {
    timeout: 2_000,
  }, async () => {
    const { client, server, clock } = harness({
      clientId: undefined,
      clientSecret: undefined,
      accessToken: () => new Promise<string>(() => {}),
      maxRetries: 0,
    });
    const call = rejection(client.me({ timeoutMs: 20 }));
    await clock.runNextTimerWhenSet();
    expect(await call).toBeInstanceOf(APITimeoutError);
    expect(server.apiRequests).toHaveLength(0);
  });
});
