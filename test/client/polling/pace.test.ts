import { describe, expect, it } from "vitest";
import { APITimeoutError, SubmissionTimeoutError } from "../../../src/core/errors";
import type { Submission } from "../../../src/core/models";
import { harness, rejection } from "../../support/client";
import { json, stall } from "../../support/fake-server";
import { completedSubmission, orderRequest, submission, submissionId } from "../../support/fixtures";

const pollPath = `/v1/orders/submissions/${submissionId}`;
const pollRoute = `GET ${pollPath}`;
/** A non-terminal answer with no Retry-After: the documented 2 s interval applies. */
const noHint = (status: string, statusCode = 200) =>
  json(submission(status), statusCode, { location: pollPath });

describe("a wait without Retry-After", () => {
  it("submitOrderAndWait polls every 2 s (API.md, Waiting), not faster", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () => noHint("queued", 201));
    server.on(
      pollRoute,
      () => noHint("processing"),
      () => json(completedSubmission()),
    );
    const result = await client.submitOrderAndWait(orderRequest());
    expect(result.status).toBe("completed");
    expect(clock.sleeps).toEqual([2000, 2000]);
  });

  it("submissions.wait polls every 2 s too", async () => {
    const { client, server, clock } = harness();
    server.on(
      pollRoute,
      () => noHint("queued"),
      () => noHint("processing"),
      () => json(completedSubmission()),
    );
    await client.submissions.wait(submissionId);
    expect(clock.sleeps).toEqual([2000, 2000]);
    expect(server.to(pollRoute)).toHaveLength(3);
  });

  it("a deadline of 5 s allows exactly two polls at the default interval", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => noHint("queued", 201));
    server.on(pollRoute, () => noHint("processing"));
    const error = await rejection(client.submitOrderAndWait(orderRequest(), { timeoutMs: 5000 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    expect(server.to(pollRoute)).toHaveLength(2);
  });
});

describe("a poll that runs out of time", () => {
  // The wait's deadline is 30 ms after the first 2 s sleep ends, so the poll gets 30 ms of the fake
  // clock before its own timeout fires: an APITimeoutError inside the wait, which is the wait's
  // timeout.
  const timeoutMs = 2_030;

  it("submitOrderAndWait throws SubmissionTimeoutError with the last state, not APITimeoutError", async () => {
    const { client, server, clock } = harness();
    server.on("POST /v1/orders", () => noHint("queued", 201));
    server.on(pollRoute, stall(clock));
    const error = await rejection(client.submitOrderAndWait(orderRequest(), { timeoutMs }));
    expect(error).not.toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    const timeout = error as SubmissionTimeoutError<Submission>;
    expect(timeout.submissionId).toBe(submissionId);
    expect(timeout.submission?.status).toBe("queued");
    expect(server.to(pollRoute)).toHaveLength(1);
  });

  it("submissions.wait does the same on a later poll", async () => {
    const { client, server, clock } = harness();
    server.on(pollRoute, () => noHint("processing"), stall(clock));
    const error = await rejection(client.submissions.wait(submissionId, { timeoutMs }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    const timeout = error as SubmissionTimeoutError<Submission>;
    expect(timeout.submissionId).toBe(submissionId);
    expect(timeout.submission?.status).toBe("processing");
  });
});
