import { describe, expect, it } from "vitest";
import { harness } from "../../support/client";
import { json, problem } from "../../support/fake-server";
import {
  completedSubmission,
  orderRequest,
  submission,
  submissionId,
} from "../../support/fixtures";

/** RFC 9110 10.2.3: Retry-After is delta-seconds or an HTTP date; both read on the client's clock. */
const inSeconds = (clock: { now(): number }, seconds: number) =>
  new Date(clock.now() + seconds * 1000).toUTCString();

describe("Retry-After as an HTTP date", () => {
  it("spaces submission polls by the date's distance, not the 2 s default", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, {
        location: `/v1/orders/submissions/${submissionId}`,
        "retry-after": inSeconds(clock, 7),
      }),
    );
    server.on(`GET /v1/orders/submissions/${submissionId}`, () => json(completedSubmission()));
    const result = await client.submitOrderAndWait(orderRequest());
    expect(result.status).toBe("completed");
    expect(clock.sleeps).toEqual([7_000]);
  });

  it("waits at least the date's distance before retrying a 503", async () => {
    const { client, server, clock } = harness();
    let calls = 0;
    server.on("GET /v1/orders/5", () =>
      ++calls === 1
        ? problem(503, "service_unavailable", {}, { "retry-after": inSeconds(clock, 9) })
        : json({ orderNumber: 5, totals: { item: null, shipping: null, tax: null, order: null } }),
    );
    await client.orders.get(5);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(9_000);
  });
});
