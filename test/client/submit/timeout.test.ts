import { describe, expect, it } from "vitest";
import { SubmissionTimeoutError } from "../../../src/core/errors";
import { harness, rejection } from "../../support/client";
import { stall } from "../../support/fake-server";
import { orderRequest } from "../../support/fixtures";

describe("submitOrderAndWait when the POST never answers", () => {
  it("times out saying to resend the identical request, not to wait on an unknown id", async () => {
    const { client, server, clock } = harness({ timeoutMs: 20 });
    server.on("POST /v1/orders", stall(clock));
    const error = await rejection(client.submitOrderAndWait(orderRequest(), { timeoutMs: 1_500 }));
    expect(error).toBeInstanceOf(SubmissionTimeoutError);
    const timeout = error as SubmissionTimeoutError;
    expect(timeout.submissionId).toBe("");
    expect(timeout.submission).toBeUndefined();
    expect(timeout.message).toContain("Send the identical request again");
    expect(timeout.message).not.toContain("submissions.wait");
    // Every attempt sent the same bytes, so resending cannot create a second order either.
    const bodies = server.to("POST /v1/orders").map((r) => r.body);
    expect(bodies.length).toBeGreaterThan(1);
    expect(new Set(bodies).size).toBe(1);
  });
});
