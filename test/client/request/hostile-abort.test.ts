import { describe, expect, it } from "vitest";
import { APIUserAbortError } from "../../../src/index";
import { harness, rejection } from "../../support/client";
import { json } from "../../support/fake-server";
import {
  completedSubmission,
  orderRequest,
  submission,
  submissionId,
} from "../../support/fixtures";

const pollRoute = `GET /v1/orders/submissions/${submissionId}`;

// After the POST was answered the order exists: an abort must still name it, so the caller resumes
// with client.submissions.wait(id) instead of resubmitting.
describe("an abort during submitOrderAndWait after the POST was answered", () => {
  it("during a poll request: APIUserAbortError carrying the submissionId", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on("POST /v1/orders", () => json(submission("queued"), 201, { "retry-after": "2" }));
    server.on(pollRoute, () => {
      controller.abort();
      return json(submission("processing"), 200, { "retry-after": "2" });
    });
    const error = await rejection(
      client.submitOrderAndWait(orderRequest(), { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).submissionId).toBe(submissionId);
  });

  it("submissions.wait aborted: the id it was waiting on", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on(pollRoute, () => {
      controller.abort();
      return json(submission("processing"), 200, { "retry-after": "2" });
    });
    const error = await rejection(
      client.submissions.wait(submissionId, { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).submissionId).toBe(submissionId);
  });

  it("an abort before any answer carries no submissionId", async () => {
    const { client } = harness();
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(
      client.submitOrderAndWait(orderRequest(), { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).submissionId).toBeUndefined();
  });

  it("a completed answer is returned even with a signal", async () => {
    const { client, server } = harness();
    server.on("POST /v1/orders", () => json(completedSubmission(), 201));
    const result = await client.submitOrderAndWait(orderRequest(), {
      signal: new AbortController().signal,
    });
    expect(result.status).toBe("completed");
  });
});
