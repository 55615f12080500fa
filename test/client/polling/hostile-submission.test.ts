import { describe, expect, it } from "vitest";
import {
  PartnerOrdersError,
  RequestValidationError,
  SubmissionLocationError,
} from "../../../src/index";
import { harness, rejection } from "../../support/client";
import { json } from "../../support/fake-server";
import { orderRequest, submission, submissionId } from "../../support/fixtures";

// The POST was answered: the order exists. An error that loses the id, or says nothing was sent,
// invites a resubmission under a new partnerOrderId, which would create a second order.
describe("a refused submission Location", () => {
  it.each([
    ["on another origin", `https://evil.test/v1/orders/submissions/${submissionId}`],
    ["with an encoded traversal", "/v1/orders/submissions/..%2F..%2Fadmin"],
    ["that is not a URL", "http://[bad"],
  ])(
    "%s: SubmissionLocationError with the submissionId, saying the order was submitted",
    async (_, location) => {
      const { client, server } = harness();
      server.on("POST /v1/orders", () =>
        json(submission("queued"), 201, { location, "retry-after": "2" }),
      );
      const error = await rejection(client.submitOrderAndWait(orderRequest()));
      expect(error).toBeInstanceOf(SubmissionLocationError);
      expect(error).toBeInstanceOf(PartnerOrdersError);
      expect(error).not.toBeInstanceOf(RequestValidationError);
      const refused = error as SubmissionLocationError;
      expect(refused.submissionId).toBe(submissionId);
      expect(refused.message).toContain("was submitted");
      expect(refused.message).toContain(`client.submissions.wait("${submissionId}")`);
      expect(refused.message).not.toContain("nothing was sent");
      expect(server.apiRequests).toHaveLength(1);
    },
  );
});
