import { describe, expect, it } from "vitest";
import { APIUserAbortError } from "../../../src/index";
import { harness, rejection } from "../../support/client";
import { json } from "../../support/fake-server";
import { orderRequest, submission, submissionId } from "../../support/fixtures";

// After the POST was answered the order exists: an abort must still name it, so the caller resumes
// with client.submissions.wait(id) instead of resubmitting. Runs over the in-process fetch only
// (not in the undici project): over a socket an abort made while the server answers ends the POST
// itself, and no order is known then.
describe("an abort made while the POST of submitOrderAndWait is answered", () => {
  // The abort is made while the server is still answering, which only an in-process fetch can
  // order after the answer: over a socket it ends the POST itself (no order is known then).
  it("while sleeping between polls: APIUserAbortError carrying the submissionId", async () => {
    const { client, server } = harness();
    const controller = new AbortController();
    server.on("POST /v1/orders", () => {
      controller.abort();
      return json(submission("queued"), 201, { "retry-after": "2" });
    });
    const error = await rejection(
      client.submitOrderAndWait(orderRequest(), { signal: controller.signal }),
    );
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as APIUserAbortError).submissionId).toBe(submissionId);
    expect((error as Error).message).toContain("submissions.wait");
  });
});
