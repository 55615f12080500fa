import { describe, expect, it } from "vitest";
import {
  APITimeoutError,
  APIUserAbortError,
  SubmissionLocationError,
  SubmissionTimeoutError,
} from "../../../src/core/errors";
import type { Submission } from "../../../src/core/models";
import { harness, rejection } from "../../support/client";
import { hang, json, stall } from "../../support/fake-server";
import {
  completedSubmission,
  orderRequest,
  submission,
  submissionId,
} from "../../support/fixtures";

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

describe("an aborted wait", () => {
  it("aborted during the first read of a resumed wait: the error names the submission", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on(pollRoute, (request) => {
      controller.abort();
      return hang(request);
    });
    const error = await rejection(
      client.submissions.wait(submissionId, { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).submissionId).toBe(submissionId);
    expect((error as Error).message).toContain(`client.submissions.wait("${submissionId}")`);
  });

  it("aborted during the POST, before any answer: no submission to name", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on("POST /v1/orders", (request) => {
      controller.abort();
      return hang(request);
    });
    const error = await rejection(
      client.submitOrderAndWait(orderRequest(), { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).submissionId).toBeUndefined();
    expect((error as Error).message).not.toContain("undefined");
    expect((error as Error).message).not.toContain("submissions.wait");
  });

  it("aborted during a later poll: the error names the submission the POST created", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, { location: pollPath, "retry-after": "2" }),
    );
    server.on(pollRoute, (request) => {
      controller.abort();
      return hang(request);
    });
    const error = await rejection(
      client.submitOrderAndWait(orderRequest(), { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).submissionId).toBe(submissionId);
  });
});

describe("why a Location is refused", () => {
  it.each([
    ["not a URL", "http://[bad", "the Location to poll is not a URL"],
    [
      "a path that does not end in an id",
      "/v1/orders/submissions/latest",
      "the Location to poll does not end in a submission id",
    ],
    [
      "malformed percent-encoding",
      "/v1/orders/submissions/%E0%A4%A",
      "the Location to poll does not end in a submission id",
    ],
  ])("%s: the message says so", async (_, location, reason) => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () =>
      json(submission("queued"), 201, { location, "retry-after": "2" }),
    );
    const error = await rejection(client.submitOrderAndWait(orderRequest()));
    expect(error).toBeInstanceOf(SubmissionLocationError);
    expect((error as Error).message).toContain(reason);
    expect(server.apiRequests).toHaveLength(1);
  });
});
