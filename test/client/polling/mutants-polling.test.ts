import { describe, expect, it } from "vitest";
import {
  APIUserAbortError,
  SubmissionLocationError,
  SubmissionTimeoutError,
} from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { hang, json } from "../../support/fake-server";
import { completedSubmission, orderRequest, submission, submissionId } from "../../support/fixtures";

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
