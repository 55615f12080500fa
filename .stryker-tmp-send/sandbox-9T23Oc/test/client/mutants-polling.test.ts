// @ts-nocheck
import { describe, expect, it } from "vitest";
import { SubmissionTimeoutError } from "../../src/core/errors";
import { harness, rejection } from "../support/client";
import { json } from "../support/fake-server";
import { completedSubmission, orderRequest, submission, submissionId } from "../support/fixtures";

const pollPath = `/v1/orders/submissions/${submissionId}`;
const pollRoute = `GET ${pollPath}`;

describe("the pace of a wait", () => {
  it("a Retry-After of 0 still leaves 250 ms between polls: no poll loop spins", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, { location: pollPath, "retry-after": "0" }),
    );
    server.on(pollRoute, () => json(completedSubmission()));
    await client.submitOrderAndWait(orderRequest());
    expect(clock.sleeps).toEqual([250]);
  });

  it("the time a wait lasted is given in whole milliseconds", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, { location: pollPath, "retry-after": "2" }),
    );
    server.on(pollRoute, () =>
      json(submission("processing"), 200, { location: pollPath, "retry-after": "2" }),
    );
    const error = await rejection(
      // The host's monotonic clock has fractions of a millisecond.
      client.submitOrderAndWait(orderRequest(), {
        timeoutMs: 5000,
        onPoll: () => clock.advance(0.4),
      }),
    );
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect((error as Error).message).toContain("still processing after 4001 ms");
  });
});
