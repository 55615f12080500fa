import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "../../../src/core/http/retry";
import { harness } from "../../support/client";
import { json, problem } from "../../support/fake-server";
import {
  completedSubmission,
  orderRequest,
  submission,
  submissionId,
} from "../../support/fixtures";

const now = Date.UTC(2030, 0, 1, 0, 0, 0);
const read = (value: string) => parseRetryAfter(new Headers({ "retry-after": value }), now);

// RFC 9110 10.2.3: Retry-After is delta-seconds (digits only) or an HTTP-date. Anything else is not
// a hint at all; `Date.parse` must not make a date of it ("-5" is a date in 2001).
describe("parseRetryAfter", () => {
  it.each([
    "-5",
    "2, 3",
    "1.5",
    "+3",
    "0x10",
    "1e3",
    "5 s",
    "soon",
    "2030-01-01T00:00:10Z",
    "Tue, 01 Jan 2030 00:00:10 +0000",
    "Tue, 01 Jan 2030 00:00:10",
    "tue, 01 jan 2030 00:00:10 gmt",
    "Tue, 32 Jan 2030 00:00:10 GMT",
    "Tue, 01 Jan 2030 24:00:10 GMT",
    "Fri, 30 Feb 2029 00:00:10 GMT",
    "01/01/2030",
  ])("ignores the malformed %j", (value) => {
    expect(read(value)).toBeNull();
  });

  it.each([
    ["0", 0],
    ["7", 7],
    ["007", 7],
    ["Tue, 01 Jan 2030 00:00:10 GMT", 10],
    ["Tuesday, 01-Jan-30 00:00:10 GMT", 10],
    ["Tue Jan  1 00:00:10 2030", 10],
    ["Mon, 31 Dec 2029 23:59:00 GMT", 0],
  ])("reads %j as %d seconds", (value, seconds) => {
    expect(read(value)).toBe(seconds);
  });
});

describe("a malformed Retry-After from the service", () => {
  it("on a 503 falls back to the normal backoff (about 1 s), not a 150 ms retry", async () => {
    const { client, server, clock } = harness();
    server.on(
      "GET /v1/orders/5",
      () => problem(503, "service_unavailable", {}, { "retry-after": "-5" }),
      () =>
        json({ orderNumber: 5, totals: { item: null, shipping: null, tax: null, order: null } }),
    );
    await client.orders.get(5);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(1_000);
  });

  it("on a 429 falls back to the normal backoff", async () => {
    const { client, server, clock } = harness();
    server.on(
      "GET /v1/orders/5",
      () => problem(429, "rate_limit_exceeded", {}, { "retry-after": "2, 3" }),
      () =>
        json({ orderNumber: 5, totals: { item: null, shipping: null, tax: null, order: null } }),
    );
    await client.orders.get(5);
    expect(clock.sleeps).toHaveLength(1);
    expect(clock.sleeps[0]).toBeGreaterThanOrEqual(1_000);
  });

  it("on a submission poll uses the 2 s default interval", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, {
        location: `/v1/orders/submissions/${submissionId}`,
        "retry-after": "-5",
      }),
    );
    server.on(`GET /v1/orders/submissions/${submissionId}`, () => json(completedSubmission()));
    await client.submitOrderAndWait(orderRequest());
    expect(clock.sleeps).toEqual([2_000]);
  });
});
